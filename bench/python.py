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
import site
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from common import ROOT, median, tiergraph_bin

import tiergraph as tg

SEED = 27491095  # the default sampling seed of `tiergraph run` and of the package
# The part of each answer that must agree between the CLI and Python (deterministic for a
# given source or seed; SSSP's round count varies run to run, its delta does not).
SUMMARY_KEY = {"bfs": "levels", "sssp": "delta", "wcc": "components", "pr": "iterations", "radii": "diameter_estimate"}


def timed(call):
    """(call's result, its wall seconds)."""
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


def rotated(items, trial):
    """`items` starting at position trial % len: who goes first changes every trial."""
    k = trial % len(items)
    return items[k:] + items[:k]


def load_average():
    return [round(x, 2) for x in os.getloadavg()]


class OtherWork:
    """How much of the machine's CPU time other processes took while a part ran: the machine's
    busy time (/proc/stat) less this process's and its children's. tiergraph runs every pass
    on all the cores it is given, and a thread that loses its core to another process holds up
    the pass's barrier, so its times mean little when this share is high."""

    def __init__(self):
        self.start = self._sample()

    @staticmethod
    def _sample():
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]
        own = os.times()
        hz = os.sysconf("SC_CLK_TCK")
        busy = sum(ticks) - ticks[3] - ticks[4]  # all but idle and iowait
        return busy / hz, sum(ticks) / hz, own.user + own.system + own.children_user + own.children_system

    def share(self):
        busy, total, own = (b - a for a, b in zip(self.start, self._sample()))
        return max(0.0, (busy - own) / total) if total > 0 else 0.0


def settle(args):
    """With --wait-quiet: waits (up to that long) for a 5-second window in which other processes
    take under 10% of the CPU time, adding the wait to args.waited. Returns an OtherWork started
    once the wait is over, for the group of trials that follows."""
    start = time.perf_counter()
    while time.perf_counter() - start < args.wait_quiet:
        window = OtherWork()
        time.sleep(5)
        if window.share() < 0.10:
            break
        print(f"other processes are busy ({100 * window.share():.0f}% of the CPU time): waiting", flush=True)
    args.waited += time.perf_counter() - start
    return OtherWork()


def read_edge_list(path):
    """A text edge list (two ids per line) as two int64 arrays."""
    try:
        import pandas as pd
        frame = pd.read_csv(path, sep=" ", header=None, names=["u", "v"], dtype=np.int64, engine="c")
        return frame["u"].to_numpy(), frame["v"].to_numpy()
    except ImportError:
        pairs = np.fromfile(path, sep=" ", dtype=np.int64).reshape(-1, 2)
        return pairs[:, 0].copy(), pairs[:, 1].copy()


def undirected_pairs(u, v, n):
    """Each undirected edge once as (lo, hi), lo < hi: self-loops and duplicates dropped. (Sorted
    keys rather than np.unique, which takes 20 s here on 16 M keys with numpy 2.4.)"""
    keep = u != v
    key = np.sort(np.minimum(u[keep], v[keep]) * n + np.maximum(u[keep], v[keep]))
    key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    return key // n, key % n


def generate(args, work, name, *flags):
    """bench/work/python/NAME made once by `tiergraph generate`."""
    path = work / name
    if not path.exists():
        subprocess.run([tiergraph_bin(), "-q", "generate", *map(str, flags), "-o", str(path), "-t", str(args.threads)],
                       check=True)
    return path


# ---- 1. Python against the CLI ------------------------------------------------------------------
def cli_run(algorithm, graph, threads, extra=()):
    """One `tiergraph run` process: (its JSON report, the process's wall seconds)."""
    cmd = [tiergraph_bin(), "-q", "run", algorithm, str(graph), "-n", "1", "-t", str(threads), "--json", *map(str, extra)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout), wall


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


# ---- 3. from_scipy + kernels against NetworKit and igraph ---------------------------------------
def import_peers(args, work):
    """networkit and igraph, installed into bench/work/python/venv when missing; notes on failure."""
    notes = []

    def try_import():
        found = {}
        for name in ("networkit", "igraph"):
            try:
                found[name] = __import__(name)
            except ImportError:
                found[name] = None
        return found

    venv = work / "venv"
    venv_site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    found = try_import()
    if None in found.values() and venv_site.is_dir():  # installed by an earlier run
        site.addsitedir(str(venv_site))
        found = try_import()
    if None in found.values() and not args.no_install:
        missing = [name for name, mod in found.items() if mod is None]  # the PyPI names are the module names
        print(f"installing {', '.join(missing)} into {venv} ...", flush=True)
        try:
            if not (venv / "bin" / "python").exists():
                subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *missing], check=True)
            site.addsitedir(str(venv_site))
            found = try_import()
        except (subprocess.CalledProcessError, OSError) as e:
            notes.append(f"installing {', '.join(missing)} failed: {e}")
    for name, mod in found.items():
        if mod is None:
            notes.append(f"{name} could not be imported: its column is skipped")
    return found.get("networkit"), found.get("igraph"), notes


