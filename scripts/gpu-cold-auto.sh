#!/usr/bin/env bash
# Cold `auto` against every fixed primitive, on the CUDA host: one fresh `streamrt render` process
# per run (1080p, 16 spp unless W/H/SPP say otherwise), for each scene
#   - every compacting CUDA primitive `auto` chooses among (from `streamrt list`), fixed;
#   - auto with a warm calibration cache (XDG_CACHE_HOME filled by one untimed auto render of
#     the same scene and options first);
#   - auto with an empty cache (a new empty XDG_CACHE_HOME for every run).
# REPEATS runs each (median). Prints render seconds (the stats' render_seconds: the sample loop
# until the film holds every sample) and auto over the best fixed primitive; targets: warm <= 1.03,
# empty <= 1.08. Runs from a bundle (scripts/gpu-bundle.sh) like gpu-cold-render.sh, or with
# STREAMRT=path/to/streamrt from a build tree.
#   [STREAMRT=build/apps/streamrt] [SCENES="a.json cornell"] [REPEATS=3] [FLAGS=...] \
#       scripts/gpu-cold-auto.sh
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-gpu-results}
res=$OUT/cold-auto
rm -rf "$res" && mkdir -p "$res"
if [ -z "${STREAMRT:-}" ]; then
  # shellcheck source=scripts/gpu-bundle-env.sh
  source scripts/gpu-bundle-env.sh
  STREAMRT=$B/bin/streamrt
fi
# shellcheck source=scripts/cold-render-lib.sh
source scripts/cold-render-lib.sh
W=${W:-1920} H=${H:-1080} SPP=${SPP:-16} REPEATS=${REPEATS:-3}
scenes=${SCENES:-scenes/examples/conference-room.json cornell bench/tracer/scenes/sponza-lit.json bench/tracer/scenes/teapot-env.json}
# The primitives auto runs on CUDA memory: compacting, on the CUDA device (not the GL family).
prims=${PRIMS:-$("$STREAMRT" list | awk '/^Compaction/{on=1; next} /^$/{on=0} on && $2=="cuda" && $3!="-" {print $1}')}
[ -n "$prims" ] || { echo "gpu-cold-auto: no CUDA primitive listed" >&2; exit 1; }
echo "primitives: $prims" | tee "$res/primitives.txt"

# run NAME SCENE CACHE_DIR COMPACTION REPEAT: one cold process with that calibration cache.
run() {
  # shellcheck disable=SC2086
  cold_render "$res" "$1" "$2" "$5" XDG_CACHE_HOME="$3" -- --compaction "$4" ${FLAGS:-}
}

for scene in $scenes; do
  fixedCache=$(mktemp -d)  # fixed primitives never read the cache; an empty one all the same
  for r in $(seq 1 "$REPEATS"); do
    # Interleaved, so drift (clocks, temperature) spreads over every configuration alike.
    for p in $prims; do run "$p" "$scene" "$fixedCache" "$p" "$r"; done
    warm=$(mktemp -d)
    # shellcheck disable=SC2086
    XDG_CACHE_HOME=$warm "$STREAMRT" render "$scene" -o "$res/calibrate.png" --width "$W" \
      --height "$H" --spp "$SPP" --compaction auto -q ${FLAGS:-} 2>/dev/null
    run auto-warm "$scene" "$warm" auto "$r"
    empty=$(mktemp -d)
    run auto-empty "$scene" "$empty" auto "$r"
    rm -rf "$warm" "$empty"
  done
  rm -rf "$fixedCache"
done

PYTHONPATH=scripts python3 - "$res" <<'PY' | tee "$res/summary.txt"
import statistics, sys
from cold_runs import read_runs
runs = {}
for scene, name, r, t0, t1, t in read_runs(sys.argv[1]):
    if t is not None:
        runs.setdefault(scene, {}).setdefault(name, []).append((t["render_seconds"], t1 - t0))
ok = True
print(f"{'scene':<18} {'config':<22} {'render s':>9} {'process s':>9} {'vs best':>8}")
for scene, configs in runs.items():
    med = {n: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
           for n, v in configs.items()}
    fixed = {n: m for n, m in med.items() if not n.startswith("auto")}
    if not fixed:
        continue
    best_name = min(fixed, key=lambda n: fixed[n][0])
    best = fixed[best_name][0]
    for n, (render, wall) in sorted(med.items(), key=lambda kv: kv[1][0]):
        tag = " (best fixed)" if n == best_name else ""
        print(f"{scene:<18} {n + tag:<22} {render:9.4f} {wall:9.3f} {render / best:8.3f}")
    for n, limit in (("auto-warm", 1.03), ("auto-empty", 1.08)):
        if n in med:
            ratio = med[n][0] / best
            verdict = "met" if ratio <= limit else "MISSED"
            ok = ok and ratio <= limit
            print(f"{scene:<18} {n} / {best_name}: {ratio:.3f} (target <= {limit}: {verdict})")
    print()
print("all targets met" if ok else "some targets missed")
PY
