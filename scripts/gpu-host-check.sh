#!/usr/bin/env bash
# Runs on the CUDA host, from the repository root, over a bundle made by scripts/gpu-bundle.sh:
# the GPU test suites, then Conference Room renders at 1080p for every CUDA primitive (16 spp) and
# every compaction primitive at 4 spp, checking that each image is bit-identical to cub's.
# Results go to $OUT (or ./gpu-results): logs, stats JSON and one PNG, packed in results.tgz.
set -u
cd "$(dirname "$0")/.."
B=${BUNDLE:-.gpu}
OUT=${OUT:-gpu-results}
res=$(mktemp -d)
tar xzf "$B/bundle.tgz" -C "$B"
source "$B/env.sh"
export SRT_TEST_SCENES_DIR=$PWD/build/test-scenes
mkdir -p "$SRT_TEST_SCENES_DIR"
for z in "$B"/scenes/*.zip; do
  name=$(basename "$z" .zip)
  python3 -m zipfile -e "$z" "$SRT_TEST_SCENES_DIR/$name"
done
nvidia-smi -L | tee "$res/device.txt"

for t in ${TESTS:-test_shading_gpu test_kdtree_gpu test_render_gpu test_compaction_gpu test_reduction_gpu test_gl}; do
  [ -x "$B/bin/$t" ] || continue
  start=$(date +%s)
  "$B/bin/$t" --gtest_brief=1 >"$res/$t.log" 2>&1
  echo "$t: exit $? in $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$res/$t.log" | tr '\n' ' ')"
done | tee "$res/tests.txt"

scene=scenes/examples/conference-room.json
render() {  # name spp extra...
  local name=$1 spp=$2; shift 2
  "$B/bin/streamrt" render "$scene" -o "$res/conf-$name-$spp.pfm" --width 1920 --height 1080 \
    --spp "$spp" --max-depth 8 --stats "$res/stats-$name-$spp.json" -q "$@" 2>"$res/err-$name-$spp.txt"
  local rc=$?
  local same="-"
  [ -f "$res/conf-cub-$spp.pfm" ] && [ "$name" != cub ] && {
    cmp -s "$res/conf-cub-$spp.pfm" "$res/conf-$name-$spp.pfm" && same=identical || same=DIFFERENT; }
  python3 - "$res/stats-$name-$spp.json" "$name" "$spp" "$rc" "$same" <<'PY' || echo "$name $spp: exit $rc $(cat "$res/err-$name-$spp.txt")"
import json, sys
s = json.load(open(sys.argv[1])); t = s["totals"]
print(f"{sys.argv[2]:>18} spp {sys.argv[3]:>2} rc {sys.argv[4]} rays/s {t['rays_per_second']:.3e} "
      f"render {t['render_seconds']:.2f} s compaction {t['compaction_ms']:.1f} ms "
      f"(xfer {sum(b['compaction_transfer_ms'] for b in s['bounces']):.1f}) trace {t['trace_ms']:.1f} "
      f"shade {t['shade_ms']:.1f} shadow {t['shadow_ms']:.1f} | vs cub: {sys.argv[5]}")
PY
}
{
  for c in ${CUDA_PRIMITIVES:-cub none warp-aggregated bm-multilevel bm-hybrid roger-block-cuda lookback tile-atomic}; do
    render "$c" 16 --compaction "$c"
  done
  render cub-index 16 --compaction cub --payload index
  for c in ${ALL_PRIMITIVES:-cub none warp-aggregated bm-multilevel bm-hybrid roger-block-cuda lookback tile-atomic gl-roger gl-horn gl-horn-blelloch gl-gs-packing gl-jumping-jack gl-rlz gl-binary-tree}; do
    render "$c" 4 --compaction "$c"
  done
} | tee "$res/renders.txt"
"$B/bin/streamrt" render "$scene" -o "$res/conf-cub.png" --width 1920 --height 1080 --spp 16 -q
mkdir -p "$OUT"
cp "$res/conf-cub.png" "$OUT/" 2>/dev/null
rm -f "$res"/*.pfm
tar czf "$OUT/results.tgz" -C "$res" .