def symmetric_matrix(args, work):
    """The shared input: a symmetric scipy CSR matrix of Kronecker scale peer_scale, weights [1, 255]."""
    import scipy.sparse as sp

    n = 1 << args.peer_scale
    u, v = read_edge_list(generate(args, work, f"kron{args.peer_scale}.el", "-g", args.peer_scale))
    lo, hi = undirected_pairs(u, v, n)
    w = np.random.default_rng(1).integers(1, 256, len(lo))
    return sp.csr_array((np.concatenate([w, w]), (np.concatenate([lo, hi]), np.concatenate([hi, lo]))), shape=(n, n))


def peer_libraries(args, work):
    import scipy.sparse as sp

    nk, ig, notes = import_peers(args, work)
    if nk is not None:
        nk.setNumberOfThreads(args.threads)
    A = symmetric_matrix(args, work)
    n = A.shape[0]
    T = args.threads
    print(f"matrix: {n} vertices, {A.nnz} entries (symmetric), {A.nnz // 2} undirected edges", flush=True)

    def upper():
        return sp.triu(A, format="coo")

    builders = {"tiergraph": (lambda: tg.Graph.from_scipy(A, directed=False, weighted=False),
                              lambda: tg.Graph.from_scipy(A, directed=False, weighted=True))}
    if nk is not None:
        def nk_build(weighted):
            c = upper()
            if weighted:
                return nk.GraphFromCoo((c.data.astype(np.float64), (c.row, c.col)), n=n, weighted=True, directed=False)
            return nk.GraphFromCoo((c.row, c.col), n=n, directed=False)
        builders["NetworKit"] = (lambda: nk_build(False), lambda: nk_build(True))
    if ig is not None:
        def ig_build(weighted):
            c = upper()
            attrs = {"weight": c.data.tolist()} if weighted else {}
            return ig.Graph(n=n, edges=list(zip(c.row.tolist(), c.col.tolist())), directed=False, edge_attrs=attrs)
        builders["igraph"] = (lambda: ig_build(False), lambda: ig_build(True))
    libraries = list(builders)

    # Construction, alternated; the graphs of the last trial are the ones the algorithms run on.
    build = {lib: {"plain": [], "weighted": []} for lib in libraries}
    graphs = {}
    other = settle(args)
    for trial in range(args.peer_trials):
        for lib in rotated(libraries, trial):
            graphs.pop(lib, None)
            gc.collect()
            plain, t1 = timed(builders[lib][0])
            weighted, t2 = timed(builders[lib][1])
            build[lib]["plain"].append(t1)
            build[lib]["weighted"].append(t2)
            graphs[lib] = (plain, weighted)
    shares = {"build": other.share()}
    for lib in libraries:
        print(f"build {lib:10} {median(build[lib]['plain']):.3f} s, weighted {median(build[lib]['weighted']):.3f} s",
              flush=True)

    degree = np.diff(A.indptr)
    sources = np.random.default_rng(2).choice(np.flatnonzero(degree > 0), args.peer_trials, replace=False).tolist()
    calls = _algorithm_calls(graphs, nk, ig, T)
    raw, answers, kernel = {}, {}, {}
    for algorithm in calls:
        raw[algorithm] = {lib: [] for lib in calls[algorithm]}
        kernel[algorithm] = []
        other = settle(args)
        for trial in range(args.peer_trials):
            for lib in rotated(list(calls[algorithm]), trial):
                answer, t = timed(lambda: calls[algorithm][lib](sources[trial]))
                raw[algorithm][lib].append(t)
                if lib == "tiergraph":
                    kernel[algorithm].append(answer.seconds)
                if trial == 0:
                    answers.setdefault(algorithm, {})[lib] = answer
        shares[algorithm] = other.share()
        line = "  ".join(f"{lib} {median(ts):.4f} s" for lib, ts in raw[algorithm].items())
        print(f"{algorithm:5} {line}  (tiergraph kernel {median(kernel[algorithm]):.4f} s; other processes "
              f"{100 * shares[algorithm]:.0f}%)", flush=True)
    checks = _compare_answers(answers, n)
    for c in checks:
        print("check:", c)
    versions = {"networkit": getattr(nk, "__version__", None), "igraph": getattr(ig, "__version__", None)}
    threads = {"tiergraph": T, "NetworKit": nk.getMaxNumberOfThreads() if nk is not None else None, "igraph": 1}
    return {"matrix": f"Kronecker scale {args.peer_scale}, symmetric, no self-loops or duplicates, int weights [1, 255]",
            "vertices": n, "entries": int(A.nnz), "sources": sources, "versions": versions, "threads": threads,
            "build_s": {lib: {k: median(v) for k, v in b.items()} for lib, b in build.items()},
            "algorithm_s": {a: {lib: median(ts) for lib, ts in r.items()} for a, r in raw.items()},
            "tiergraph_kernel_s": {a: median(k) for a, k in kernel.items()},
            "other_cpu_share": shares, "checks": checks, "notes": notes,
            "trials": {"build": build, "algorithms": raw}}


