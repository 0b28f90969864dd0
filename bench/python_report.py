"""bench/python.py's report: the three parts' tables as markdown."""
from python_common import SEED


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
