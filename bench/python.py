#!/usr/bin/env python3
"""What calling tiergraph from Python costs, and how it compares with other Python graph libraries.

Three measurements, each a median of alternated trials (the contenders take turns, the first
place rotating each trial, so drift and other work on the machine hit all of them alike):

1. Python against the CLI, on Kronecker scale 20 (edge factor 16, undirected; generated once by
   `tiergraph generate -s` into bench/work/python/, with `--weights int` for SSSP). Per trial the
   CLI runs one process (`tiergraph run ALG GRAPH -n 1 -t T --json`) and Python calls
   `tg.ALG(graph, ..., threads=T)` on the graph loaded once. Both take the same sources: BFS and
   SSSP run from the CLI's own seeded picks (a warm-up `run bfs -n TRIALS`), given to the CLI as
   `-r SOURCE` and to Python as `source`; Radii samples its 64 sources on both sides from the
   same seed (`--seed S` / `seed=S`, S = 27491095 + trial: the CLI draws trial t of one process
   from seed + t, so one process per trial with an explicit seed matches Python's single call);
   PageRank converges to the same default (L1 change < 1e-7) on both. Reported: the kernel
   time (`Result.seconds` against the CLI report's `trials[0].seconds`; target: Python within 5%),
   the wall time of the whole Python call (argument checks, the engine's setup, the report,
   the numpy arrays) against the CLI's kernel time, and where the time outside the kernel goes:
   the same run through the extension module alone (`graph._file.run`, a private call kept for
   this breakdown, a third contender in the rotation) separates the C++ run's setup and report
   from the Python layer (each call's time outside its own kernel, so the kernels' variation
   cancels). The CLI process's wall
   time (start, opening and checking the file, the run, exit) is shown for context. A deterministic
   part of each answer (BFS levels, SSSP delta, component count, PageRank iterations, Radii's
   diameter estimate) is compared between the two sides.

2. networkx's PageRank with tiergraph as its backend against networkx's own, on an undirected
   networkx graph of Kronecker scale 18 (about 3.8 million edges, isolated vertices kept as
   nodes 0..n-1; no edge attributes). Per trial: the first call after clearing
   `G.__networkx_cache__` (it converts the graph; with the default weight='weight' the backend
   first checks the weights, which converts the graph once more, with weights, so the first call
   is also timed with weight=None), then cached calls (networkx keeps the converted graph in the
   cache), then `nx.pagerank(G, backend="networkx")`. networkx's own PageRank takes seconds per
   call here, so it runs 3 trials. Target: networkx / tiergraph (cached) >= 10.

3. tiergraph's `Graph.from_scipy` and kernels against NetworKit and igraph on the same scipy CSR
   matrix: Kronecker scale 20, made undirected (symmetric), without self-loops or duplicates,
   with seeded integer weights in [1, 255] (used by SSSP only). Construction is timed apart from
   the algorithms: tiergraph `Graph.from_scipy(A, directed=False)` (weighted=False, and again
   weighted for SSSP); NetworKit `GraphFromCoo` of the upper triangle; igraph `Graph(n, edges)`
   from the upper triangle's pairs as a list (igraph's fastest path found; a numpy edge array
   takes about 3x longer), with a `weight` attribute for SSSP. Algorithm times are the wall time
   of the call that returns the per-vertex answer, construction excluded: BFS (tiergraph `bfs`,
   NetworKit `distance.BFS` + `getDistances`, igraph `Graph.bfs`), connected components
   (`wcc`, `components.ConnectedComponents` + `getPartition`, `connected_components`), PageRank
   with damping 0.85 (tiergraph and NetworKit: until the L1 change between iterations is below
   1e-7, NetworKit with `Norm.L1_NORM` and `DistributeSinks`; igraph: PRPACK, which solves to its
   own fixed tolerance of 1e-10 and takes none), SSSP (tiergraph delta-stepping, NetworKit
   `distance.Dijkstra` + `getDistances`, igraph `distances(weights=...)`). BFS and SSSP run from
   the same sampled vertices (with edges) on every side, and the answers are compared. tiergraph
   also runs on 1 thread, like for like with the sequential algorithms.
   Threads: tiergraph and NetworKit `--threads` (`networkit.setNumberOfThreads`; NetworKit's BFS,
   Dijkstra and ConnectedComponents are sequential algorithms, its PageRank is parallel); igraph
   is single-threaded. NetworKit and igraph are not tiergraph's dependencies: when they cannot be
   imported this script installs them with pip into a virtual environment under
   bench/work/python/venv (seeing the system's packages) and adds it to sys.path; with
   --no-install, or if that fails, their columns are skipped with a note.

Defaults take about 8 minutes on an idle 2-core machine (--quick: scale 18 for part 3, 17 for
networkx, 5 trials in part 1 and 2 in part 2: about 2 minutes). Each part reports the share of
the CPU time other processes took meanwhile (per algorithm in parts 1 and 3): tiergraph's
passes end at a barrier of all their threads, so on a machine whose cores are busy with other
work its times on all cores say little (5-20x slower here, where sequential libraries lose
less); --wait-quiet waits for idle CPUs before each group of trials.

    bench/python.py [--parts 1,2,3] [--threads 2] [--trials 9] [--scale 20]
                    [--nx-scale 18] [--nx-trials 3] [--peer-scale 20] [--peer-trials 5]
                    [--quick] [--no-install] [--wait-quiet SECONDS] [--out bench/results/python]

Writes OUT.json (every trial's times) and OUT.md (the tables). Uses TG_BIN (default
build/release/tiergraph) and the installed tiergraph package (pip install . from the root).
"""
import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from common import ROOT, median, tiergraph_bin
from python_common import SEED, SUMMARY_KEY, cli_run, generate, load_average, read_edge_list, rotated, settle, timed
from python_peers import peer_libraries
from python_report import markdown

