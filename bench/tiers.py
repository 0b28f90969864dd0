#!/usr/bin/env python3
"""Memory tiers, in the shape of the Fargraph+ paper's experiments, side by side in one run.

  E1  kernel time against the far ratio (0 .. 0.9) for BFS, WCC and PageRank, on each far tier:
      file (O_DIRECT through io_uring), numa (node-bound memory read in place), rank (a far-memory
      MPI rank on this machine, its shared window read in place) and rank-copy (the same rank read
      with MPI_Rget into buffers, `--far-rank-copy`, `--mca osc sm`: what a far rank on another
      machine does, its copies made by this CPU where an RDMA NIC would make them); the all-local
      run (far ratio 0, no budget) is the baseline every ratio is divided by;
  E2  the file tier's chunk size, 64 KiB .. 16 MiB (all blocks far, PageRank): the "smile";
  E3  the prefetch pipeline: depth 1 (a request at a time) against the planner's depth 4;
  E4  threads 1 .. all cores at far ratio 0.7 (every tier) against all-local at as many;
  E5  the kernel-paging baseline (Fastswap's comparison in the paper): the file tier under a budget
      against `--far paging` inside a cgroup v1 memory limit of the same budget, cold page cache;
  E6  GridGraph at the same budget: its own budget argument (whole GiB, the smallest it takes) and
      the same cgroup v1 limit for both, cold page cache for both, the same threads (all cores,
      GridGraph's fixed choice). Needs GRIDGRAPH_BIN (the directory of GridGraph's bfs, wcc and
      pagerank, built by you beside the project) and GRIDGRAPH_GRID (the same graph preprocessed
      by its `preprocess`, P x P partitions); skipped without them.

Every point is the median of --trials trials in one process (BFS: a different seeded source per
trial); the configurations run in turn, so all share the machine's state. Prints tables and
writes <out>.md, <out>.json and <out>-e1.png / <out>-e2.png (matplotlib, if installed).

  bench/tiers.py [--graph GRAPH.tg | --scale 22] [--blocks 16] [--trials 3] [--out bench/results/tiers]

The graph defaults to a Kronecker graph of 2^scale vertices (undirected, P x P blocks), generated
under bench/work/tiers/. Uses TG_BIN (default build/release/tiergraph) and mpirun for the rank tier.
"""
import argparse
import json
import os
import shutil
import statistics
from pathlib import Path

from common import ROOT, ensure_time_tool, run, tiergraph_bin

RATIOS = [0.0, 0.3, 0.5, 0.7, 0.9]
ALGORITHMS = ["bfs", "wcc", "pr"]
TIERS = ["file", "numa", "rank", "rank-copy"]


def tier_options(tier):
    """The run options of a far tier's name in these tables."""
    return ["--far", "rank", "--far-rank-copy"] if tier == "rank-copy" else ["--far", tier]
CHUNKS = ["64K", "256K", "1M", "4M", "16M"]


def kernel(tg, algorithm, graph, trials, options, mpi=False):
    cmd = [tg, "-q", "run", algorithm, graph, "-n", trials, "--json", *options]
    if algorithm == "pr":
        cmd += ["-i", "5"]
    if mpi:
        # --bind-to none: mpirun otherwise binds each rank to one core, and rank 0's threads share it.
        cmd = [shutil.which("mpirun"), "--allow-run-as-root", "-np", "2", "--bind-to", "none", "--mca", "osc", "sm", *cmd]
    out, _, _ = run(cmd)
    report = json.loads(out[out.index("{"):out.rindex("}") + 1])
    seconds = statistics.median(t["seconds"] for t in report["trials"])
    far = report.get("tiers", [None, None])[1] if report.get("tiers") else report.get("store")
    return {"seconds": seconds, "peak_rss": report["peak_rss_bytes"], "plan": report.get("plan"),
            "far": far, "threads": report["threads"]}


TURNING = 1.10  # the turning point: the first far ratio costing more than 10% over all-local


def turning_point(points):
    """The smallest far ratio whose slowdown exceeds TURNING, or None when none does."""
    over = [p["ratio"] for p in sorted(points, key=lambda p: p["ratio"]) if p["slowdown"] > TURNING]
    return over[0] if over else None


