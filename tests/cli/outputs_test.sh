#!/usr/bin/env bash
# outputs_test.sh STREAMRT SHIM DIR
# Outputs never clobber and never linger: devices, FIFOs and folders are refused before any work
# and stay what they were; symlinks are written through; one file named twice is refused; a full
# disk (a tmpfs where one can be mounted, and always an LD_PRELOAD shim) leaves no file, old
# files as they were, and no temporary; a file name with any bytes gives valid JSON statistics.
set -u
cli=$1 shim=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
render=(timeout 60 "$cli" render cornell --backend cpu --threads 1 --width 8 --height 8 --spp 1 -q)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# No temporary (".NAME.tmpPID-N") anywhere under the test folder.
check_no_temporaries() {
  local left
  left=$(find "$dir" -name '.*.tmp*' 2>/dev/null)
  [ -z "$left" ] || fail "$1: temporaries left: $left"
}

# refused REGEX ARGS...: the render exits 1 with one error line matching REGEX.
refused() {
  local regex=$1 err rc
  shift
  err=$("${render[@]}" "$@" 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq 1 ] || fail "$*: exit $rc, not 1 ($err)"
  [ "$(grep -c '^streamrt: error: ' <<<"$err")" -eq 1 ] || fail "$*: not one error line: $err"
  grep -Eq -- "$regex" <<<"$err" || fail "$*: '$err' does not match /$regex/"
  check_no_temporaries "$*"
}

is_png() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '211PNG' ]; }

# --- device nodes: our own where we may make them (root), else the system's (not replaceable).
if [ "$(id -u)" -eq 0 ] && mknod null.png c 1 3 2>/dev/null && mknod full.json c 1 7; then
  dev_image=null.png dev_stats=full.json
else
  dev_image=/dev/null dev_stats=/dev/full
fi
refused "-o $dev_image: a character device, not a regular file" -o $dev_image
refused "--stats $dev_stats: a character device" -o ok.png --stats $dev_stats
[ -c $dev_image ] && [ -c $dev_stats ] || fail "a device node was replaced"
[ ! -e ok.png ] || fail "the image was written though --stats was refused"

# --- FIFOs (opening one for writing would block: the refusal must come first) and folders.
mkfifo fifo.png fifo.json
refused "-o fifo.png: a FIFO" -o fifo.png
refused "--stats fifo.json: a FIFO" -o ok.png --stats fifo.json
[ -p fifo.png ] && [ -p fifo.json ] || fail "a FIFO was replaced"
mkdir folder.png folder.json
refused "-o folder.png: is a folder" -o folder.png
refused "--stats folder.json: is a folder" -o ok.png --stats folder.json
refused "-o nothere/x.png: folder 'nothere' does not exist" -o nothere/x.png

# --- symlinks are written through; the link stays a link.
echo old >target.png
ln -s target.png link.png
ln -s link.png chain.png
mkdir sub
ln -s sub/inner.png into-sub.png
ln -s missing.png dangling.png
ln -s fifo.png to-fifo.png
for link in link.png chain.png into-sub.png dangling.png; do
  "${render[@]}" -o $link || fail "-o $link: exit $?"
  [ -L $link ] || fail "$link is no longer a symlink"
done
is_png target.png || fail "target.png was not written through link.png"
is_png sub/inner.png || fail "sub/inner.png was not written through into-sub.png"
is_png missing.png || fail "missing.png was not created through dangling.png"
refused "-o to-fifo.png: a FIFO .the symlink leads to fifo.png" -o to-fifo.png
check_no_temporaries "symlinks"

# --- one file named twice, however it is spelt; nothing is written.
refused "the same file as" -o same.png --stats same.png
refused "the same file as" -o same.png --stats ./same.png
refused "the same file as" -o same.png --stats "$dir/sub/../same.png"
refused "the same file as" -o link.png --stats target.png
echo x >hard1.png && ln hard1.png hard2.png
refused "the same file as" -o hard1.png --stats hard2.png
refused "the same file as" -o seq.png --frames 3 --stats seq-0001.png
[ ! -e same.png ] || fail "same.png was written"
[ "$(cat hard1.png)" = x ] || fail "hard1.png was clobbered"
[ ! -e seq-0000.png ] || fail "seq-0000.png was written"

