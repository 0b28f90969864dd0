#!/usr/bin/env python3
"""Block-major against vertex-major passes, both over the mapped store (everything resident).

For each grid size P, one Kronecker graph (undirected, made once by `generate -s` and `reblock`
into bench/work/schedules/) runs every algorithm with `--schedule vertex` and `--schedule block`,
alternated, one process per run (`-n 1`), and reports the median kernel time (`Trial Time`) of
each and the ratio block / vertex. Not a gate (issue 10 asks it reported): in memory the engine's
auto schedule picks vertex-major, and this table says what block-major costs where every block
is resident, which is what a fetching tier pays on top of its fetches.

  bench/schedules.py [--scale 20] [--blocks 1,16,64,256] [--algorithms bfs,sssp,wcc,pr,radii]
                     [--runs 3] [--threads 2] [--out bench/results/schedules]

Uses TG_BIN (default build/release/tiergraph).
"""
import argparse
import json
import platform
from pathlib import Path

from common import ROOT, ensure_time_tool, median, run, tiergraph_bin, values


def make_inputs(tg, work, scale, blocks):
    """One generated graph (with integer weights for SSSP), reblocked to each P."""
    work.mkdir(parents=True, exist_ok=True)
    base = work / f"kron{scale}-w-p1.tg"
    if not base.exists():
        run([tg, "-q", "generate", "-g", scale, "-s", "-k", 16, "--weights", "int", "--blocks", 1, "-o", base])
    files = {}
    for p in blocks:
        f = work / f"kron{scale}-w-p{p}.tg"
        if not f.exists():
            run([tg, "-q", "reblock", base, "--blocks", p, "-o", f])
        files[p] = f
    return files


def kernel_time(tg, graph, algorithm, schedule, threads):
    extra = ["-i", 10] if algorithm == "pr" else []
    if algorithm in ("bfs", "sssp"):  # the others take no source (run refuses -r for them)
        extra += ["-r", 1]
    out, _, _ = run([tg, "run", algorithm, graph, "-n", 1, "-t", threads, "--schedule", schedule, *extra])
    t = values(out, "Trial Time")
    if not t:
        raise RuntimeError(f"no 'Trial Time' in the output of {algorithm} on {graph}:\n{out[-2000:]}")
    return t[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--blocks", default="1,16,64,256")
    ap.add_argument("--algorithms", default="bfs,sssp,wcc,pr,radii")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "schedules"))
    ap.add_argument("--workdir", default=str(ROOT / "bench" / "work" / "schedules"))
    args = ap.parse_args()
    ensure_time_tool()
    tg = tiergraph_bin()
    blocks = [int(p) for p in args.blocks.split(",")]
    files = make_inputs(tg, Path(args.workdir), args.scale, blocks)

    rows = []
    for p in blocks:
        for algorithm in args.algorithms.split(","):
            times = {"vertex": [], "block": []}
            for _ in range(args.runs):  # alternated, so drift hits both alike
                for schedule in ("vertex", "block"):
                    times[schedule].append(kernel_time(tg, files[p], algorithm, schedule, args.threads))
            v, b = median(times["vertex"]), median(times["block"])
            rows.append({"blocks": p, "algorithm": algorithm, "vertex_s": v, "block_s": b, "ratio": b / v,
                         "raw": times})
            print(f"P={p:<4} {algorithm:6} vertex {v:.4f} s  block {b:.4f} s  block/vertex {b / v:.3f}", flush=True)

    command = (f"bench/schedules.py --scale {args.scale} --blocks {args.blocks} --algorithms {args.algorithms} "
               f"--runs {args.runs} --threads {args.threads}")
    lines = [f"# Block-major against vertex-major, mapped store: Kronecker-{args.scale} (undirected, int weights)", "",
             f"Command: `{command}`", "",
             f"Machine: {platform.machine()}, {args.threads} threads; medians of {args.runs} alternated runs, "
             "kernel time (`Trial Time`); BFS and SSSP from vertex 1, PageRank 10 iterations.", "",
             "| P | algorithm | vertex-major s | block-major s | block / vertex |", "|---:|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['blocks']} | {r['algorithm']} | {r['vertex_s']:.4f} | {r['block_s']:.4f} | {r['ratio']:.3f} |")
    out = Path(args.out)
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    out.with_suffix(".json").write_text(json.dumps({"command": command, "rows": rows}, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