def _algorithm_calls(graphs, nk, ig, T):
    """{algorithm: {library: call(source) -> answer}}: each call returns its per-vertex answer."""
    calls = {"bfs": {}, "wcc": {}, "pr": {}, "sssp": {}}
    g, gw = graphs["tiergraph"]
    calls["bfs"]["tiergraph"] = lambda s: tg.bfs(g, s, threads=T)
    calls["wcc"]["tiergraph"] = lambda s: tg.wcc(g, threads=T)
    calls["pr"]["tiergraph"] = lambda s: tg.pagerank(g, damping=0.85, tolerance=1e-7, threads=T)
    calls["sssp"]["tiergraph"] = lambda s: tg.sssp(gw, s, threads=T)
    if T > 1:  # like for like with the sequential algorithms, and what a pass's barrier costs on a busy machine
        calls["bfs"]["tiergraph 1 thread"] = lambda s: tg.bfs(g, s, threads=1)
        calls["wcc"]["tiergraph 1 thread"] = lambda s: tg.wcc(g, threads=1)
        calls["pr"]["tiergraph 1 thread"] = lambda s: tg.pagerank(g, damping=0.85, tolerance=1e-7, threads=1)
        calls["sssp"]["tiergraph 1 thread"] = lambda s: tg.sssp(gw, s, threads=1)
    if nk is not None:
        G, Gw = graphs["NetworKit"]

        def run(algo, answer):
            algo.run()
            return answer(algo)

        def nk_pagerank(s):
            pr = nk.centrality.PageRank(G, damp=0.85, tol=1e-7, distributeSinks=nk.centrality.SinkHandling.DistributeSinks)
            pr.norm = nk.centrality.Norm.L1_NORM
            pr.maxIterations = 1000
            pr.run()
            return pr.scores(), pr.numberOfIterations()

        calls["bfs"]["NetworKit"] = lambda s: run(nk.distance.BFS(G, s, storePaths=False), lambda a: a.getDistances())
        calls["wcc"]["NetworKit"] = lambda s: run(nk.components.ConnectedComponents(G),
                                                  lambda a: (a.numberOfComponents(), a.getPartition().getVector()))
        calls["pr"]["NetworKit"] = nk_pagerank
        calls["sssp"]["NetworKit"] = lambda s: run(nk.distance.Dijkstra(Gw, s, storePaths=False),
                                                   lambda a: a.getDistances())
    if ig is not None:
        I, Iw = graphs["igraph"]
        calls["bfs"]["igraph"] = lambda s: I.bfs(s)  # (visit order, layer starts, parents)
        calls["wcc"]["igraph"] = lambda s: I.connected_components()
        calls["pr"]["igraph"] = lambda s: I.pagerank(damping=0.85)
        calls["sssp"]["igraph"] = lambda s: Iw.distances(source=s, weights="weight")[0]
    return calls


