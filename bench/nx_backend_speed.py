#!/usr/bin/env python3
"""A networkx function with tiergraph as its backend against networkx's own: betweenness_centrality(G,
k=64), triangles(G) or clustering(G).

The graph: Kronecker scale 16 (edge factor 16), undirected, as `tiergraph generate -s` writes
it, loaded into a networkx Graph with nodes 0..n-1 (about a million edges). For betweenness both
sides draw the same 64 sources (networkx hands the backend its seeded random.Random; the backend
samples as networkx does) and scale alike; the answers are compared either way. networkx's own
call runs once (a minute or more for betweenness); the backend runs its first call (which
converts the graph) and then TRIALS cached calls (networkx keeps the converted graph in
G.__networkx_cache__), and the median of those is the figure. Target: networkx / tiergraph
(cached) >= 20.

    python3 bench/nx_backend_speed.py [--function betweenness|triangles|clustering] [--scale 16] [--k 64]
                                      [--trials 5] [--threads 2]
"""
import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from common import run, tiergraph_bin


def timed(f):
    start = time.perf_counter()
    out = f()
    return out, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--function", choices=["betweenness", "triangles", "clustering"], default="betweenness")
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import networkx as nx
    nx.config.warnings_to_ignore.add("cache")  # the cached conversion is what the figure measures

    with tempfile.TemporaryDirectory() as tmp:
        el = Path(tmp) / "kron.el"
        run([tiergraph_bin(), "generate", "-g", args.scale, "-s", "-o", el, "-q"])
        edges = np.loadtxt(el, dtype=np.int64, ndmin=2)
    n = 1 << args.scale
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges.tolist())
    if args.function == "betweenness":
        def call(backend):
            return nx.betweenness_centrality(G, k=args.k, seed=1, backend=backend)
    elif args.function == "triangles":
        def call(backend):
            return nx.triangles(G, backend=backend)
    else:
        def call(backend):
            return nx.clustering(G, backend=backend)
    print(f"Kronecker {args.scale}: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges; "
          f"{args.function}{f' k={args.k}' if args.function == 'betweenness' else ''}, {args.threads} threads",
          flush=True)
    theirs, t_nx = timed(lambda: call("networkx"))
    print(f"networkx: {t_nx:.2f} s", flush=True)
    G.__networkx_cache__.clear()
    first, t_first = timed(lambda: call("tiergraph"))
    cached = []
    for _ in range(args.trials):
        ours, t = timed(lambda: call("tiergraph"))
        cached.append(t)
    if args.function != "betweenness":
        assert ours == theirs
        worst = 0.0
    else:
        worst = max(abs(ours[v] - theirs[v]) / max(abs(theirs[v]), 1e-300) for v in G if theirs[v] != 0)
        assert all(ours[v] == 0 for v in G if theirs[v] == 0) and worst < 1e-9, worst
    t_ours = statistics.median(cached)
    print(f"tiergraph backend: first call {t_first:.3f} s (converts), cached median {t_ours:.3f} s "
          f"of {args.trials}; answers agree (largest relative difference {worst:.1e})")
    print(f"speedup networkx / tiergraph: cached {t_nx / t_ours:.1f}x, first call {t_nx / t_first:.1f}x "
          f"(target >= 20x cached)")


if __name__ == "__main__":
    main()
