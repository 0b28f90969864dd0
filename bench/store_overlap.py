#!/usr/bin/env python3
"""How much fetching the copying block store hides behind computing, against its depth.

PageRank (pull, every block each iteration) on a Kronecker graph with a P x P grid, first from
the mapped store block-major (no fetching) to measure the compute per block, then through the
copying store with an injected latency per request equal to that compute time, at depths 1, 2,
4, 8 (pool: depth + 2 * threads buffers; one worker thread by default, see --threads). Reports per depth the median over trials of the kernel
time, the summed worker wait, the summed request time and overlap = 1 - wait / request time.
Target (issue 10): overlap >= 0.7 at depth 4. Another row repeats depth 4 with requests
completing in reverse order.

  bench/store_overlap.py [--scale 18] [--blocks 16] [--trials 3] [--out bench/results/store-overlap]

Uses TG_BIN (default build/release/tiergraph).
"""
import argparse
import json
import os
import statistics
from pathlib import Path

from common import ROOT, ensure_time_tool, run, tiergraph_bin


def pagerank(tg, graph, iterations, threads, options):
    out, _, _ = run([tg, "-q", "run", "pr", graph, "-i", iterations, "-t", threads, "--json", *options])
    report = json.loads(out[out.index("{"):out.rindex("}") + 1])
    passes = report["trials"][0]["iterations"]
    return {
        "seconds": sum(p["seconds"] for p in passes),
        "blocks": sum(p["blocks_read"] for p in passes),
        "wait": sum(p["wait_seconds"] for p in passes),
        "requests": sum(p["request_seconds"] for p in passes),
        "threads": report["threads"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--blocks", type=int, default=16)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--trials", type=int, default=3)
    # One worker by default: the I/O thread hashes and checks every byte it fetches, about the
    # work PageRank does per edge, so on a 2-core machine it needs the other core to itself.
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", default=str(ROOT / "bench" / "work" / "store"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "store-overlap"))
    args = ap.parse_args()
    ensure_time_tool()
    tg = tiergraph_bin()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    graph = work / f"kron{args.scale}-p{args.blocks}.tg"
    if not graph.exists():
        run([tg, "-q", "generate", "-g", args.scale, "-s", "--seed", 1, "--blocks", args.blocks, "-o", graph])

    # Compute per block, per worker: the block-major pass's time spread over its blocks.
    base = [pagerank(tg, graph, args.iterations, args.threads, ["--schedule", "block"]) for _ in range(args.trials)]
    seconds = statistics.median(b["seconds"] for b in base)
    threads = base[0]["threads"]
    per_block = seconds * threads / base[0]["blocks"]
    print(f"mapped, block-major: {seconds:.4f} s for {base[0]['blocks']} blocks on {threads} threads: "
          f"{per_block * 1e3:.3f} ms of compute per block and worker")

    rows = []
    for depth, order in [(1, "in-order"), (2, "in-order"), (4, "in-order"), (8, "in-order"), (4, "reverse")]:
        trials = [pagerank(tg, graph, args.iterations, args.threads,
                           ["--store", "copying", "--store-depth", depth, "--store-buffers", depth + 2 * threads,
                            "--store-delay", f"{per_block:.6f}", "--store-order", order])
                  for _ in range(args.trials)]
        trials.sort(key=lambda t: t["seconds"])
        mid = trials[len(trials) // 2]
        overlap = 1 - mid["wait"] / mid["requests"] if mid["requests"] > 0 else 1.0
        rows.append({"depth": depth, "order": order, "seconds": mid["seconds"], "wait_seconds": mid["wait"],
                     "request_seconds": mid["requests"], "overlap": overlap,
                     "slowdown": mid["seconds"] / seconds})
        print(f"depth {depth} {order}: {mid['seconds']:.4f} s, wait {mid['wait']:.4f} s, "
              f"requests {mid['requests']:.4f} s, overlap {overlap:.3f}")

    command = (f"bench/store_overlap.py --scale {args.scale} --blocks {args.blocks} "
               f"--iterations {args.iterations} --trials {args.trials} --threads {args.threads}")
    lines = [f"# Copying store overlap: PageRank, Kronecker-{args.scale} (undirected), {args.blocks}x{args.blocks} "
             f"grid, {args.iterations} iterations, {threads} threads", "",
             f"Command: `{command}`", "",
             f"Mapped store, block-major: {seconds:.4f} s ({per_block * 1e3:.3f} ms of compute per block and "
             f"worker); injected delay per request = that compute time. Medians of {args.trials} trials.", "",
             "| depth | completion | kernel s | x mapped | worker wait s | request s | overlap |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['depth']} | {r['order']} | {r['seconds']:.4f} | {r['slowdown']:.2f} | "
                     f"{r['wait_seconds']:.4f} | {r['request_seconds']:.4f} | {r['overlap']:.3f} |")
    lines += ["", "overlap = 1 - (worker wait) / (summed request time); target at depth 4: >= 0.7."]
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    Path(args.out + ".json").write_text(json.dumps({"command": command, "mapped_seconds": seconds,
                                                    "compute_per_block": per_block, "threads": threads,
                                                    "rows": rows}, indent=2) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