def _compare_answers(answers, n):
    """Checks that every library answered the same (first trial's source), as lines of text."""
    unreached = np.iinfo(np.int64).max

    def distances(values):
        """Distances from floats (unreached: inf or the largest double) as tiergraph's int64."""
        a = np.asarray(values, dtype=np.float64)
        out = np.full(len(a), unreached, dtype=np.int64)
        finite = a < 1e300
        out[finite] = a[finite].astype(np.int64)
        return out

    def igraph_depths(answer):
        order, starts, _ = answer  # visit order, where each layer starts in it, parents
        depth = np.full(n, unreached, dtype=np.int64)
        depth[np.asarray(order)] = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
        return depth

    def normalized(algorithm, lib, answer):
        """The answer as an array (bfs, sssp, pr) or a count (wcc), and PageRank's iterations."""
        if isinstance(answer, tg.Result):
            key = "components" if algorithm == "wcc" else "iterations"
            return (answer.summary[key] if algorithm == "wcc" else answer.values), answer.summary.get(key)
        if algorithm == "wcc":
            return (answer[0] if lib == "NetworKit" else len(answer)), None
        if algorithm == "pr":
            return (np.asarray(answer[0]), answer[1]) if lib == "NetworKit" else (np.asarray(answer), None)
        if algorithm == "bfs" and lib == "igraph":
            return igraph_depths(answer), None
        return distances(answer), None

    lines = []
    for algorithm, by_lib in answers.items():
        ours = normalized(algorithm, "tiergraph", by_lib["tiergraph"])[0]
        for lib, answer in by_lib.items():
            if lib == "tiergraph":
                continue
            theirs, iterations = normalized(algorithm, lib, answer)
            if algorithm in ("bfs", "sssp"):
                lines.append(f"{algorithm}: {lib} distances {'equal' if np.array_equal(theirs, ours) else 'DIFFER'}")
            elif algorithm == "wcc":
                lines.append(f"wcc: {lib} {theirs} components, tiergraph {ours}")
            else:
                scale = theirs / theirs.sum()
                lines.append(f"pr: {lib} sums to {theirs.sum():.6f}, largest difference from tiergraph "
                             f"{np.abs(theirs - ours).max():.2g} ({np.abs(scale - ours).max():.2g} once scaled to sum 1)"
                             + (f", {iterations} iterations" if iterations is not None else ""))
        if algorithm == "pr":
            lines.append(f"pr: tiergraph {by_lib['tiergraph'].summary['iterations']} iterations "
                         "(igraph: PRPACK, its own solver)")
    return lines


