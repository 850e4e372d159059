#!/usr/bin/env bash
# signal_test.sh STREAMRT SHIM DIR
# SIGINT and SIGTERM mid-render, mid-write and between frames: exit 128 + the signal, the
# progress line ended, one line saying what was kept, valid files where they are kept and no
# temporary left anywhere. (A signal mid-render writes the image of the samples so far.)
set -u
cli=$1 shim=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
render=("$cli" render cornell --backend cpu --threads 1 --width 64 --height 64)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check_no_temporaries() {
  local left
  left=$(find "$dir" -name '.*.tmp*' 2>/dev/null)
  [ -z "$left" ] || fail "$1: temporaries left: $left"
}
is_png() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '211PNG' ]; }

# wait_for FILE REGEX: until FILE matches (at most 30 s).
wait_for() {
  for _ in $(seq 300); do
    grep -Eq -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "timed out waiting for /$2/ in $1: $(cat "$1")"
  return 1
}

# expect_exit PID STATUS WHAT
expect_exit() {
  wait "$1"
  local rc=$?
  [ $rc -eq "$2" ] || fail "$3: exit $rc, not $2"
}

# run_paused NAME: renders one frame into NAME/ with the shim holding the flush, in the
# background (pid in $pid), and returns once the flush has begun.
run_paused() {
  mkdir "$1"
  env LD_PRELOAD="$shim" SRT_SHIM_DIR="$dir/$1" SRT_SHIM_FSYNC_PAUSE="$dir/$1.marker" \
    "${render[@]}" --spp 1 -o "$1/a.png" --stats "$1/a.json" 2>"$1.err" &
  pid=$!
  for _ in $(seq 300); do
    [ -e "$1.marker" ] && return 0
    sleep 0.1
  done
  fail "$1: the write never began: $(cat "$1.err")"
}

for sig in INT TERM; do
  status=$([ $sig = INT ] && echo 130 || echo 143)

  # Mid-render, with the progress bar drawn: the pass in flight finishes and the image of the
  # samples so far is written (partial_test.sh checks it further), the bar's line ended.
  "${render[@]}" --spp 1000000 --progress -o render-$sig.png --stats render-$sig.json \
    2>render-$sig.err &
  pid=$!
  wait_for render-$sig.err 'rendering \[' && kill -$sig $pid
  expect_exit $pid $status "SIG$sig mid-render"
  grep -q "^streamrt: stopped by SIG$sig after writing render-$sig.png$" render-$sig.err ||
    fail "SIG$sig mid-render: the last line is not on a line of its own: $(cat -A render-$sig.err)"
  is_png render-$sig.png && grep -q '"stopped": true' render-$sig.json ||
    fail "SIG$sig mid-render: no partial image and statistics"
  check_no_temporaries "SIG$sig mid-render"

  # Mid-write: the files being written are finished, both, then the process stops.
  run_paused write-$sig
  kill -$sig $pid
  expect_exit $pid $status "SIG$sig mid-write"
  is_png write-$sig/a.png || fail "SIG$sig mid-write: no valid image"
  grep -q '"spp": 1' write-$sig/a.json || fail "SIG$sig mid-write: no statistics"
  grep -q "^streamrt: stopped by SIG$sig after writing write-$sig/a.png$" write-$sig.err ||
    fail "SIG$sig mid-write: $(cat write-$sig.err)"
  check_no_temporaries "SIG$sig mid-write"

  # Twice mid-write: the second signal stops at once, and neither file appears.
  run_paused twice-$sig
  kill -$sig $pid && sleep 0.3 && kill -$sig $pid
  expect_exit $pid $status "SIG$sig twice mid-write"
  [ -z "$(ls -A twice-$sig)" ] || fail "SIG$sig twice mid-write: left $(ls -A twice-$sig)"

  # Between frames of a sequence: the frames written stay. A signal while a frame is written
  # ends the statistics with the frames so far; one while a frame renders leaves none.
  "${render[@]}" --spp 64 --frames 1000 -o seq-$sig.png --stats seq-$sig.json 2>seq-$sig.err &
  pid=$!
  wait_for seq-$sig.err "wrote seq-$sig-0001.png" && kill -$sig $pid
  expect_exit $pid $status "SIG$sig between frames"
  is_png seq-$sig-0001.png || fail "SIG$sig between frames: frame 1 is not a PNG"
  if grep -Eq "^streamrt: stopped by SIG$sig; frames 1-[0-9]+ of 1000 written, no statistics$" \
    seq-$sig.err; then
    [ ! -e seq-$sig.json ] || fail "SIG$sig between frames: statistics written"
  elif grep -Eq "^streamrt: stopped by SIG$sig after writing seq-$sig-[0-9]+.png$" seq-$sig.err; then
    grep -q '^  \]$' seq-$sig.json || fail "SIG$sig between frames: statistics not ended"
  else
    fail "SIG$sig between frames: $(cat seq-$sig.err)"
  fi
  check_no_temporaries "SIG$sig between frames"
done

[ $failures -eq 0 ] && echo "ok" || exit 1
