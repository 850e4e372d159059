#!/usr/bin/env bash
# memory_test.sh STREAMRT SCENE DIR
# A long sequence renders in bounded memory: the peak RSS of 120 frames, with statistics, is
# within 10% of 10 frames' (it grew by about 27 KB a frame when every frame's statistics were
# kept: +20% here). Skips (77) without GNU time to measure the peak.
set -u
cli=$1 scene=$2 dir=$3
[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 || {
  echo "skipped: no GNU time (/usr/bin/time -f %M)"
  exit 77
}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
peak() {  # frames -> peak RSS in KiB
  /usr/bin/time -f 'peak %M' -o "$dir/time-$1" "$cli" render "$scene" --backend cpu --threads 1 \
    --width 16 --height 12 --spp 1 --frames "$1" -q -o "$dir/f.png" --stats "$dir/s$1.json" ||
    { echo "render of $1 frames failed"; exit 1; }
  sed -n 's/^peak //p' "$dir/time-$1"
}
short=$(peak 10)
long=$(peak 120)
grep -c '"scene"' "$dir/s120.json" | grep -qx 120 || { echo "s120.json lacks frames"; exit 1; }
echo "peak RSS: 10 frames ${short} KiB, 120 frames ${long} KiB"
[ "$long" -le $((short * 11 / 10)) ] || { echo "memory grows with the frame count"; exit 1; }
rm -rf "$dir"