def e1(tg, graph, trials, threads):
    rows = []
    for algorithm in ALGORITHMS:
        base = kernel(tg, algorithm, graph, trials, ["-t", threads])
        row = {"algorithm": algorithm, "local_seconds": base["seconds"], "points": []}
        for tier in TIERS:
            for ratio in RATIOS:
                r = kernel(tg, algorithm, graph, trials, ["-t", threads, "--far-ratio", ratio, *tier_options(tier)],
                           mpi=tier.startswith("rank"))
                row["points"].append({"tier": tier, "ratio": ratio, "seconds": r["seconds"],
                                      "slowdown": r["seconds"] / base["seconds"],
                                      "far_ratio": r["plan"]["far_ratio"], "peak_rss": r["peak_rss"],
                                      "fetched": r["far"]["bytes_fetched"] if r["far"] else 0})
                print(f"E1 {algorithm} {tier} far {ratio}: {r['seconds']:.3f} s = "
                      f"{r['seconds'] / base['seconds']:.2f}x all-local ({base['seconds']:.3f} s)", flush=True)
        rows.append(row)
    return rows


def e2(tg, graph, trials, threads):
    rows = []
    for chunk in CHUNKS:
        r = kernel(tg, "pr", graph, trials, ["-t", threads, "--store", "file", "--store-buffer-bytes", chunk,
                                            "--store-buffers", "8"])
        seconds = r["seconds"]
        rows.append({"chunk": chunk, "seconds": seconds, "requests": r["far"]["requests"],
                     "bytes": r["far"]["bytes_fetched"], "overlap": r["far"]["overlap"]})
        print(f"E2 chunk {chunk}: {seconds:.3f} s, {r['far']['requests']} requests", flush=True)
    return rows


def e3(tg, graph, trials, threads):
    rows = []
    for depth in (1, 4):
        for algorithm in ("bfs", "pr"):
            r = kernel(tg, algorithm, graph, trials, ["-t", threads, "--store", "file", "--store-buffer-bytes", "4M",
                                                      "--store-depth", str(depth), "--store-buffers", str(depth + 4)])
            rows.append({"algorithm": algorithm, "depth": depth, "seconds": r["seconds"], "overlap": r["far"]["overlap"]})
            print(f"E3 {algorithm} depth {depth}: {r['seconds']:.3f} s overlap {r['far']['overlap']:.2f}", flush=True)
    return rows


def e4(tg, graph, trials, planned):
    rows = []
    for threads in range(1, (os.cpu_count() or 1) + 1):
        for algorithm in ("bfs", "pr"):
            local = kernel(tg, algorithm, graph, trials, ["-t", threads])
            for tier in TIERS:
                r = kernel(tg, algorithm, graph, trials, ["--far-ratio", "0.7", *tier_options(tier), "-t", threads],
                           mpi=tier.startswith("rank"))
                rows.append({"algorithm": algorithm, "tier": tier, "threads": threads, "seconds": r["seconds"],
                             "local_seconds": local["seconds"], "planned": str(threads) == str(planned)})
                print(f"E4 {algorithm} {tier} {threads} threads: {r['seconds']:.3f} s "
                      f"({r['seconds'] / local['seconds']:.2f}x all-local)", flush=True)
    return rows


CGROUP = Path("/sys/fs/cgroup/memory/tiergraph-bench")


def in_cgroup(cmd, limit):
    """cmd inside a cgroup v1 memory limit, with a cold page cache (root only)."""
    CGROUP.mkdir(exist_ok=True)
    (CGROUP / "memory.limit_in_bytes").write_text(str(limit))
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("3")
    return ["sh", "-c", f'echo $$ > {CGROUP}/cgroup.procs; exec "$@"', "sh", *map(str, cmd)]


