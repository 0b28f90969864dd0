"""bench/python.py's part 3: tiergraph's Graph.from_scipy and kernels against NetworKit and
igraph on the same scipy matrix (installed into a virtual environment when missing), with the
answers compared."""
import gc
import site
import subprocess
import sys

import numpy as np

from common import median
from python_common import generate, read_edge_list, rotated, settle, timed, undirected_pairs

import tiergraph as tg


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
