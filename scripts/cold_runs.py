"""The runs that scripts/cold-render-lib.sh recorded, for the cold-render scripts' summaries."""
import json
import os


def read_runs(res):
    """Yields (scene, name, repeat, t0, t1, totals) for each run in res/runs.txt that exited 0:
    t0 and t1 the wall clock around the process, totals its statistics' "totals". Prints the
    exit status and the start of stderr of each run that failed."""
    for line in open(os.path.join(res, "runs.txt")):
        scene, name, r, rc, t0, t1 = line.split()
        base = os.path.join(res, f"{scene}-{name}-{r}")
        if int(rc) != 0:
            err = open(base + ".err").read().strip()[:300]
            print(f"{scene} {name} run {r}: exit {rc}: {err}")
            continue
        totals = json.load(open(base + ".json"))["totals"]
        yield scene, name, int(r), float(t0), float(t1), totals