def e5(tg, graph, trials, threads):
    """The kernel-paging baseline at the budgets of far ratios 0.5 and 0.7: the file tier with
    --memory-budget B against --far paging inside a cgroup v1 limit of B + the runtime allowance,
    each from a cold page cache."""
    if os.geteuid() != 0 or not CGROUP.parent.is_dir():
        print("E5 skipped: needs root and cgroup v1's memory controller")
        return []
    rows = []
    for algorithm in ("bfs", "pr"):
        for ratio in ("0.5", "0.7"):
            out, _, _ = run([tg, "-q", "plan", algorithm, graph, "--far-ratio", ratio, "-t", threads, "--json"])
            plan = json.loads(out[out.index("{"):out.rindex("}") + 1])
            budget = plan["minimum_bytes"] + plan["local_bytes"]
            limit = budget + plan["overhead_bytes"]
            options = ["-t", threads, "--memory-budget", budget]
            os.sync()
            Path("/proc/sys/vm/drop_caches").write_text("3")
            tier = kernel(tg, algorithm, graph, trials, options)
            cmd = [tg, "-q", "run", algorithm, graph, "-n", "1", "--json", *options, "--far", "paging"]
            if algorithm == "pr":
                cmd += ["-i", "5"]
            text, _, _ = run(in_cgroup(cmd, limit))
            paging = json.loads(text[text.index("{"):text.rindex("}") + 1])
            seconds = paging["trials"][0]["seconds"]
            rows.append({"algorithm": algorithm, "ratio": ratio, "budget": budget, "file_seconds": tier["seconds"],
                         "paging_seconds": seconds, "speedup": seconds / tier["seconds"]})
            print(f"E5 {algorithm} budget {budget >> 20} MiB (far {ratio}): file {tier['seconds']:.3f} s, "
                  f"paging {seconds:.3f} s: {seconds / tier['seconds']:.1f}x", flush=True)
    return rows


def gridgraph_seconds(text, algorithm):
    """The time GridGraph prints for its kernel: BFS and WCC their iterations; PageRank its
    iterations less the degree pass it makes first (tiergraph reads degrees from its file)."""
    import re
    if algorithm == "bfs":
        return float(re.search(r"discovered \d+ vertices from \d+ in ([0-9.]+) seconds", text).group(1))
    if algorithm == "wcc":
        return float(re.search(r"components found in ([0-9.]+) seconds", text).group(1))
    total = float(re.search(r"iterations of pagerank took ([0-9.]+) seconds", text).group(1))
    degrees = float(re.search(r"degree calculation used ([0-9.]+) seconds", text).group(1))
    return total - degrees


def e6(tg, graph, trials, threads):
    """GridGraph at the budgets of far ratios 0.7 and 0.9 (edges 1.6x and 2.8x the budget here):
    tiergraph's file tier with --memory-budget B and GridGraph with its smallest budget (1 GiB),
    both inside a cgroup v1 limit of B + the runtime allowance, each from a cold page cache, one
    trial each, all cores."""
    bins, grid = os.environ.get("GRIDGRAPH_BIN"), os.environ.get("GRIDGRAPH_GRID")
    if not bins or not grid:
        print("E6 skipped: set GRIDGRAPH_BIN and GRIDGRAPH_GRID (see the docstring)")
        return []
    if os.geteuid() != 0 or not CGROUP.parent.is_dir():
        print("E6 skipped: needs root and cgroup v1's memory controller")
        return []
    cores = str(os.cpu_count() or 1)
    # One BFS source with arcs for both (tiergraph keeps original ids on this graph: an offset map).
    out, _, _ = run([tg, "-q", "run", "bfs", graph, "-n", "1", "--json"])
    source = str(json.loads(out[out.index("{"):out.rindex("}") + 1])["trials"][0]["source"])
    rows = []
    for algorithm in ("bfs", "wcc", "pr"):
        for ratio in ("0.7", "0.9"):
            out, _, _ = run([tg, "-q", "plan", algorithm, graph, "--far-ratio", ratio, "-t", cores, "--json"])
            plan = json.loads(out[out.index("{"):out.rindex("}") + 1])
            budget = plan["minimum_bytes"] + plan["local_bytes"]
            limit = budget + plan["overhead_bytes"]
            cmd = [tg, "-q", "run", algorithm, graph, "-n", "1", "--json", "-t", cores, "--memory-budget", budget]
            peer = {"bfs": [f"{bins}/bfs", grid, source, "1"], "wcc": [f"{bins}/wcc", grid, "1"],
                    "pr": [f"{bins}/pagerank", grid, "5", "1"]}[algorithm]
            if algorithm == "pr":
                cmd += ["-i", "5"]
            if algorithm == "bfs":
                cmd += ["-r", source]
            text, _, _ = run(in_cgroup(cmd, limit))
            ours = json.loads(text[text.index("{"):text.rindex("}") + 1])["trials"][0]["seconds"]
            text, _, _ = run(in_cgroup(peer, limit))
            theirs = gridgraph_seconds(text, algorithm)
            rows.append({"algorithm": algorithm, "ratio": ratio, "budget": budget, "edge_bytes": plan["edge_bytes"],
                         "tiergraph_seconds": ours, "gridgraph_seconds": theirs, "speedup": theirs / ours})
            print(f"E6 {algorithm} budget {budget >> 20} MiB (far {ratio}): tiergraph {ours:.3f} s, "
                  f"GridGraph {theirs:.3f} s: {theirs / ours:.1f}x", flush=True)
    return rows


