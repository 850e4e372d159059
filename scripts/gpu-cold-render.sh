#!/usr/bin/env bash
# Runs on the CUDA host over a bundle from scripts/gpu-bundle.sh: what a user gets from one cold
# `streamrt render` (a fresh process each time, default flags unless FLAGS says otherwise), per
# scene, with the wall clock measured outside the process and the stages the --stats file
# reports (scene load, tree build, first pass, render, image write). REPEATS cold runs each;
# the table gives their median. CONFIGS="name:flags;..." compares configurations side by side;
# words of the form NAME=VALUE among a configuration's flags are set in its environment instead
# (e.g. "slowexit:STREAMRT_QUICK_EXIT=0"). Each run also writes an exit trace
# (STREAMRT_EXIT_TRACE, apps/process_exit.h), which splits the time outside the process into
# launch to main(), main() to the outputs, the teardown after them and the kernel's exit.
set -u
cd "$(dirname "$0")/.." || exit 1
source scripts/gpu-bundle-env.sh
# shellcheck source=scripts/cold-render-lib.sh
source scripts/cold-render-lib.sh
STREAMRT=${STREAMRT:-$B/bin/streamrt}
res=$OUT/cold
mkdir -p "$res"
W=${W:-1920} H=${H:-1080} SPP=${SPP:-16} REPEATS=${REPEATS:-3} EXT=${EXT:-png}
scenes=${SCENES:-$default_scenes}
IFS=';' read -ra configs <<<"${CONFIGS:-default:}"
for scene in $scenes; do
  sname=$(basename "$scene" .json)
  for c in "${configs[@]}"; do
    name=${c%%:*}
    flags=${c#*:}
    envs=() args=()
    for w in $flags; do
      if [[ $w =~ ^[A-Z_][A-Z0-9_]*= ]]; then envs+=("$w"); else args+=("$w"); fi
    done
    for r in $(seq 1 "$REPEATS"); do
      trace=$res/$sname-$name-$r.trace
      rm -f "$trace"
      cold_render "$res" "$name" "$scene" "$r" "${envs[@]}" STREAMRT_EXIT_TRACE="$trace" -- \
        "${args[@]}"
    done
  done
done
PYTHONPATH=scripts python3 - "$res" <<'PY' | tee "$res/summary.txt"
import json, os, statistics, sys
from cold_runs import read_runs
res = sys.argv[1]
rows = {}
for scene, name, r, t0, t1, totals in read_runs(res):
    group = rows.setdefault((scene, name), [])  # a configuration that always failed: a row of nan
    if totals is not None:
        group.append((r, t0, t1, totals))
# (column, key in the stats' totals or a derived value, scale)
cols = [("outside s", "outside", 1), ("wall_seconds", "wall_seconds", 1),
        ("gap ms", "gap", 1e3), ("launch>main ms", "launch_main", 1e3),
        ("start ms", "startup_seconds", 1e3), ("dev wait ms", "device_wait_seconds", 1e3),
        ("load ms", "scene_load_seconds", 1e3), ("setup ms", "setup_seconds", 1e3),
        ("kd ms", "accel_build_ms", 1), ("1st pass ms", "first_pass_ms", 1),
        ("render ms", "render_seconds", 1e3), ("readback ms", "image_readback_seconds", 1e3),
        ("enc+write ms", "image_write_seconds", 1e3), ("commit ms", "commit", 1e3),
        ("out>exit ms", "outputs_exit", 1e3),
        ("teardown ms", "teardown", 1e3), ("kernel exit ms", "kernel_exit", 1e3),
        ("Mrays/s", "rays_per_second", 1e-6), ("trace ms", "trace_ms", 1)]
print("gap: outside - wall_seconds; launch>main: exec of the launcher to main(); commit: the")
print("statistics made to every output written, fsync'd and renamed; out>exit: the")
print("outputs renamed to _Exit or main's return; teardown: main's return to the last exit handler")
print("(destructors, CUDA's teardown; 0 on a quick exit); kernel exit: that to the wait's end.")
print(f"{'scene':<16} {'config':<12} " + " ".join(f"{c[0]:>14}" for c in cols))
for (scene, name), runs in rows.items():
    vals = {c[1]: [] for c in cols}
    for r, t0, t1, totals in runs:
        t = dict(totals)
        t["outside"] = t1 - t0
        if "wall_seconds" in t:
            t["gap"] = t["outside"] - t["wall_seconds"]
        try:
            x = json.loads(open(os.path.join(res, f"{scene}-{name}-{r}.trace")).readline())
            end = x.get("atexit_end", x["exit"])
            t.update(launch_main=x["main"] - t0, commit=x["outputs"] - x["stats"],
                     outputs_exit=x["exit"] - x["outputs"],
                     teardown=end - x["exit"], kernel_exit=t1 - end)
        except (OSError, ValueError, KeyError):
            pass  # a build without the exit trace
        for c in cols:
            if c[1] in t:
                vals[c[1]].append(t[c[1]] * c[2])
    med = lambda v: statistics.median(v) if v else float("nan")
    print(f"{scene:<16} {name:<12} " + " ".join(f"{med(vals[c[1]]):14.4g}" for c in cols))
PY
