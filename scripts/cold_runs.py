"""The runs that scripts/cold-render-lib.sh recorded, for the cold-render scripts' summaries."""
import json
import os


def read_runs(res):
    """Yields (scene, name, repeat, t0, t1, totals) for each run in res/runs.txt: t0 and t1 the
    wall clock around the process, totals its statistics' "totals", or None for a run that
    failed, whose exit status and start of stderr are printed first."""
    for line in open(os.path.join(res, "runs.txt")):
        scene, name, r, rc, t0, t1 = line.split()
        base = os.path.join(res, f"{scene}-{name}-{r}")
        if int(rc) != 0:
            err = open(base + ".err").read().strip()[:300]
            print(f"{scene} {name} run {r}: exit {rc}: {err}")
        totals = json.load(open(base + ".json"))["totals"] if int(rc) == 0 else None
        yield scene, name, int(r), float(t0), float(t1), totals