def markdown(graph, info, results):
    lines = [f"# Memory tiers on {Path(graph).name}", "",
             f"{info['vertices']} vertices, {info['edges']} edges, {info['blocks']['per_side']}x"
             f"{info['blocks']['per_side']} blocks; `{' '.join(results['command'])}`; medians of "
             f"{results['trials']} trials, kernel time only (the plan, the local block check and the numa "
             "tier's load happen before it). Overlap is the share of fetch time hidden behind computing, 0 "
             "when the workers' summed waits reach the requests' time.", "",
             "## E1: kernel time / all-local, against the far ratio", ""]
    header = "| algorithm | all-local | tier | " + " | ".join(f"far {r}" for r in RATIOS) + " | turning point |"
    lines += [header, "|" + "---|" * (4 + len(RATIOS))]
    for row in results["e1"]:
        for tier in TIERS:
            pts = [p for p in row["points"] if p["tier"] == tier]
            turn = turning_point(pts)
            cells = [f"**{p['slowdown']:.2f}x**" if p["ratio"] == turn else f"{p['slowdown']:.2f}x" for p in pts]
            lines.append(f"| {row['algorithm']} | {row['local_seconds']:.3f} s | {tier} | " + " | ".join(cells) +
                         f" | {turn if turn is not None else 'none'} |")
    lines += ["", f"The turning point (bold) is the first far ratio costing more than {TURNING:.2f}x all-local."]
    lines += ["", "## E2: the file tier's chunk size (PageRank, every block far)", "",
              "| chunk | seconds | requests | overlap |", "|---|---|---|---|"]
    for r in results["e2"]:
        lines.append(f"| {r['chunk']} | {r['seconds']:.3f} | {r['requests']} | {r['overlap']:.2f} |")
    lines += ["", "## E3: prefetch depth (file tier, every block far, 4 MiB chunks)", "",
              "| algorithm | depth | seconds | overlap |", "|---|---|---|---|"]
    for r in results["e3"]:
        lines.append(f"| {r['algorithm']} | {r['depth']} | {r['seconds']:.3f} | {r['overlap']:.2f} |")
    lines += ["", "## E4: threads (far ratio 0.7)", "", "| algorithm | tier | threads | seconds | all-local | ratio |",
              "|---|---|---|---|---|---|"]
    for r in results["e4"]:
        lines.append(f"| {r['algorithm']} | {r['tier']} | {r['threads']}{' (E1)' if r['planned'] else ''} | "
                     f"{r['seconds']:.3f} | {r['local_seconds']:.3f} | {r['seconds'] / r['local_seconds']:.2f}x |")
    if results.get("e5"):
        lines += ["", "## E5: the kernel-paging baseline (cgroup v1 limit = budget + 64 MiB, cold page cache; paging: 1 trial)",
                  "", "| algorithm | far ratio | budget | file tier | paging | paging / file |", "|---|---|---|---|---|---|"]
        for r in results["e5"]:
            lines.append(f"| {r['algorithm']} | {r['ratio']} | {r['budget'] >> 20} MiB | {r['file_seconds']:.3f} s | "
                         f"{r['paging_seconds']:.3f} s | {r['speedup']:.1f}x |")
    if results.get("e6"):
        lines += ["", "## E6: GridGraph at the same budget (its budget argument 1 GiB, the smallest it takes; the same "
                  "cgroup v1 limit = budget + 64 MiB for both; cold page cache; 1 trial each; all cores)",
                  "", "| algorithm | far ratio | budget | edges / budget | tiergraph (file tier) | GridGraph | "
                  "GridGraph / tiergraph |", "|---|---|---|---|---|---|---|"]
        for r in results["e6"]:
            lines.append(f"| {r['algorithm']} | {r['ratio']} | {r['budget'] >> 20} MiB | "
                         f"{r['edge_bytes'] / r['budget']:.1f} | {r['tiergraph_seconds']:.3f} s | "
                         f"{r['gridgraph_seconds']:.3f} s | {r['speedup']:.1f}x |")
    return "\n".join(lines) + "\n"