# --- a full disk, through the shim: the stats fail, or the stats fit and the image fails, or
# the flush fails; old files stay as they were, no new file appears.
mkdir full && echo old-image >full/a.png && echo old-stats >full/a.json
"${render[@]}" -o sizes.png --stats sizes.json || fail "reference render: exit $?"
stats_bytes=$(wc -c <sizes.json)
full=(env LD_PRELOAD="$shim" SRT_SHIM_DIR="$dir/full")
for setting in SRT_SHIM_FULL_AFTER=100 SRT_SHIM_FULL_AFTER=$((stats_bytes + 10)) \
               SRT_SHIM_FSYNC_FAILS=1; do
  for out in "-o full/a.png --stats full/a.json" "-o full/b.png --stats full/b.json"; do
    err=$("${full[@]}" $setting "${render[@]}" $out 2>&1)
    rc=$?
    [ $rc -eq 1 ] || fail "$setting $out: exit $rc ($err)"
    grep -Eq "^streamrt: error: cannot write (image|statistics) 'full/.\.(png|json)': No space left on device$" <<<"$err" ||
      fail "$setting $out: message '$err'"
  done
  [ "$(cat full/a.png)" = old-image ] && [ "$(cat full/a.json)" = old-stats ] ||
    fail "$setting: an old file was replaced"
  [ ! -e full/b.png ] && [ ! -e full/b.json ] || fail "$setting: a new file was left"
  check_no_temporaries "$setting"
done
# A sequence on a full disk (frames are written on a thread of their own): the error names the
# frame, the frames written before stay, the statistics do not appear.
err=$("${full[@]}" SRT_SHIM_FULL_AFTER=$((stats_bytes * 2)) "${render[@]}" -o full/f.png \
  --frames 6 --stats full/f.json 2>&1) && fail "frames on a full disk: exit 0"
grep -Eq "^streamrt: error: cannot write (image|statistics) 'full/f(-000[0-5].png|.json)': No space left on device$" <<<"$err" ||
  fail "frames on a full disk: message '$err'"
[ ! -e full/f.json ] || fail "frames on a full disk: f.json was written"
check_no_temporaries "frames on a full disk"

# --- a real full disk: a 16 KiB tmpfs in a mount namespace of our own, where we may make one.
if unshare -m true 2>/dev/null; then
  mkdir tmpfs
  # The 64x64 EXR (49 KiB) cannot fit; everything is checked inside the namespace.
  err=$(unshare -m sh -c '
    mount -t tmpfs -o size=16k tmpfs "$1" || exit 77
    "$2" render cornell --backend cpu --threads 1 --width 64 --height 64 --spp 1 -q \
      -o "$1/a.exr" --stats "$1/a.json"
    rc=$?
    left=$(ls -A "$1")
    [ -z "$left" ] || echo "left on the tmpfs: $left"
    exit $rc' sh "$dir/tmpfs" "$cli" 2>&1)
  rc=$?
  if [ $rc -eq 77 ]; then
    echo "tmpfs part skipped: cannot mount a tmpfs"
  else
    [ $rc -eq 1 ] || fail "tmpfs: exit $rc ($err)"
    grep -q "No space left on device" <<<"$err" || fail "tmpfs: message '$err'"
    grep -q "left on the tmpfs" <<<"$err" && fail "tmpfs: $err"
  fi
else
  echo "tmpfs part skipped: no mount namespace (unshare -m) here"
fi

# --- streamrt profile: its three files are checked before any work and appear together.
profile=(timeout 120 "$cli" profile cornell --backend cpu --threads 1 --width 8 --height 8 --spp 1
         --compaction cpu --warmup 0 --repeats 1 -q)
mkdir prof && mkfifo prof/report.html
err=$("${profile[@]}" --out prof 2>&1)
[ $? -eq 1 ] && grep -q "^streamrt: error: --out prof/report.html: a FIFO" <<<"$err" ||
  fail "profile into a folder with a FIFO: $err"
[ -p prof/report.html ] || fail "profile replaced a FIFO"
"${profile[@]}" --out prof-new >/dev/null || fail "profile: exit $?"
[ -s prof-new/profile.json ] && [ -s prof-new/profile.csv ] && [ -s prof-new/report.html ] ||
  fail "profile: files missing: $(ls prof-new)"
check_no_temporaries "profile"

# --- names with any bytes: the statistics stay valid UTF-8 (U+FFFD for the stray byte).
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >$'tri\xff.obj'
timeout 60 "$cli" render $'tri\xff.obj' --backend cpu --threads 1 --width 8 --height 8 --spp 1 -q \
  -o $'img\xff.png' --stats stray.json || fail "a name with byte 0xFF: exit $?"
is_png $'img\xff.png' || fail "a name with byte 0xFF: no image"
grep -q $'"scene": "tri\xef\xbf\xbd.obj"' stray.json || fail "stray.json does not name the scene"

check_no_temporaries "the end"
[ $failures -eq 0 ] && echo "ok" || exit 1