import tiergraph as tg


def python_vs_cli(args, work):
    graph_path = generate(args, work, f"kron{args.scale}.tg", "-g", args.scale, "-s")
    weighted_path = generate(args, work, f"kron{args.scale}-w.tg", "-g", args.scale, "-s", "--weights", "int")
    graphs = {"plain": tg.load(graph_path), "weighted": tg.load(weighted_path)}
    # The CLI's own seeded picks, one per trial (also the warm-up of the file's pages).
    warmup = subprocess.run([tiergraph_bin(), "-q", "run", "bfs", str(graph_path), "-n", str(args.trials),
                             "-t", str(args.threads), "--json"], check=True, stdout=subprocess.PIPE, text=True)
    sources = [t["source"] for t in json.loads(warmup.stdout)["trials"]]
    T = args.threads

    def python_call(algorithm, trial):
        """The package's call for this trial, and the same run through the extension module alone
        (the options tiergraph.algorithms passes it)."""
        if algorithm in ("bfs", "sssp"):
            g = graphs["weighted" if algorithm == "sssp" else "plain"]
            s = sources[trial]
            fn = tg.bfs if algorithm == "bfs" else tg.sssp
            return (lambda: fn(g, s, threads=T)), (lambda: g._file.run(algorithm, {"source": s, "threads": T,
                                                                                    "pass_stats": True}))
        g = graphs["plain"]
        if algorithm == "radii":
            seed = SEED + trial
            return (lambda: tg.radii(g, seed=seed, threads=T)), (
                lambda: g._file.run("radii", {"samples": 64, "seed": seed, "threads": T, "pass_stats": True}))
        if algorithm == "pr":
            return (lambda: tg.pagerank(g, threads=T)), (
                lambda: g._file.run("pr", {"damping": 0.85, "threads": T, "pass_stats": True}))
        return (lambda: tg.wcc(g, threads=T)), (lambda: g._file.run("wcc", {"threads": T, "pass_stats": True}))

    def cli_call(algorithm, trial):
        graph = weighted_path if algorithm == "sssp" else graph_path
        extra = ["-r", sources[trial]] if algorithm in ("bfs", "sssp") else []
        if algorithm == "radii":
            extra = ["--seed", SEED + trial]
        return lambda: cli_run(algorithm, graph, T, extra)

    def outside(calls, kernels):
        """The median time a call spends outside its kernel (measured within each call, so the
        kernel's own variation cancels)."""
        return median([c - k for c, k in zip(calls, kernels)])

    rows = []
    for algorithm in args.algorithms.split(","):
        other = settle(args)
        package, _ = python_call(algorithm, 0)
        package()  # warm-up: the first call also maps the vertex labels (WCC) and pages in the file
        raw = {"cli_kernel": [], "cli_process": [], "py_kernel": [], "py_call": [], "core_kernel": [], "core_call": []}
        agree = True
        for trial in range(args.trials):
            package, core = python_call(algorithm, trial)
            for side in rotated(["cli", "python", "core"], trial):
                if side == "cli":
                    report, wall = cli_call(algorithm, trial)()
                    raw["cli_kernel"].append(report["trials"][0]["seconds"])
                    raw["cli_process"].append(wall)
                    cli_summary = report["trials"][0]["summary"]
                    cli_threads = report["threads"]
                elif side == "python":
                    result, wall = timed(package)
                    raw["py_call"].append(wall)
                    raw["py_kernel"].append(result.seconds)
                    py_summary = result.summary
                    py_threads = result.stats["threads"]
                else:
                    answer, wall = timed(core)
                    raw["core_call"].append(wall)
                    raw["core_kernel"].append(json.loads(answer["report"])["trials"][-1]["seconds"])
            key = SUMMARY_KEY[algorithm]
            agree = agree and cli_summary[key] == py_summary[key] and cli_threads == py_threads == T
        m = {k: median(v) for k, v in raw.items()}
        row = {"algorithm": algorithm, **{k + "_s": v for k, v in m.items()},
               "kernel_ratio": m["py_kernel"] / m["cli_kernel"],
               "call_vs_cli_kernel": m["py_call"] / m["cli_kernel"],
               "outside_kernel_ms": 1e3 * outside(raw["py_call"], raw["py_kernel"]),
               "python_layer_ms": 1e3 * (outside(raw["py_call"], raw["py_kernel"])
                                         - outside(raw["core_call"], raw["core_kernel"])),
               "answers_agree": agree, "other_cpu_share": other.share(), "trials": raw}
        rows.append(row)
        print(f"{algorithm:6} CLI kernel {m['cli_kernel']:.4f} s  Python kernel {m['py_kernel']:.4f} s "
              f"(x{row['kernel_ratio']:.3f})  Python call {m['py_call']:.4f} s (x{row['call_vs_cli_kernel']:.3f} "
              f"of the CLI kernel; {row['outside_kernel_ms']:.1f} ms outside the kernel, "
              f"{row['python_layer_ms']:.1f} ms in the Python layer)  CLI process {m['cli_process']:.3f} s  "
              f"{'same answers' if agree else 'ANSWERS DIFFER'}; other processes "
              f"{100 * row['other_cpu_share']:.0f}%", flush=True)
    return {"graph": f"Kronecker scale {args.scale}, edge factor 16, undirected", "sources": sources, "rows": rows}


