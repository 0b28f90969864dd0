#!/usr/bin/env python3
"""Converter against converter: two tiergraph builds (OLD_BIN, NEW_BIN) convert the same edge list,
alternated old, new, old, new, ..., one process each; medians of wall time and peak RSS, and the
peak as a multiple of the file each wrote.

    OLD_BIN=... NEW_BIN=build/release/tiergraph bench/compare_convert.py [--scale 22] [--runs 3]
        [--out bench/results/convert-FILE]

The input is a Kronecker edge list (GAPBS's generator parameters, edge factor 16) written once by
NEW_BIN's `generate` into bench/work/convert/; both builds run `convert EDGES -o OUT -s` on it.
"""
import argparse
import json
import os
import sys
from pathlib import Path

from common import ROOT, ensure_time_tool, median, run


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "convert-compare"))
    args = ap.parse_args()
    ensure_time_tool()
    bins = {side: os.environ.get(f"{side.upper()}_BIN") for side in ("old", "new")}
    if not all(bins.values()):
        sys.exit("set OLD_BIN and NEW_BIN")
    work = ROOT / "bench" / "work" / "convert"
    work.mkdir(parents=True, exist_ok=True)
    edges = work / f"kron{args.scale}.el"
    if not edges.exists():
        run([bins["new"], "-q", "generate", "-g", args.scale, "-o", edges])
    env = {"OMP_NUM_THREADS": str(args.threads)}
    runs = {"old": [], "new": []}
    for _ in range(args.runs):
        for side in ("old", "new"):
            out = work / f"{side}.tg"
            _, wall, rss = run([bins[side], "-q", "convert", edges, "-o", out, "-s", "--overwrite", "-t", args.threads],
                               env=env)
            runs[side].append({"seconds": wall, "peak_rss": rss, "file_bytes": out.stat().st_size})
            print(f"{side}: {wall:.2f} s, peak {rss / 2**20:.0f} MiB, file {out.stat().st_size / 2**20:.0f} MiB", flush=True)
    rows = {}
    for side in ("old", "new"):
        t = median([r["seconds"] for r in runs[side]])
        rss = median([r["peak_rss"] for r in runs[side]])
        size = runs[side][-1]["file_bytes"]
        rows[side] = {"seconds": t, "peak_rss_mib": rss / 2**20, "file_mib": size / 2**20, "peak_over_file": rss / size}
    lines = [f"# Converter comparison: Kronecker-{args.scale} edge list, {args.runs} alternated runs, {args.threads} threads",
             "", f"Command: `OLD_BIN={bins['old']} NEW_BIN={bins['new']} bench/compare_convert.py --scale {args.scale} "
             f"--runs {args.runs}`", "",
             "| build | median s | peak RSS MiB | file MiB | peak / file |", "|---|---:|---:|---:|---:|"]
    for side, r in rows.items():
        lines.append(f"| {side} | {r['seconds']:.2f} | {r['peak_rss_mib']:.0f} | {r['file_mib']:.0f} | {r['peak_over_file']:.2f} |")
    lines += ["", f"Time ratio new/old: {rows['new']['seconds'] / rows['old']['seconds']:.3f}; "
              f"peak ratio new/old: {rows['new']['peak_rss_mib'] / rows['old']['peak_rss_mib']:.3f}"]
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.out + ".md").write_text(text)
    Path(args.out + ".json").write_text(json.dumps({"bins": bins, "runs": runs, "medians": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
