#!/usr/bin/env bash
# The OpenGL compaction's run on the CUDA host, from the repository root, over a bundle made here
# by `scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90 && scripts/gpu-bundle.sh .gpu-gl`:
#   0. streamrt-bench-gl --interop-diagnose: every interop x sync x payload, each in a child
#      process with a time limit, step by step (interop_diagnose.txt; bench/gl/RESULTS.md says
#      how to read it);
#   1. test_gl (label gl; SRT_GL_LARGE=1 adds millions of elements) and test_viewer_interop, then
#      each external-memory interop test in a process of its own (SRT_GL_TEST_EXTERNAL=1);
#   2. streamrt-bench-gl's interop section (the tracer's two stream shapes through every interop
#      and payload side, beside cub);
#   3. the Conference Room at 1920x1080, 16 spp, depth 8, with cub and with gl-roger under each
#      interop and payload option, --stats and -v, every image compared with cub's;
#   4. the whole streamrt-bench-gl (roof, Table I, sweeps), unless FULL= (empty).
# Results go to $OUT (default gpu-gl-results) as they are made, then $OUT/gl-results.tgz.
set -u
B=${BUNDLE:-.gpu-gl}
OUT=${OUT:-gpu-gl-results}
res=$OUT/raw
rm -rf "$res" && mkdir -p "$res"
tar xzf "$B/bundle.tgz" -C "$B"
source "$B/env.sh"
scripts/fetch-scenes.sh --shared "$B/scenes" >/dev/null
nvidia-smi -L | tee "$res/device.txt"
echo "Vulkan driver: ${VK_DRIVER_FILES:-none set}; loader: $(ls "$B"/lib/libvulkan.so.1 2>/dev/null)"

# Every command has a time limit: a hang shows as exit 137 instead of stopping the run.
timeout -s KILL 600 "$B/bin/streamrt-bench-gl" --interop-diagnose 2>&1 | tee "$res/interop_diagnose.txt"

for t in test_gl test_viewer_interop; do
  SRT_GL_LARGE=1 timeout -s KILL 300 "$B/bin/$t" --gtest_brief=1 >"$res/$t.log" 2>&1
  echo "$t: exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$res/$t.log" | tr '\n' ' ')"
  grep -E 'unavailable here|: interop|: works|^auto:|note:' "$res/$t.log" | sort -u | head -40
done | tee "$res/tests.txt"
for spec in gl_roger_interop_vulkan gl_roger_interop_vulkan_payload_gl \
    gl_roger_interop_vulkan_sync_fences gl_roger_interop_vmm gl_roger_interop_vmm_sync_fences; do
  SRT_GL_TEST_EXTERNAL=1 timeout -s KILL 60 "$B/bin/test_gl" --gtest_brief=1 \
    --gtest_filter="Cuda/GlCudaInterop.MatchesTheReference/$spec" >"$res/test_gl_$spec.log" 2>&1
  echo "test_gl $spec (external memory): exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |exception|Failure' \
    "$res/test_gl_$spec.log" | head -3 | tr '\n' ' ')"
done | tee -a "$res/tests.txt"

timeout -s KILL 300 "$B/bin/streamrt-bench-gl" --interop-only --json "$res/bench_interop.json" 2>&1 |
  tee "$res/bench_interop.txt"

scene=scenes/examples/conference-room.json
render() {  # name spec [renderer options...]
  local name=$1 spec=$2
  shift 2
  timeout -s KILL 300 "$B/bin/streamrt" render "$scene" -o "$res/conf-$name.pfm" --width 1920 --height 1080 --spp 16 \
    --max-depth 8 --compaction "$spec" --stats "$res/stats-$name.json" -v "$@" \
    >"$res/render-$name.txt" 2>&1
  local rc=$? same=-
  [ "$name" != cub ] && [ -f "$res/conf-cub.pfm" ] &&
    { cmp -s "$res/conf-cub.pfm" "$res/conf-$name.pfm" && same=identical || same=DIFFERENT; }
  python3 - "$res" "$name" "$spec $*" "$rc" "$same" 2>/dev/null <<'PY' || echo "$name: exit $rc: $(tail -2 "$res/render-$name.txt")"
import json, os, sys
res, name, spec, rc, same = sys.argv[1:]
s = json.load(open(f"{res}/stats-{name}.json")); t = s["totals"]
cub = f"{res}/stats-cub.json"
base = json.load(open(cub))["totals"]["render_seconds"] if os.path.exists(cub) else 0
ratio = t["render_seconds"] / base if base else 0
comp, xfer = t["compaction_ms"], t["compaction_transfer_ms"]
print(f"{spec:>50} rc {rc} render {t['render_seconds']*1e3:8.1f} ms ({ratio:4.2f}x cub) "
      f"compaction {comp:8.1f} ms, interop {xfer:7.1f} ms ({100*xfer/max(comp,1e-9):4.1f}%) "
      f"trace {t['trace_ms']:.1f} shade {t['shade_ms']:.1f} shadow {t['shadow_ms']:.1f} | "
      f"vs cub: {same}\n{'':>50} {s.get('compaction_choice', '')}")
PY
}
{
  render cub cub
  render roger gl-roger
  render roger-payload-gl gl-roger:payload=gl
  render roger-fences gl-roger:sync=fences
  render roger-vmm gl-roger:interop=vmm
  render roger-registered gl-roger:interop=registered
  render roger-registered-payload-gl gl-roger:interop=registered,payload=gl
  render roger-host gl-roger:interop=host
  render roger-vulkan gl-roger:interop=vulkan
  render roger-index gl-roger --payload index
  render cub-index cub --payload index
  render roger-every3 gl-roger --compact-every 3
} | tee "$res/renders.txt"

if [ -n "${FULL-1}" ]; then
  timeout -s KILL 900 "$B/bin/streamrt-bench-gl" --json "$res/bench_gl.json" >"$res/bench_gl.txt" 2>&1
  echo "streamrt-bench-gl: exit $?"
  sed -n '/== times/,/== Table I/p' "$res/bench_gl.txt"
fi
rm -f "$res"/*.pfm
tar czf "$OUT/gl-results.tgz" -C "$OUT" raw && rm -rf "$res"