# ---- the report ---------------------------------------------------------------------------------
def markdown(args, out):
    lines = ["# Calling tiergraph from Python: overhead over the CLI, networkx's backend, NetworKit and igraph", "",
             f"Command: `{out['command']}`", "",
             f"Machine: {out['machine']}; load average before {out['load_before']}, after {out['load_after']}; "
             f"tiergraph {out['commit']} (CLI built {out['built']['cli']}, Python module built {out['built']['module']}). "
             "Medians of alternated trials (who goes first rotates per trial).", ""]
    if "python_vs_cli" in out:
        p = out["python_vs_cli"]
        lines += [f"## 1. Python against the CLI: {p['graph']}, {args.threads} threads, {args.trials} trials", "",
                  "Kernel: `Result.seconds` against the CLI report's `trials[0].seconds` (target: Python / CLI "
                  "<= 1.05). Call: the wall time of the whole `tg.ALG(...)` call. Outside the kernel: call - "
                  "kernel (median of each call's own difference); of which in the Python layer: that difference "
                  "for the package's call less the same for the run through the extension module alone "
                  "(the rest is the C++ run's setup and report, which the CLI pays outside its kernel too). CLI process: the whole `tiergraph run` (start, open and "
                  "check the file, run, exit).", "",
                  "| algorithm | CLI kernel s | Python kernel s | kernel Python / CLI | Python call s | "
                  "call / CLI kernel | outside kernel ms | in Python layer ms | CLI process s | same answers | "
                  "other processes' CPU |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
        for r in p["rows"]:
            lines.append(f"| {r['algorithm']} | {r['cli_kernel_s']:.4f} | {r['py_kernel_s']:.4f} | "
                         f"{r['kernel_ratio']:.3f} | {r['py_call_s']:.4f} | {r['call_vs_cli_kernel']:.3f} | "
                         f"{r['outside_kernel_ms']:.2f} | {r['python_layer_ms']:.2f} | {r['cli_process_s']:.3f} | "
                         f"{'yes' if r['answers_agree'] else 'NO'} | {100 * r['other_cpu_share']:.0f}% |")
        lines += ["", "Each CLI trial is its process's first (the CLI's later trials in one process run 5-30% faster "
                      "here), while Python's calls follow a warm-up call in the same process: mostly why Python's "
                      "kernel time comes out lower. Radii's time outside the kernel is the run's own source sampling "
                      "(it shuffles every vertex with edges to pick 64), which the CLI pays outside its kernel time too.",
                  "", f"BFS and SSSP sources (the CLI's seeded picks): {p['sources']}; Radii seeds "
                      f"{SEED}+trial on both sides; PageRank to an L1 change < 1e-7 on both.", ""]
    if "networkx" in out:
        x = out["networkx"]
        lines += [f"## 2. `nx.pagerank(G, backend=\"tiergraph\")` against networkx's own", "",
                  f"{x['graph']}: {x['nodes']} nodes, {x['edges']} edges (built in {x['build_s']:.1f} s). "
                  f"{args.nx_trials} trials; {args.nx_cached} cached calls per trial. Largest difference "
                  f"between the two answers: {x['max_abs_difference']:.2g}. Both stop, as networkx does, when "
                  f"the L1 change is below n x tol = {x['nodes']} x 1e-6: {x['iterations']} iterations here, so "
                  "networkx's time is mostly its conversion of G to a scipy matrix, on every call. Other processes took "
                  f"{100 * x['other_cpu_share']:.0f}% of the machine's CPU time meanwhile.", "",
                  "| call | median s | networkx / this |", "|---|---:|---:|",
                  f"| networkx `nx.pagerank(G)` | {x['networkx_s']:.3f} | 1.0 |",
                  f"| tiergraph, first call (default weight='weight': converts G with weights to check them, then "
                  f"without) | {x['first_call_s']:.3f} | "
                  f"{x['speedup_first']:.1f} |",
                  f"| tiergraph, first call with weight=None (converts G once) | {x['first_call_weight_none_s']:.3f} | "
                  f"{x['speedup_first_weight_none']:.1f} |",
                  f"| tiergraph, cached (`G.__networkx_cache__`) | {x['cached_call_s']:.3f} | "
                  f"{x['speedup_cached']:.1f} |", ""]
    if "peers" in out:
        q = out["peers"]
        libs = list(q["build_s"])
        lines += [f"## 3. `Graph.from_scipy` + kernels against NetworKit and igraph", "",
                  f"One scipy CSR matrix: {q['matrix']} ({q['vertices']} vertices, {q['entries']} entries). "
                  f"{args.peer_trials} trials. Threads: {q['threads']} (NetworKit's BFS, Dijkstra and "
                  "ConnectedComponents are sequential; its PageRank is parallel; igraph is single-threaded). "
                  f"Versions: {q['versions']}.", "",
                  "Construction (s; the graph for SSSP is built again with weights; other processes took "
                  f"{100 * q['other_cpu_share']['build']:.0f}% of the CPU time meanwhile):", "",
                  "| library | graph | weighted graph |", "|---|---:|---:|"]
        for lib in libs:
            lines.append(f"| {lib} | {q['build_s'][lib]['plain']:.3f} | {q['build_s'][lib]['weighted']:.3f} |")
        libs = list(next(iter(q["algorithm_s"].values())))  # the libraries, and tiergraph on 1 thread
        lines += ["", "Algorithms (s, wall time of the call returning the per-vertex answer; construction excluded; "
                      "ratio: the library's time / tiergraph's):", "",
                  "| algorithm | " + " | ".join(f"{lib} s" for lib in libs) + " | "
                  + " | ".join(f"{lib} / tiergraph" for lib in libs[1:]) + " | tiergraph kernel s | "
                  "other processes' CPU |", "|---|" + "---:|" * (2 * len(libs) + 1)]
        for algo, times in q["algorithm_s"].items():
            cells = [f"{times[lib]:.4f}" for lib in libs] + [f"{times[lib] / times['tiergraph']:.1f}" for lib in libs[1:]]
            lines.append(f"| {algo} | " + " | ".join(cells) + f" | {q['tiergraph_kernel_s'][algo]:.4f} | "
                         f"{100 * q['other_cpu_share'][algo]:.0f}% |")
        lines += ["", "PageRank: damping 0.85; tiergraph and NetworKit (Norm.L1_NORM, DistributeSinks) stop when the "
                      "L1 change is below 1e-7; igraph's PRPACK solves to its fixed 1e-10. BFS: tiergraph distances, "
                      "NetworKit distances, igraph's visit order, layers and parents. SSSP: tiergraph delta-stepping, "
                      "NetworKit and igraph Dijkstra.", "", "Checks:", ""]
        lines += [f"- {c}" for c in q["checks"]] + [f"- note: {n}" for n in q["notes"]] + [""]
    return "\n".join(lines)


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
