#!/usr/bin/env python3
"""Tables of the path pool modes from the profile.json files scripts/gpu-tracer-bench.sh writes
(<dir>/<scene>/<configuration>/profile.json): one row per configuration and primitive, with rays/s
from the median render time, the speed-up over the classic loop (`none` under --schedule waves)
and over in-place regeneration (`none` under --schedule regenerate; the faster traversal of
the two when both ran), the stage times, and
whether the image hash equals the scene's first one."""
import json
import pathlib
import sys


def rows(scene_dir):
    out = []
    for cfg in sorted(scene_dir.iterdir()):
        f = cfg / "profile.json"
        if not f.exists():
            continue
        p = json.loads(f.read_text())
        for prim in p["primitives"]:
            rays = sum(b["rays_in"] + b["shadow_rays"] for b in prim["bounces"])
            ms = prim["render_ms"]["median"]
            t = {k: v["median"] for k, v in prim["totals_ms"].items()}
            out.append(dict(config=cfg.name, schedule=p["schedule"], payload=p["payload"],
                            traversal=p["traversal"], name=prim["name"], ms=ms,
                            spread=(prim["render_ms"]["min"], prim["render_ms"]["max"]),
                            grays=rays / ms / 1e6, t=t, hash=prim["image_hash"],
                            compacts=prim["compacts"]))
    return out


def main(root):
    root = pathlib.Path(root)
    for scene_dir in sorted(d for d in root.iterdir() if d.is_dir()):
        rs = rows(scene_dir)
        if not rs:
            continue
        order = {"waves": 0, "waves-persistent": 1, "regen": 2}
        rs.sort(key=lambda r: (order.get(r["config"], 3), r["config"], r["name"] != "none"))
        classic = next((r for r in rs if r["name"] == "none" and r["schedule"] == "waves"
                        and r["traversal"] == "standard"), None)
        # In-place regeneration, once per traversal; the baseline is the faster of them.
        inplaces, seen = [], set()
        for r in rs:
            if r["name"] == "none" and r["schedule"] == "regenerate" and r["traversal"] not in seen:
                seen.add(r["traversal"])
                inplaces.append(r)
        inplace = min(inplaces, key=lambda r: r["ms"]) if inplaces else None
        ref = rs[0]["hash"]
        print(f"\n### {scene_dir.name}\n")
        print("| configuration | primitive | G rays/s | vs none (waves) | vs in-place regen | "
              "render ms (min-max) | trace / shade / shadow / compact / refill / idle ms | "
              "compaction share | image |")
        print("|---|---|---|---|---|---|---|---|---|")
        best = None
        for r in rs:
            if r["schedule"] != "waves" and r["name"] == "none" and r not in inplaces:
                continue  # in-place regeneration: shown once per traversal
            t = r["t"]
            share = 100 * t["compaction"] / r["ms"]
            vs_c = classic["ms"] / r["ms"] if classic else float("nan")
            vs_i = inplace["ms"] / r["ms"] if inplace else float("nan")
            same = "reference" if r is rs[0] else ("identical" if r["hash"] == ref else "DIFFERENT")
            name = "none (classic loop)" if r is classic else (
                "none (in-place regen)" if r in inplaces else r["name"])
            print(f"| {r['config']} | {name} | {r['grays']:.3f} | {vs_c:.2f}x | {vs_i:.2f}x | "
                  f"{r['ms']:.1f} ({r['spread'][0]:.1f}-{r['spread'][1]:.1f}) | "
                  f"{t['trace']:.1f} / {t['shade']:.1f} / {t['shadow']:.1f} / "
                  f"{t['compaction']:.1f} / {t['regenerate']:.1f} / {t.get('idle', 0):.1f} | "
                  f"{share:.1f}% | {same} |")
            if r["compacts"] and (best is None or r["ms"] < best["ms"]):
                best = r
        if best and classic and inplace:
            print(f"\nBest compacting mode: {best['config']} {best['name']}, "
                  f"{best['grays']:.3f} G rays/s, {classic['ms'] / best['ms']:.2f}x the classic "
                  f"loop, {inplace['ms'] / best['ms']:.2f}x in-place regeneration, compaction "
                  f"{100 * best['t']['compaction'] / best['ms']:.1f}% of the render.")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "gpu-results/tracer")
