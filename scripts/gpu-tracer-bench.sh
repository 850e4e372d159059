#!/usr/bin/env bash
# Runs on the CUDA host over a bundle from scripts/gpu-bundle.sh: issue 8's comparison of path
# pool modes, side by side in one run, on the Conference Room (lit by its panels) and open
# environment-lit scenes. Per scene and mode: rays/s, render time, compaction's share, passes,
# and whether the image is bit-identical to the scene's first mode. Stats JSON per render and
# a summary table go to $OUT/tracer.tgz.
#   MODES="name:flags;..."  override the modes;  SCENES="path ..." the scenes;  SPP, W, H, DEPTH
set -u
cd "$(dirname "$0")/.."
B=${BUNDLE:-.gpu}
OUT=${OUT:-gpu-results}
res=$(mktemp -d)
[ -d "$B/bin" ] || tar xzf "$B/bundle.tgz" -C "$B"
source "$B/env.sh"
mkdir -p scenes/data
for z in "$B"/scenes/*.zip; do
  name=$(basename "$z" .zip)
  [ "$name" = sponza ] && name=dabrovic-sponza
  [ -d "scenes/data/$name" ] || python3 -m zipfile -e "$z" "scenes/data/$name"
done
W=${W:-1920} H=${H:-1080} SPP=${SPP:-16} DEPTH=${DEPTH:-8}
scenes=${SCENES:-scenes/examples/conference-room.json bench/tracer/scenes/sponza-env.json bench/tracer/scenes/sponza-lit.json bench/tracer/scenes/teapot-env.json}
default_modes="none-waves:--compaction none --schedule waves;\
none-regen:--compaction none --schedule regenerate;\
cub-waves:--compaction cub --schedule waves;\
cub-regen:--compaction cub --schedule regenerate;\
tile-atomic-regen:--compaction tile-atomic --schedule regenerate;\
lookback-regen:--compaction lookback --schedule regenerate;\
cub-index-regen:--compaction cub --payload index --schedule regenerate;\
tile-atomic-index-regen:--compaction tile-atomic --payload index --schedule regenerate"
IFS=';' read -ra modes <<<"${MODES:-$default_modes}"
nvidia-smi -L | tee "$res/device.txt"
for scene in $scenes; do
  sname=$(basename "$scene" .json)
  ref=""
  for m in "${modes[@]}"; do
    name=${m%%:*}
    flags=${m#*:}
    tag="$sname-$name"
    # shellcheck disable=SC2086
    "$B/bin/streamrt" render "$scene" -o "$res/$tag.pfm" --width "$W" --height "$H" --spp "$SPP" \
      --max-depth "$DEPTH" --stats "$res/$tag.json" -q $flags 2>"$res/$tag.err"
    rc=$?
    same="-"
    if [ -z "$ref" ]; then ref="$res/$tag.pfm"; elif [ -f "$res/$tag.pfm" ]; then
      cmp -s "$ref" "$res/$tag.pfm" && same=identical || same=DIFFERENT
    fi
    python3 - "$res/$tag.json" "$sname" "$name" "$rc" "$same" <<'PY' || echo "$tag: exit $rc: $(head -c 300 "$res/$tag.err")"
import json, sys
s = json.load(open(sys.argv[1])); t = s["totals"]
busy = t["trace_ms"] + t["shade_ms"] + t["shadow_ms"] + t["compaction_ms"] + t.get("regenerate_ms", 0)
share = 100 * t["compaction_ms"] / busy if busy else 0
print(f"{sys.argv[2]:>16} {sys.argv[3]:>24} rc {sys.argv[4]} {t['rays_per_second']/1e9:6.3f} Grays/s "
      f"render {t['render_seconds']:6.3f} s passes {t.get('passes', 0):4d} pool {s.get('pool_size', 0)} "
      f"trace {t['trace_ms']:7.1f} shade {t['shade_ms']:6.1f} shadow {t['shadow_ms']:6.1f} "
      f"compact {t['compaction_ms']:6.1f} ({share:4.1f}%) refill {t.get('regenerate_ms', 0):5.1f} | {sys.argv[5]}")
PY
  done
done | tee "$res/summary.txt"
mkdir -p "$OUT"
rm -f "$res"/*.pfm
cp "$res/summary.txt" "$OUT/tracer-summary.txt"
tar czf "$OUT/tracer.tgz" -C "$res" .
