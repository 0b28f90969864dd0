#!/usr/bin/env python3
"""Whole-file bytes of version-2 graph files against the grid's side P.

For each graph: build it once on a 1x1 grid, reblock it to P = 16, 64, 256, 1024, and report the
file's bytes, the ratio to 1x1, and where the bytes go (block directories, neighbours, weights,
index rows, alignment). Target (issue 9): 256x256 <= 1.3x the bytes of 1x1.

  bench/file_sizes.py [--scale 20] [--out bench/results/file-sizes]

Kronecker (undirected, GAPBS's generator parameters) and web-cnr-2000 (directed, the shared
datasets) by default. Uses TG_BIN (default build/release/tiergraph).
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

from common import ROOT, datasets_dir, run, tiergraph_bin, ensure_time_tool

sys.path.insert(0, str(ROOT / "tests" / "python"))
import graphfile  # noqa: E402  (the independent reader: it also checks every block it reads)

SIDES = [1, 16, 64, 256, 1024]


def breakdown(path):
    f = graphfile.GraphFile(path)
    parts = np.zeros(3, dtype=np.int64)
    index = blocks = dcsr = 0
    for grid in ("out", "in"):
        if f"{grid}-index" not in f.sections:
            continue
        rows = f.index(grid)
        parts += rows["part_bytes"].astype(np.int64).sum(axis=0)
        index += f.sections[f"{grid}-index"].bytes
        blocks += f.sections[f"{grid}-blocks"].bytes
        dcsr += int((rows["layout"] == 1).sum())
    return {"directories": int(parts[0]), "neighbours": int(parts[1]), "weights": int(parts[2]),
            "index": index, "padding": int(blocks - parts.sum()), "dcsr_blocks": dcsr}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--work", default=str(ROOT / "bench" / "work" / "sizes"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "file-sizes"))
    args = ap.parse_args()
    ensure_time_tool()
    tg = tiergraph_bin()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    graphs = {}
    kron = work / f"kron{args.scale}-1.tg"
    if not kron.exists():
        run([tg, "-q", "generate", "-g", args.scale, "-s", "--seed", 1, "-o", kron])
    graphs[f"Kronecker-{args.scale} (undirected)"] = kron
    cnr = work / "web-cnr-2000-1.tg"
    if not cnr.exists():
        run([tg, "-q", "convert", datasets_dir() / "web-cnr-2000.txt.xz", "-o", cnr])
    graphs["web-cnr-2000 (directed)"] = cnr

    results = []
    for name, base in graphs.items():
        for p in SIDES:
            path = base if p == 1 else base.with_name(base.name.replace("-1.tg", f"-{p}.tg"))
            if not path.exists():
                run([tg, "-q", "reblock", base, "-o", path, "--blocks", p])
            info = json.loads(run([tg, "-q", "info", path, "--json"])[0].split("\nMAXRSS_KB")[0])
            row = {"graph": name, "asked": p, "side": info["blocks"]["per_side"], "bytes": path.stat().st_size,
                   **breakdown(path)}
            results.append(row)
            print(f"{name:32} P={p:5} side={row['side']:5} {row['bytes']:>13,} bytes", flush=True)

    lines = ["# Graph file v2: bytes against the grid's side", "",
             f"Command: `bench/file_sizes.py --scale {args.scale}` (TG_BIN={tg}).", "",
             "| graph | P asked | P | file bytes | vs 1x1 | directories | neighbours | weights | index | padding | DCSR blocks |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        one = next(x for x in results if x["graph"] == r["graph"] and x["asked"] == 1)["bytes"]
        r["ratio"] = r["bytes"] / one
        lines.append(f"| {r['graph']} | {r['asked']} | {r['side']} | {r['bytes']:,} | {r['ratio']:.3f} | "
                     f"{r['directories']:,} | {r['neighbours']:,} | {r['weights']:,} | {r['index']:,} | "
                     f"{r['padding']:,} | {r['dcsr_blocks']:,} |")
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.out + ".md").write_text(text)
    Path(args.out + ".json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
