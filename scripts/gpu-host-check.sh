#!/usr/bin/env bash
# Runs on the CUDA host, from the repository root, over a bundle made by scripts/gpu-bundle.sh:
# the GPU test suites, then Conference Room renders at 1080p for every CUDA primitive (16 spp) and
# every compaction primitive at 4 spp, checking that each image is bit-identical to cub's.
# Then (POOL= skips) the traversal bench, the path pool modes and auto against fixed primitives.
# Results go to $OUT/raw as they are made (a run cut short keeps them), then $OUT/results.tgz.
set -u
cd "$(dirname "$0")/.."
B=${BUNDLE:-.gpu}
OUT=${OUT:-gpu-results}
res=$OUT/raw  # written as it goes: a run cut short still returns what it has
rm -rf "$res" && mkdir -p "$res"
tar xzf "$B/bundle.tgz" -C "$B"
source "$B/env.sh"
export SRT_TEST_SCENES_DIR=$PWD/build/test-scenes SRT_TEST_DATA_DIR=$PWD/$B/test-data
mkdir -p "$SRT_TEST_SCENES_DIR"
for z in "$B"/scenes/*.zip; do
  name=$(basename "$z" .zip)
  python3 -m zipfile -e "$z" "$SRT_TEST_SCENES_DIR/$name"
done
scripts/fetch-scenes.sh --shared "$B/scenes" >/dev/null  # scenes/data/, where the examples look
extra_meshes=()
for g in "$B"/scenes/*.gz; do
  [ -e "$g" ] || continue
  m="$SRT_TEST_SCENES_DIR/$(basename "$g" .gz)"
  gunzip -c "$g" >"$m" && extra_meshes+=(--mesh "$m")
done
nvidia-smi -L | tee "$res/device.txt"

for t in ${TESTS:-test_shading_gpu test_kdtree_gpu test_kdtree_gpu_build test_render_gpu test_compaction_gpu test_compaction_adaptive_gpu test_traversal_persistent test_furnace_gpu test_reduction_gpu test_multi_gpu test_gl test_viewer_interop}; do
  [ -x "$B/bin/$t" ] || continue
  start=$(date +%s)
  filter_var="FILTER_$t"
  timeout "${TEST_TIMEOUT:-300}" "$B/bin/$t" --gtest_brief=1 --gtest_filter="${!filter_var:-*}" >"$res/$t.log" 2>&1
  echo "$t: exit $? in $(( $(date +%s) - start )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$res/$t.log" | tr '\n' ' ')"
done | tee "$res/tests.txt"

scene=scenes/examples/conference-room.json
render() {  # name spp extra...
  local name=$1 spp=$2; shift 2
  # A render that hangs (a driver or interop fault) is cut off and reported, not waited on.
  timeout "${RENDER_TIMEOUT:-120}" "$B/bin/streamrt" render "$scene" -o "$res/conf-$name-$spp.pfm" --width 1920 --height 1080 \
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
  for c in ${INDEX_PRIMITIVES:-cub lookback tile-atomic}; do
    render "$c-index" 16 --compaction "$c" --payload index
  done
  for c in ${ALL_PRIMITIVES:-cub none warp-aggregated bm-multilevel bm-hybrid roger-block-cuda lookback tile-atomic gl-roger gl-horn gl-horn-blelloch gl-gs-packing gl-jumping-jack gl-rlz gl-binary-tree}; do
    render "$c" 4 --compaction "$c"
  done
} | tee "$res/renders.txt"
# The GPU kd-tree build (Zhou et al.): the Conference Room against the CPU-built tree, an
# animated scene rebuilt per frame, and the build benchmark per segmented reduction.
if [ -n "${KD-1}" ]; then  # KD= (empty) skips this section
  render kd-cpu 16 --compaction cub
  render kd-gpu 16 --compaction cub --kd-build gpu
  python3 - "$res/conf-kd-cpu-16.pfm" "$res/conf-kd-gpu-16.pfm" <<'PY' | tee "$res/kd-compare.txt"
import struct, sys
def read(p):
    f = open(p, "rb"); f.readline(); w, h = map(int, f.readline().split()); f.readline()
    return w, h, struct.unpack(f"<{w*h*3}f", f.read())
w, h, a = read(sys.argv[1]); _, _, b = read(sys.argv[2])
ma, mb = sum(a) / len(a), sum(b) / len(b)
blocks = []
for by in range(0, h - 63, 64):
    for bx in range(0, w - 63, 64):
        sa = sb = 0.0
        for y in range(by, by + 64, 4):
            for x in range(bx, bx + 64, 4):
                i = 3 * (y * w + x); sa += sum(a[i:i+3]); sb += sum(b[i:i+3])
        blocks.append(abs(sa - sb) / max(sa, 1e-6))
blocks.sort()
print(f"kd-build gpu vs cpu, Conference Room 1080p 16 spp: mean {mb:.5f} vs {ma:.5f} "
      f"({100*(mb-ma)/ma:+.2f}%), 64x64 block relative difference median {blocks[len(blocks)//2]:.4f}, "
      f"95th percentile {blocks[int(0.95*len(blocks))]:.4f}")
PY
  "$B/bin/streamrt" render scenes/examples/cornell-orbit.json -o "$res/orbit.pfm" --frames 8 \
    --width 640 --height 480 --spp 16 --kd-build gpu --stats "$res/stats-orbit.json" -q \
    2>&1 | tee "$res/orbit.txt"
  python3 - "$res/stats-orbit.json" <<'PY' | tee -a "$res/orbit.txt"
import json, sys
for f in json.load(open(sys.argv[1]))["frames"]:
    a = f["accel"]
    print(f"frame t={f['time']:.3f}: {a['builder']} build {a['build_ms']:.2f} ms, nodes {a['nodes']}, "
          f"SAH {a['sah_cost']:.1f}, stages {a.get('stages_ms')}")
PY
  "$B/bin/streamrt-bench-kdtree" --mesh "$SRT_TEST_SCENES_DIR/conference-room/conference.obj" \
    "${extra_meshes[@]}" ${KD_BENCH_ARGS:-} --json "$res/bench-kdtree.json" 2>&1 | tee "$res/bench-kdtree.txt"
fi
# The persistent traversal against the standard one (every variant's hits compared), then the
# path pool's modes side by side, `auto` among the fixed primitives (scripts/gpu-tracer-bench.sh).
if [ -n "${POOL-1}" ]; then  # POOL= (empty) skips this section
  "$B/bin/streamrt-bench-traversal" "$SRT_TEST_SCENES_DIR/conference-room/conference.obj" \
    --width 1920 --height 1080 --fractions 1,0.1 --repeats 20 --json "$res/bench-trace.json" \
    2>&1 | tee "$res/bench-trace.txt"
  OUT="$res" bash scripts/gpu-tracer-bench.sh 2>&1 | tee "$res/pool-modes.txt"
fi
"$B/bin/streamrt" render "$scene" -o "$res/conf-cub.png" --width 1920 --height 1080 --spp 16 -q
cp "$res/conf-cub.png" "$OUT/" 2>/dev/null
cp "$res/orbit-0004.pfm" "$OUT/" 2>/dev/null
rm -f "$res"/*.pfm
tar czf "$OUT/results.tgz" -C "$OUT" raw && rm -rf "$res"  # one file: the tool returns few
