#!/usr/bin/env bash
# Times a render on one GPU against the same render split with --devices (not a CTest test: speed
# is measured, not asserted). Every configuration's image must equal the plain render's byte for
# byte. Prints render_seconds (median of REPEATS) and the speed-up over --devices 0.
#   tests/multi/time_devices.sh STREAMRT SCENE OUTDIR [REPEATS] [-- extra render flags]
# e.g. tests/multi/time_devices.sh build/apps/streamrt scenes/examples/conference-room.json \
#        /tmp/devices 3 -- --width 1920 --height 1080 --spp 64
set -euo pipefail
cli=$1 scene=$2 out=$3 repeats=${4:-3}
shift $(( $# >= 4 ? 4 : 3 ))
[ "${1:-}" = -- ] && shift
mkdir -p "$out"
count=$( (nvidia-smi -L 2>/dev/null || true) | wc -l)
configs=(plain 0 0,0)
[ "$count" -ge 2 ] && configs+=(0,1 all)
seconds() { grep -o '"render_seconds": [0-9.e+-]*' "$1" | head -1 | awk '{print $2}'; }
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
declare -A med
for c in "${configs[@]}"; do
  flags=()
  [ "$c" != plain ] && flags=(--devices "$c")
  for r in $(seq "$repeats"); do
    "$cli" render "$scene" -o "$out/$c.pfm" --stats "$out/$c-$r.json" -q --backend cuda \
      "${flags[@]}" "$@"
    seconds "$out/$c-$r.json"
  done | median > "$out/$c.median"
  med[$c]=$(cat "$out/$c.median")
  [ "$c" = plain ] || cmp "$out/plain.pfm" "$out/$c.pfm" || { echo "image of --devices $c differs"; exit 1; }
done
echo "configuration  render_seconds(median of $repeats)  speed-up over --devices 0"
for c in "${configs[@]}"; do
  awk -v c="$c" -v s="${med[$c]}" -v b="${med[0]}" 'BEGIN {printf "%-14s %-34s %.3f\n", c, s, b / s}'
done
