#!/usr/bin/env python3
"""Conversion benchmark: a Kronecker scale-22 text edge list (edge factor 16, ~67M lines) to a
graph file. Prints time, throughput and peak memory, and the ratio of peak memory to the output
size (target: under 1.5x plus a fixed buffer). When GAPBS_DIR points to a GAPBS build, its
`converter` turns the same file into a serialized .sg in the same run and the ratio is printed.

    python3 bench/convert.py [--scale 22] [--trials 3] [--threads 2]
"""
import argparse
import os
from pathlib import Path

from common import ROOT, ensure_time_tool, median, run, tiergraph_bin


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--undirected", action="store_true", help="convert with -s (symmetric closure)")
    ap.add_argument("--workdir", default=str(ROOT / "bench" / "work"))
    args = ap.parse_args()
    ensure_time_tool()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    tg = tiergraph_bin()
    el = work / f"kron{args.scale}.el"
    if not el.exists():
        run([tg, "generate", "-g", args.scale, "-o", el, "-t", args.threads])
    size = el.stat().st_size
    lines = (1 << args.scale) * 16
    env = {"OMP_NUM_THREADS": str(args.threads)}
    sym = ["-s"] if args.undirected else []
    tg_times, tg_rss = [], []
    out = work / f"kron{args.scale}-convert-bench.tg"  # not the kernel benchmark's files
    for _ in range(args.trials):
        _, wall, rss = run([tg, "convert", el, "-o", out, "--overwrite", "-t", args.threads] + sym, env=env)
        tg_times.append(wall)
        tg_rss.append(rss)
    out_bytes = out.stat().st_size
    t = median(tg_times)
    print(f"Input: {el} ({size / 1e6:.1f} MB, {lines} edges)")
    print(f"tiergraph convert time: {t:.2f} s (median of {args.trials}), {lines / t / 1e6:.2f} M edges/s, {size / t / 1e6:.1f} MB/s")
    print(f"tiergraph peak memory: {max(tg_rss) / 2**20:.0f} MiB; graph file {out_bytes / 2**20:.0f} MiB; ratio {max(tg_rss) / out_bytes:.2f}x")
    gapbs = os.environ.get("GAPBS_DIR")
    if gapbs:
        conv = Path(gapbs) / "converter"
        g_times, g_rss = [], []
        sg = work / f"kron{args.scale}-convert-bench.sg"
        for _ in range(args.trials):
            _, wall, rss = run([conv, "-f", el, "-b", sg] + sym, env=env)
            g_times.append(wall)
            g_rss.append(rss)
        g = median(g_times)
        print(f"GAPBS converter time: {g:.2f} s (median of {args.trials}); peak memory {max(g_rss) / 2**20:.0f} MiB")
        print(f"Ratio tiergraph/GAPBS (time): {t / g:.2f}")
        print(f"Ratio tiergraph/GAPBS (peak memory): {max(tg_rss) / max(g_rss):.2f}")


if __name__ == "__main__":
    main()