# ---- 2. networkx's PageRank: tiergraph as backend against networkx ------------------------------
def networkx_pagerank(args, work):
    import networkx as nx

    nx.config.warnings_to_ignore.add("cache")  # the reminder that a cached conversion is reused
    n = 1 << args.nx_scale
    u, v = read_edge_list(generate(args, work, f"kron{args.nx_scale}.el", "-g", args.nx_scale))
    keep = u != v
    G, build = timed(lambda: _networkx_graph(nx, n, u[keep], v[keep]))
    print(f"networkx graph: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges, built in {build:.1f} s",
          flush=True)
    raw = {"first_call": [], "first_call_weight_none": [], "cached_call": [], "networkx": []}
    difference = None
    other = settle(args)
    for trial in range(args.nx_trials):
        for side in rotated(["tiergraph", "networkx"], trial):
            if side == "networkx":
                theirs, t = timed(lambda: nx.pagerank(G, backend="networkx"))
                raw["networkx"].append(t)
                continue
            G.__networkx_cache__.clear()
            _, t = timed(lambda: nx.pagerank(G, weight=None, backend="tiergraph"))
            raw["first_call_weight_none"].append(t)
            G.__networkx_cache__.clear()
            ours, t = timed(lambda: nx.pagerank(G, backend="tiergraph"))
            raw["first_call"].append(t)
            for _ in range(args.nx_cached):
                ours, t = timed(lambda: nx.pagerank(G, backend="tiergraph"))
                raw["cached_call"].append(t)
        if difference is None:
            difference = max(abs(ours[k] - theirs[k]) for k in theirs)
    other_share = other.share()
    # networkx stops when the L1 change is below n * tol (tol 1e-6): how many iterations that is here.
    iterations = tg.pagerank(tg.Graph.from_networkx(G), tolerance=n * 1e-6, max_iterations=100).summary["iterations"]
    m = {k: median(x) for k, x in raw.items()}
    out = {"graph": f"networkx.Graph of Kronecker scale {args.nx_scale} (edge factor 16, undirected, "
                    "no self-loops, no edge attributes)",
           "nodes": G.number_of_nodes(), "edges": G.number_of_edges(), "build_s": build,
           **{k + "_s": x for k, x in m.items()},
           "speedup_cached": m["networkx"] / m["cached_call"], "speedup_first": m["networkx"] / m["first_call"],
           "speedup_first_weight_none": m["networkx"] / m["first_call_weight_none"],
           "max_abs_difference": difference, "iterations": iterations, "other_cpu_share": other_share,
           "trials": raw}
    print(f"networkx pagerank {m['networkx']:.3f} s; tiergraph backend: first call {m['first_call']:.3f} s "
          f"(weight=None: {m['first_call_weight_none']:.3f} s), cached {m['cached_call']:.3f} s; "
          f"networkx / cached x{out['speedup_cached']:.1f}, / first x{out['speedup_first']:.1f}; "
          f"largest difference {difference:.2g}", flush=True)
    del G
    gc.collect()
    return out


