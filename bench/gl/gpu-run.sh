#!/usr/bin/env bash
# The OpenGL compaction's run on the CUDA host, from the repository root, over a bundle made here
# by `scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90 && scripts/gpu-bundle.sh .gpu-gl` (or, smaller,
# BINS="build/apps/streamrt build/tests/gl/test_gl build/tests/viewer/test_viewer_interop
# build/bench/gl/streamrt-bench-gl" scripts/gpu-bundle.sh .gpu-gl). In this order, so that nothing
# that can wedge GL (an external-memory hand-off that never arrives) runs before the rest:
#   1. test_gl (SRT_GL_LARGE=1) and test_viewer_interop;
#   2. streamrt-bench-gl at 1M, 4M, 16M: roof lines (bytes, and the fragment stage's ALU, bit-op
#      and fetch rates), times, Table I with roof ratios, bytes and both roofs per step at 4M,
#      the concatenation decomposed (diag=concat), the interop section (registered buffers held or mapped per use, host
#      copies, both payload sides), and the sweeps unless SWEEPS= (empty);
#   3. the Conference Room at 1920x1080, 16 spp, depth 8: cub, gl-roger (map=held), map=call,
#      indices=texture (the gather reads GL's output texture: no read-back copy), payload=gl,
#      radix=2 (the paper's doubling; 8 is the default), search=plain (every position
#      searched; next is the default), offsets=aligned and wide (the concatenation fetches
#      one texel per output texel), concat=pair (two fetches of offsets a fragment), heads=inline (no head points pass), layout=bands with it
#      (the output in bands of two rows, lines two pixels wide), count=device (the
#      gather reads the count GL packed; no host wait), and gl-roger/cub with --payload index;
#      SRT_GL_INTEROP_STATS=1 with STREAMRT_QUICK_EXIT=0 (the breakdown is printed by the
#      compactor's destructor) prints each GL render's interop breakdown; every image compared
#      with cub's (before the images are deleted);
#   4. unless EXTERNAL= (empty): external memory (VMM, Vulkan) with host fences, each in a
#      process of its own: the interop bench and two renders;
#   5. DIAG=1: streamrt-bench-gl --interop-diagnose (last: a hung child wedges later GL work).
# stdout: a compact summary (bench/gl/gpu_summary.py); everything else in $OUT/gl-results.tgz.
# Without DIAG it takes about 3-5 minutes; every command has a time limit (a hang
# shows as exit 137 in the summary instead of stopping the run).
set -u
B=${BUNDLE:-.gpu-gl}
OUT=${OUT:-gpu-gl-results}
res=$OUT/raw
# Absolute, and not named `here`: the bundle's env.sh (sourced below) sets its own `here`.
gl_dir=$(cd "$(dirname "$0")" && pwd)
rm -rf "$res" && mkdir -p "$res"
tar xzf "$B/bundle.tgz" -C "$B"
source "$B/env.sh"
scripts/fetch-scenes.sh --shared "$B/scenes" >/dev/null
nvidia-smi -L >"$res/device.txt"

for t in test_gl test_viewer_interop; do
  SRT_GL_LARGE=1 timeout -s KILL 150 "$B/bin/$t" --gtest_brief=1 >"$res/$t.log" 2>&1
  echo "$t: exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$res/$t.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$res/$t.log" | head -8
  grep -E '^auto:|registered: works|registered,map=call' "$res/$t.log" | sort -u | head -4
done >"$res/tests.txt" 2>&1

nosweeps=
[ -z "${SWEEPS-1}" ] && nosweeps=--no-sweeps
timeout -s KILL 300 "$B/bin/streamrt-bench-gl" --sizes 1048576 4194304 16777216 \
  --algorithms gl-roger gl-horn gl-horn-blelloch gl-gs-packing gl-jumping-jack gl-rlz \
  gl-binary-tree gl-roger:layout=rows,concat=quarters,heads=points gl-roger:radix=2 \
  gl-roger:search=plain gl-roger:offsets=wide gl-roger:layout=bands,concat=pair,heads=points \
  gl-roger:layout=rows,heads=inline gl-roger:layout=rows,heads=inline,wrap=vertex \
  gl-roger:diag=concat gl-roger:layout=rows,concat=quarters,heads=points,diag=concat \
  --sweep-n 4194304 $nosweeps --json "$res/bench_gl.json" >"$res/bench_gl.txt" 2>&1
echo "streamrt-bench-gl: exit $?" >>"$res/tests.txt"

scene=scenes/examples/conference-room.json
render() {  # name spec [renderer options...]
  local name=$1 spec=$2
  shift 2
  STREAMRT_QUICK_EXIT=0 SRT_GL_INTEROP_STATS=1 timeout -s KILL 90 "$B/bin/streamrt" render "$scene" \
    -o "$res/conf-$name.pfm" --width 1920 --height 1080 --spp 16 --max-depth 8 \
    --compaction "$spec" --stats "$res/stats-$name.json" -v "$@" >"$res/render-$name.txt" 2>&1
  echo "$name|$spec $*|$?" >>"$res/renders.list"
}
render cub cub
render roger gl-roger
render roger-rows gl-roger:layout=rows,concat=quarters,heads=points
render roger-call gl-roger:map=call
render roger-payload-gl gl-roger:payload=gl
render roger-radix2 gl-roger:radix=2
render roger-plain gl-roger:search=plain
render roger-wide gl-roger:offsets=wide
render roger-count gl-roger:indices=texture,count=device
render roger-index gl-roger --payload index
render cub-index cub --payload index

if [ -n "${EXTERNAL-1}" ]; then
  timeout -s KILL 90 "$B/bin/streamrt-bench-gl" --interop-only --interop-external \
    --json "$res/bench_interop_external.json" >"$res/bench_interop_external.txt" 2>&1
  render roger-vmm-fences gl-roger:interop=vmm,sync=fences
  render roger-vulkan-fences gl-roger:interop=vulkan,sync=fences
fi
if [ -n "${DIAG:-}" ]; then
  timeout -s KILL 300 "$B/bin/streamrt-bench-gl" --interop-diagnose --interop-diagnose-seconds 15 >"$res/interop_diagnose.txt" 2>&1
fi

# Compare every image with cub's before anything can delete them (the summary prints this file;
# a missing image reads "missing", so a failed render never passes as identical).
while IFS='|' read -r name _ _; do
  case $name in cub | cub-index) continue ;; esac
  ref=$res/conf-cub.pfm
  [[ $name == *-index ]] && ref=$res/conf-cub-index.pfm
  img=$res/conf-$name.pfm
  if [ ! -s "$img" ] || [ ! -s "$ref" ]; then verdict=missing
  elif cmp -s "$img" "$ref"; then verdict=identical
  else verdict=DIFFERENT; fi
  echo "$name|$verdict"
done <"$res/renders.list" >"$res/images.txt"
python3 "$gl_dir/gpu_summary.py" "$res" | tee "$res/summary.txt" ||
  { echo "gpu_summary.py failed; image comparison:"; cat "$res/images.txt"; }
rm -f "$res"/*.pfm
tar czf "$OUT/gl-results.tgz" -C "$OUT" raw && rm -rf "$res"
