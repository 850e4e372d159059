#!/usr/bin/env bash
# Runs on the CUDA host over a bundle from scripts/gpu-bundle.sh: what a user gets from one cold
# `streamrt render` (a fresh process each time, default flags unless FLAGS says otherwise), per
# scene, with the wall clock measured outside the process and the stages the --stats file
# reports (scene load, tree build, first pass, render, image write). REPEATS cold runs each;
# the table gives their median. CONFIGS="name:flags;..." compares configurations side by side.
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-bundle-env.sh
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
    for r in $(seq 1 "$REPEATS"); do
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086
      "${STREAMRT:-$B/bin/streamrt}" render "$scene" -o "$res/$sname-$name.$EXT" --width "$W" \
        --height "$H" --spp "$SPP" --stats "$res/$sname-$name-$r.json" -q $flags \
        2>"$res/$sname-$name-$r.err"
      rc=$?
      t1=$(date +%s.%N)
      echo "$sname $name $r $rc $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}')" >>"$res/walls.txt"
    done
  done
done
python3 - "$res" <<'PY' | tee "$res/summary.txt"
import json, os, statistics, sys
res = sys.argv[1]
rows = {}
for line in open(os.path.join(res, "walls.txt")):
    scene, name, r, rc, wall = line.split()
    rows.setdefault((scene, name), []).append((int(r), int(rc), float(wall)))
keys = ["scene_load_seconds", "accel_build_ms", "first_pass_ms", "render_seconds",
        "image_write_seconds", "wall_seconds", "rays_per_second", "trace_ms", "shadow_ms"]
print(f"{'scene':<16} {'config':<14} {'process s':>9} " + " ".join(f"{k[:14]:>14}" for k in keys))
for (scene, name), runs in rows.items():
    vals = {k: [] for k in keys}
    for r, rc, wall in runs:
        if rc != 0:
            print(f"{scene} {name} run {r}: exit {rc}: " +
                  open(os.path.join(res, f"{scene}-{name}-{r}.err")).read().strip()[:300])
            continue
        t = json.load(open(os.path.join(res, f"{scene}-{name}-{r}.json")))["totals"]
        for k in keys:
            if k in t:
                vals[k].append(t[k])
    med = lambda v: statistics.median(v) if v else float("nan")
    wall = med([w for _, rc, w in runs if rc == 0])
    print(f"{scene:<16} {name:<14} {wall:9.3f} " + " ".join(f"{med(vals[k]):14.4g}" for k in keys))
PY