def _networkx_graph(nx, n, u, v):
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(u.tolist(), v.tolist()))
    return G


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="1,2,3", help="which measurements: 1 (CLI), 2 (networkx), 3 (peers)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scale", type=int, default=20, help="part 1's Kronecker scale")
    ap.add_argument("--algorithms", default="bfs,sssp,wcc,pr,radii", help="part 1's algorithms")
    ap.add_argument("--trials", type=int, default=9, help="part 1's trials")
    ap.add_argument("--nx-scale", type=int, default=18)
    ap.add_argument("--nx-trials", type=int, default=3)
    ap.add_argument("--nx-cached", type=int, default=2, help="cached backend calls per networkx trial")
    ap.add_argument("--peer-scale", type=int, default=20)
    ap.add_argument("--peer-trials", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="parts 2 and 3 on smaller graphs, fewer trials")
    ap.add_argument("--no-install", action="store_true", help="never pip-install networkit/igraph")
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="SECONDS",
                    help="before each group of trials, wait up to this long for idle CPUs")
    ap.add_argument("--workdir", default=str(ROOT / "bench" / "work" / "python"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "python"))
    args = ap.parse_args()
    if args.quick:
        args.nx_scale, args.peer_scale, args.trials, args.nx_trials = 17, 18, 5, 2
    if min(args.trials, args.peer_trials) < 5:
        sys.exit("--trials and --peer-trials must be at least 5 (medians of 5 or more)")
    args.waited = 0.0  # seconds spent waiting for idle CPUs (--wait-quiet)
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    parts = set(args.parts.split(","))
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    out = {"command": "bench/python.py " + " ".join(sys.argv[1:]),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                      f"numpy {np.__version__}",
           "commit": commit, "load_before": load_average(),
           # Both sides should run the same engine: when each was built.
           "built": {"cli": time.ctime(os.path.getmtime(tiergraph_bin())),
                     "module": time.ctime(os.path.getmtime(tg._core.__file__))}}
    start = time.perf_counter()
    for part, key, measure in (("1", "python_vs_cli", python_vs_cli), ("2", "networkx", networkx_pagerank),
                               ("3", "peers", peer_libraries)):
        if part in parts:
            out[key] = measure(args, work)
            gc.collect()
    out["load_after"] = load_average()
    out["total_s"] = time.perf_counter() - start
    out["waited_s"] = waited = args.waited
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_suffix(".json").write_text(json.dumps(out, indent=1) + "\n")
    text = markdown(args, out)
    path.with_suffix(".md").write_text(text + f"\nTotal time: {out['total_s'] - waited:.0f} s measuring"
                                       + (f", {waited:.0f} s waiting for idle CPUs" if waited else "") + ".\n")
    print(text)
    print(f"total {out['total_s']:.0f} s")  # waiting included


if __name__ == "__main__":
    main()