def plots(results, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plots")
        return
    fig, axes = plt.subplots(1, len(ALGORITHMS), figsize=(4 * len(ALGORITHMS), 3.5), sharey=True)
    for ax, row in zip(axes, results["e1"]):
        for tier in TIERS:
            pts = [p for p in row["points"] if p["tier"] == tier]
            line, = ax.plot([p["ratio"] for p in pts], [p["slowdown"] for p in pts], marker="o", label=tier)
            turn = turning_point(pts)
            if turn is not None:  # the turning point, ringed
                at = next(p for p in pts if p["ratio"] == turn)
                ax.plot([turn], [at["slowdown"]], marker="o", markersize=13, fillstyle="none", color=line.get_color())
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.axhline(TURNING, color="grey", lw=0.6, ls=":")
        ax.set_title(row["algorithm"])
        ax.set_xlabel("far ratio")
    axes[0].set_ylabel("kernel time / all-local")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(f"{out}-e1.png", dpi=110)
    fig, ax = plt.subplots(figsize=(4.5, 3.5))
    ax.plot([r["chunk"] for r in results["e2"]], [r["seconds"] for r in results["e2"]], marker="o")
    ax.set_xlabel("chunk size")
    ax.set_ylabel("PageRank kernel seconds")
    ax.set_title("file tier, every block far")
    fig.tight_layout()
    fig.savefig(f"{out}-e2.png", dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph")
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--blocks", type=int, default=16)
    ap.add_argument("--trials", type=int, default=3)
    # One core is left to the fetch side by default: here its copies and checks are CPU work
    # (an RDMA NIC would do the copy), and with every core computing they compete (see E4).
    ap.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 1) - 1))
    ap.add_argument("--experiments", default="e1,e2,e3,e4,e5,e6")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "tiers"))
    a = ap.parse_args()
    ensure_time_tool()
    tg = tiergraph_bin()
    graph = a.graph
    if not graph:
        work = ROOT / "bench" / "work" / "tiers"
        work.mkdir(parents=True, exist_ok=True)
        graph = str(work / f"kron{a.scale}-p{a.blocks}.tg")
        if not Path(graph).exists():
            run([tg, "-q", "generate", "-g", a.scale, "-s", "--blocks", a.blocks, "-o", graph])
    info_text, _, _ = run([tg, "-q", "info", graph, "--json"])
    info = json.loads(info_text[info_text.index("{"):info_text.rindex("}") + 1])
    results = {"command": ["bench/tiers.py", *(f"--{k}={v}" for k, v in vars(a).items() if v is not None)],
               "trials": a.trials, "graph": graph}
    wanted = a.experiments.split(",")
    previous = {}
    if Path(f"{a.out}.json").exists():  # experiments not run this time keep their last figures
        previous = json.loads(Path(f"{a.out}.json").read_text())
    for name, f in (("e1", e1), ("e2", e2), ("e3", e3), ("e4", e4), ("e5", e5), ("e6", e6)):
        results[name] = f(tg, graph, a.trials, a.threads) if name in wanted else previous.get(name, [])
    Path(f"{a.out}.json").write_text(json.dumps(results, indent=1))
    text = markdown(graph, info, results)
    Path(f"{a.out}.md").write_text(text)
    print(text)
    if results["e1"] and results["e2"]:
        plots(results, a.out)


if __name__ == "__main__":
    main()
