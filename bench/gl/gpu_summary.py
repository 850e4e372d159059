#!/usr/bin/env python3
"""Compact summary of a bench/gl/gpu-run.sh results folder (stdout; short enough for a tail of
12,000 characters): tests, GL passes against the roof, Table I with roof ratios, gl-roger per step
at 4M, the interop section with where its time goes, and the Conference Room renders (interop
share, image against cub's)."""
import filecmp
import json
import os
import sys

res = sys.argv[1]


def load(name):
    try:
        with open(os.path.join(res, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def size(n):
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"


def text(name, tail=0):
    try:
        with open(os.path.join(res, name)) as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    return lines[-tail:] if tail else lines


print("== device:", " ".join(text("device.txt"))[:120])
print("== tests")
for line in text("tests.txt"):
    print("  " + line[:300])

bench = load("bench_gl.json")
if bench is None:
    print("== bench: no bench_gl.json; its last lines:")
    for line in text("bench_gl.txt", 15):
        print("  " + line[:200])
else:
    rows = {}
    for r in bench.get("table", []):
        rows.setdefault(r["algorithm"], {})[r["n"]] = r
    sizes = sorted({r["n"] for r in bench.get("table", [])})
    ops = bench.get("op_ns", {})
    if ops:
        print("== work rates of the fragment stage: " + ", ".join(
            "%s %.4f ns (%.0f G/s)" % (k, v, 1 / v if v > 0 else 0) for k, v in ops.items()))
    # Lines against full-target passes of the same formats (the concatenation draws lines).
    picked = [l for l in bench.get("roof", []) if l["mode"] in ("lines", "gslines") or
              (l["mode"] == "rw" and l["targets"] == 1 and l["format"] in ("R32UI", "RGBA32UI"))]
    if picked:
        print("== roof lines, lines against full-target passes: " + "; ".join(
            "%s %.4f ms %.0f GB/s" % (l["name"], l["ms"], l["gb_per_s"]) for l in picked))
    print("== GL passes | byte roof | x roof | with copies (ms) [x max(bytes, work) roof],"
          " keep ratio 0.6")
    print("  %-30s" % "algorithm" + "".join("%42s" % size(n) for n in sizes))
    for algo, by in rows.items():
        cells = []
        for n in sizes:
            r = by.get(n)
            if r is None:
                cells.append("%42s" % "-")
            elif "gl_ms" in r:
                x = r["gl_ms"] / r["roof_ms"] if r.get("roof_ms") else 0
                w = r["gl_ms"] / r["work_roof_ms"] if r.get("work_roof_ms") else 0
                cells.append("%9.3f |%7.3f |%5.2f |%8.3f [%5.2f]" %
                             (r["gl_ms"], r["roof_ms"], x, r["total_ms"], w))
            else:
                cells.append("%42s" % ("%.3f (d2d %.3f)" % (r["total_ms"], r.get("d2d_copy_ms", 0))))
        print("  %-30s" % algo + "".join(cells))
    print("== Table I: speed-up of gl-roger (GL passes) [ratio of roofs]; paper 1M 7.8/3.7/1.9,"
          " 4M 9.1/3.6/2.0, 16M -/4.8/-")
    for row in bench.get("table1", []):
        parts = []
        for other, label in (("gl-horn", "Horn"), ("gl-horn-blelloch", "Blelloch"),
                             ("gl-gs-packing", "GS")):
            if other in row:
                parts.append("%s %5.2f [%5.2f]" % (label, row[other], row[other + "_roof_ratio"]))
        parts.append("roger/cub %.1f (with copies %.1f)" %
                     (row.get("roger_over_cub", 0), row.get("roger_with_copies_over_cub", 0)))
        print("  %-4s " % size(row["n"]) + "  ".join(parts))
    # The same ratios for gl-roger's variants timed in the table (e.g. radix=8).
    for algo in (a for a in rows if a.startswith("gl-roger:")):
        parts = []
        for n in sizes:
            r = rows[algo].get(n)
            h = rows.get("gl-horn", {}).get(n)
            b = rows.get("gl-horn-blelloch", {}).get(n)
            if r and h and b:
                parts.append("%s Horn %5.2f [%5.2f] Blelloch %5.2f [%5.2f]" %
                             (size(n), h["gl_ms"] / r["gl_ms"], h["roof_ms"] / r["roof_ms"],
                              b["gl_ms"] / r["gl_ms"], b["roof_ms"] / r["roof_ms"]))
        if parts:
            print("  %s: %s" % (algo, "; ".join(parts)))
    def step_order(r):  # the passes' order (the JSON object's keys are sorted), then the rest
        order = []
        for p in r.get("passes", []):
            if p["step"] not in order:
                order.append(p["step"])
        return order + [k for k in r.get("steps", {}) if k not in order]

    def step_sums(r, step):
        ps = [p for p in r.get("passes", []) if p["step"] == step]
        most = max(ps, key=lambda p: p.get("alu", 0) + p.get("bit_ops", 0) + p.get("fetches", 0),
                   default={})
        return (ps, sum(p["roof_ms"] for p in ps), sum(p.get("work_roof_ms", 0) for p in ps), most)

    roger4 = rows.get("gl-roger", {}).get(1 << 22)
    if roger4:  # every step of the default at 4M, with both roofs
        print("== gl-roger at 4M per step: passes, MB read/written, fragments, alu/bit/fetch a"
              " fragment, byte roof, max(bytes, work) roof (bound by), GL (or host) ms; the"
              " driver's static alu/bit/fetch/control where it gives them")
        steps = roger4.get("steps", {})
        for step in step_order(roger4):
            ms = steps.get(step, 0)
            if step.startswith("host: ") and ms == 0:
                continue
            ps, rf, wf, most = step_sums(roger4, step)
            rd = sum(p["read"] for p in ps) / 1e6
            wr = sum(p["written"] for p in ps) / 1e6
            fr = sum(p.get("fragments", 0) for p in ps)
            drv = most.get("driver")
            print("  %-24s %3d %6.2f %6.2f %8d %12s %7.4f %7.4f %-6s %7.4f%s" %
                  (step, len(ps), rd, wr, fr, "%.0f/%.0f/%.0f" % (most.get("alu", 0),
                   most.get("bit_ops", 0), most.get("fetches", 0)), rf, wf,
                   most.get("binding", ""), ms,
                   "  driver %d/%d/%d/%d" % (drv["alu"], drv["bit_ops"], drv["fetches"],
                                             drv["control"]) if drv else ""))
        print("  %-24s %3d byte roof %.4f (x%.2f), max roof %.4f (x%.2f), GL %.4f"
              "  (target <= 1.2 ms, <= 2x roof)" %
              ("GL passes", len(roger4.get("passes", [])), roger4["roof_ms"],
               roger4["gl_ms"] / roger4["roof_ms"], roger4.get("work_roof_ms", 0),
               roger4["gl_ms"] / roger4["work_roof_ms"] if roger4.get("work_roof_ms") else 0,
               roger4["gl_ms"]))
    # diag=concat: the concatenation's draw reduced step by step (gl_concat.h), at 4M; beside
    # each step its fragments and byte roof, and the real concatenation of the same call.
    for algo in (a for a in rows if "diag=concat" in a and (1 << 22) in rows[a]):
        r = rows[algo][1 << 22]
        plain = rows.get(algo.replace(",diag=concat", "").replace(":diag=concat", ""), {})
        plain4 = plain.get(1 << 22, {}).get("steps", {}).get("concatenate", 0)
        # The lines' own roof: the lines' fragments at the rate of the RGBA32UI roof line (lines
        # of 16 texels, one pixel high: their rate is per texel written).
        lr = [l for l in bench.get("roof", []) if l["mode"] in ("lines", "gslines") and
              l["format"] == "RGBA32UI" and l["fragments"] > 0]
        ps, _, _, _ = step_sums(r, "concatenate")
        frags = sum(p.get("fragments", 0) for p in ps if p.get("lines"))
        line_roof = " (RGBA32UI one-pixel lines roof of its %d line fragments: %.4f)" % (
            frags, frags * lr[0]["ms"] / lr[0]["fragments"]) if lr and frags else ""
        print("== %s at 4M: the concatenation decomposed (GL ms | fragments | byte roof);"
              " the same spec without diag: concatenate %.4f%s" % (algo, plain4, line_roof))
        # "diag: nothing" has no pass (two timestamps back to back): first, as it ran.
        order = ["diag: nothing"] + [x for x in step_order(r) if x != "diag: nothing"]
        for step in order:
            if not (step.startswith("diag: ") or step == "concatenate"):
                continue
            ps, rf, _, _ = step_sums(r, step)
            print("  %-58s %8.4f | %8d | %7.4f" % (step, r["steps"].get(step, 0),
                  sum(p.get("fragments", 0) for p in ps), rf))
    variants = [a for a in rows if a.startswith("gl-roger") and (1 << 22) in rows[a]]
    if variants:  # the variants at 4M: GL ms (byte roof, max roof) of each step
        print("== gl-roger variants at 4M: step GL ms (byte roof / max roof); GL passes x roof, x max")
        for algo in variants:
            r = rows[algo][1 << 22]
            parts = []
            for step in step_order(r):
                if step.startswith("host: ") or step in ("readback", "upload") or \
                        step.startswith("payload gather") or step.startswith("diag: "):
                    continue
                ps, rf, wf, _ = step_sums(r, step)
                parts.append("%s %.3f (%.3f/%.3f)" % (step.split(" ")[0], r["steps"].get(step, 0),
                                                      rf, wf))
            print("  %-30s %s; %.3f x%.2f x%.2f" % (algo, ", ".join(parts), r["gl_ms"],
                  r["gl_ms"] / r["roof_ms"] if r.get("roof_ms") else 0,
                  r["gl_ms"] / r["work_roof_ms"] if r.get("work_roof_ms") else 0))
    inter = bench.get("interop", [])
    if inter:
        print("== interop section (%s, CUDA memory): total | GL | interop | gather | share;"
              " host: map unmap copy-in waits, GL read-back" % size(inter[0]["n"]))
        for r in inter:
            if "unavailable" in r:
                print("  %-8s %-38s unavailable: %s" % (r["shape"], r["spec"], r["unavailable"][:120]))
                continue
            if "gl_ms" not in r:
                print("  %-8s %-38s %7.3f" % (r["shape"], r["spec"], r["total_ms"]))
                continue
            st = r.get("steps", {})
            share = 100 * r["transfer_ms"] / r["total_ms"] if r["total_ms"] else 0
            print("  %-8s %-38s %7.3f |%7.3f |%7.3f |%7.3f |%5.1f%%  %.3f %.3f %.3f %.3f, %.3f" %
                  (r["shape"], r["spec"], r["total_ms"], r["gl_ms"], r["transfer_ms"],
                   r["gather_ms"], share, st.get("host: interop map", 0),
                   st.get("host: interop unmap", 0), st.get("host: interop copies in", 0),
                   st.get("host: interop waits", 0), st.get("readback", 0)))
    sweep = [b for b in bench.get("block_sweep", []) if b["algorithm"] == "gl-roger"]
    if sweep:
        print("== gl-roger block sweep at 4M: block GL (roof) " + ", ".join(
            "%d %.3f (%.3f)" % (b["block"], b["gl_ms"], b["roof_ms"]) for b in sweep))
    for v in bench.get("variants", []):
        print("  variant %-44s GL %7.3f roof %7.3f" % (v["spec"], v["gl_ms"], v["roof_ms"]))

print("== Conference Room 1080p 16 spp: render ms (x cub) | compaction ms | interop ms (share)"
      " | image")
cub = load("stats-cub.json")
verdicts = dict(l.split("|", 1) for l in text("images.txt") if "|" in l)
cub_s = cub["totals"]["render_seconds"] if cub else 0
for line in text("renders.list"):
    name, spec, rc = line.split("|")
    s = load(f"stats-{name}.json")
    base = "conf-cub-index.pfm" if name.endswith("-index") else "conf-cub.pfm"
    img, ref = os.path.join(res, f"conf-{name}.pfm"), os.path.join(res, base)
    if name in ("cub", "cub-index"):
        same = "-"
    elif name in verdicts:  # gpu-run.sh compared the images before deleting them
        same = verdicts[name]
    elif os.path.exists(img) and os.path.exists(ref):
        same = "identical" if filecmp.cmp(img, ref, False) else "DIFFERENT"
    else:
        same = "missing"
    if s is None:
        print("  %-20s %-36s exit %s: %s" % (name, spec, rc, " ".join(text(f"render-{name}.txt", 2))[:200]))
        continue
    t = s["totals"]
    comp, xfer = t["compaction_ms"], t["compaction_transfer_ms"]
    print("  %-20s %-36s %8.1f (%4.2fx) | %7.1f | %6.1f (%4.1f%%) | %s" %
          (name, spec, t["render_seconds"] * 1e3, t["render_seconds"] / cub_s if cub_s else 0, comp,
           xfer, 100 * xfer / comp if comp else 0, same))
    for l in text(f"render-{name}.txt"):
        if l.startswith("streamrt: GL compaction,") or "note:" in l:
            # In full for the default; the rest shortened, so
            # the summary fits the 12,000 characters a run's tail shows.
            full = name == "roger"
            print("    " + l[:700 if full else 260])

for name, n in (("bench_interop_external.txt", 30), ("interop_diagnose.txt", 25)):
    lines = text(name, n)
    if lines:
        print(f"== {name} (last {n} lines)")
        for l in lines:
            print("  " + l[:200])
