#!/usr/bin/env python3
"""Out of core side by side with GridGraph (issue 35): Kronecker-S (undirected, edge factor 16, the
default seed) on both systems under one cgroup v1 memory limit, cold page cache, kernels BFS, WCC
and PageRank (exactly --pr-iterations iterations).

tiergraph: the graph file made by the bounded build (`generate -g S -s --memory-budget B`), then
`run ALG --memory-budget B --far file --verify -n 1` with B the limit less 64 MiB (the runtime's
share, as every budget here). GridGraph: the same edges as a binary edge list with both directions
of every edge (what it needs for an undirected graph; it removes neither self-loops nor duplicates),
its `preprocess` into its default grid (a partition per 2^20 vertices, at least 4 a side), then
`bin/bfs grid SOURCE GB`, `bin/wcc grid GB`, `bin/pagerank grid ITERATIONS GB` with its memory
budget the limit in whole GiB (at least 1). Both take the same BFS source (tiergraph's pick, a
vertex with edges) and use both cores. Kernel seconds are each system's own: tiergraph's trial
time; GridGraph's printed time (BFS and WCC: the loop; PageRank: from its degree count on).

The limit: a quarter of tiergraph's file (issue 35's setting) by default, or --limit SIZE. A kernel
whose hot data (vertex state, frontiers, index: `tiergraph plan`) does not fit the limit is refused
by tiergraph's plan before it reads an edge; the row says so and names what would run. Cross-checks:
WCC's component count and BFS's level count must agree between the systems (a mismatch is printed
in the table).

    bench/scale_gridgraph.py --scale 26 [--limit 3G] [--algorithms bfs,wcc,pr] [--pr-iterations 20]
                             [--blocks P] [--timeout S] [--keep] [--reuse] [--out bench/results/scale-gridgraph-26]

GRIDGRAPH_BIN names the folder of GridGraph's bin/ (built from its source beside the project, not
in it). Runs as root (the cgroup and the page-cache drop). Files go under bench/work/scale/ and are
removed at the end unless --keep; the script checks the free disk space first.
"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

from common import ROOT, ensure_time_tool, run, tiergraph_bin
from scale import RUNTIME, WORK, have_cgroup, limited, need_disk
from scale_run import build, run_algorithm, size_bytes

PEER_PATTERNS = {"bfs": r"discovered (\d+) vertices from (\d+) in ([0-9.]+) seconds",
                 "wcc": r"(\d+) components found in ([0-9.]+) seconds",
                 "pr": r"(\d+) iterations of pagerank took ([0-9.]+) seconds"}


def both_directions(scale, tg, out):
    """The graph's edges as GridGraph's 8-byte records, each edge both ways (streamed in chunks)."""
    once = WORK / f"kron{scale}-once.bin32"
    subprocess.run([tg, "-q", "generate", "-g", str(scale), "-o", str(once), "--overwrite"], check=True)
    edges = np.memmap(once, dtype=np.uint32, mode="r").reshape(-1, 2)
    with open(out, "wb") as f:
        for at in range(0, len(edges), 1 << 24):
            chunk = np.asarray(edges[at:at + (1 << 24)])
            f.write(np.concatenate([chunk, chunk[:, ::-1]]).astype(np.uint32).tobytes())
    del edges
    once.unlink()
    return out


def gridgraph(bins, program, args, limit, timeout):
    text, wall, rss = run(limited([Path(bins) / program, *args], limit), timeout=timeout)
    return text.replace("\r", "\n"), wall, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=26)
    ap.add_argument("--limit", default="quarter", help="'quarter' (of tiergraph's file) or a size such as 3G")
    ap.add_argument("--algorithms", default="bfs,wcc,pr")
    ap.add_argument("--pr-iterations", type=int, default=20)
    ap.add_argument("--blocks", type=int, default=0,
                    help="tiergraph's grid side (0: the file's default, the fewest that fit; a finer grid holds "
                         "smaller pull accumulators, a range's worth a thread)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    ap.add_argument("--keep", action="store_true", help="keep tiergraph's file and GridGraph's grid")
    ap.add_argument("--reuse", action="store_true", help="take the file and grid a --keep run left (not measured again)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    bins = os.environ.get("GRIDGRAPH_BIN")
    if not bins or not (Path(bins) / "preprocess").exists():
        raise SystemExit("GRIDGRAPH_BIN must name the folder of GridGraph's bin/ (preprocess, bfs, wcc, pagerank)")
    algorithms = args.algorithms.split(",")
    if not set(algorithms) <= set(PEER_PATTERNS):
        raise SystemExit(f"--algorithms: of bfs, wcc, pr; got {args.algorithms}")
    args.out = args.out or str(ROOT / "bench" / "results" / f"scale-gridgraph-{args.scale}")
    ensure_time_tool()
    tg = tiergraph_bin()
    WORK.mkdir(parents=True, exist_ok=True)
    arcs = 2 * (16 << args.scale)
    # tiergraph's file (4 bytes an arc) and its build's runs (8, freed as the file is written);
    # GridGraph's input (8 bytes an arc) and its grid (8 more, and its vertex files).
    need_disk(f"kron-{args.scale}: tiergraph's file and build, GridGraph's edge list and grid",
              arcs * 4 + arcs * 8 + arcs * 8 + (16 << args.scale), WORK)
    path = WORK / f"kron{args.scale}.tg"
    file_bytes = arcs * 4  # about; the limit is fixed from the real file below
    limit = size_bytes(args.limit) if args.limit != "quarter" else None
    build_budget = (limit or file_bytes // 4) - RUNTIME
    grid = WORK / f"kron{args.scale}-grid"
    partitions = max(4, (1 << args.scale) >> 20)
    reuse = args.reuse and path.exists() and (grid / "meta").exists()
    built = None if reuse else build(tg, args.scale, False, build_budget, args.blocks, path)
    if limit is None:
        limit = path.stat().st_size // 4
    budget = limit - RUNTIME
    peer_gb = max(1, limit >> 30)
    print(f"limit {limit / 2**20:.0f} MiB: tiergraph --memory-budget {budget / 2**20:.0f} MiB, GridGraph {peer_gb} GB",
          flush=True)

    pre_wall = pre_rss = None
    if not reuse:
        edges = both_directions(args.scale, tg, WORK / f"kron{args.scale}-both.bin32")
        text, pre_wall, pre_rss = gridgraph(bins, "preprocess", ["-i", edges, "-o", grid, "-v", 1 << args.scale,
                                                                 "-p", partitions, "-t", 0], limit, 6 * 3600)
        edges.unlink()
        print(f"GridGraph preprocess: {pre_wall:.0f} s, peak RSS {pre_rss / 2**20:.0f} MiB", flush=True)
    grid_bytes = sum(f.stat().st_size for f in grid.rglob("block-*") if f.is_file())

    rows = []
    source = None
    for a in algorithms:
        ours = run_algorithm(tg, a, path, budget, args)
        source = ours.get("source") if a == "bfs" and ours.get("source") is not None else source
        peer_args = {"bfs": [grid, source if source is not None else 0, peer_gb], "wcc": [grid, peer_gb],
                     "pr": [grid, args.pr_iterations, peer_gb]}[a]
        try:
            text, wall, rss = gridgraph(bins, {"bfs": "bfs", "wcc": "wcc", "pr": "pagerank"}[a], peer_args, limit,
                                        args.timeout)
            m = re.search(PEER_PATTERNS[a], text)
            peer = {"seconds": float(m.groups()[-1]), "process_seconds": wall, "peak_rss": rss}
            if a == "bfs":
                peer["reached"] = int(m[1])
                peer["levels"] = len(re.findall(r"^\s*\d+: \d+\s*$", text, re.M))
            if a == "wcc":
                peer["components"] = int(m[1])
        except (RuntimeError, subprocess.TimeoutExpired, TypeError) as e:
            peer = {"failed": str(e).splitlines()[0] if str(e) else type(e).__name__}
        check = ""
        summary = ours.get("summary") or {}
        if a == "wcc" and "components" in peer and "components" in summary:
            check = "same components" if peer["components"] == summary["components"] else \
                f"components differ: {summary['components']} vs {peer['components']}"
        if a == "bfs" and "levels" in peer and "levels" in summary:
            check = "same levels" if peer["levels"] == summary["levels"] else \
                f"levels differ: {summary['levels']} vs {peer['levels']}"
        row = {"algorithm": a, "tiergraph": ours, "gridgraph": peer, "check": check}
        if "seconds" in ours and "seconds" in peer:
            row["gridgraph_over_tiergraph"] = peer["seconds"] / ours["seconds"]
        print(f"{a}: tiergraph {ours.get('seconds', ours.get('failed'))}, GridGraph "
              f"{peer.get('seconds', peer.get('failed'))} {check}", flush=True)
        rows.append(row)
    file_bytes = path.stat().st_size
    grid_side = json.loads(subprocess.run([tg, "info", str(path), "--json"], stdout=subprocess.PIPE, text=True,
                                          check=True).stdout)["blocks"]["per_side"]
    if not args.keep:
        path.unlink(missing_ok=True)
        shutil.rmtree(grid, ignore_errors=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    out = {"command": f"bench/scale_gridgraph.py --scale {args.scale} --limit {args.limit} --algorithms {args.algorithms} "
                      f"--pr-iterations {args.pr_iterations}" + (f" --blocks {args.blocks}" if args.blocks else ""),
           "grid_side": grid_side,
           "machine": f"{platform.machine()}, {os.cpu_count()} cores", "commit": commit, "limit": limit,
           "cgroup": have_cgroup(), "build": built, "file_bytes": file_bytes, "gridgraph_preprocess": {"seconds": pre_wall, "peak_rss": pre_rss,
                                                                            "grid_bytes": grid_bytes,
                                                                            "partitions": partitions},
           "rows": rows, "load_after": [round(x, 2) for x in os.getloadavg()]}
    Path(args.out + ".json").write_text(json.dumps(out, indent=1) + "\n")
    Path(args.out + ".md").write_text(markdown(args, out))
    print(markdown(args, out))


def markdown(args, out):
    mib = lambda x: f"{x / 2**20:.0f}"
    b, pre = out["build"], out["gridgraph_preprocess"]
    built = (f"built in {b['seconds']:.0f} s (peak RSS {mib(b['peak_rss'])} MiB)" if b else "reused from a --keep run")
    prepped = (f"preprocessed in {pre['seconds']:.0f} s (peak RSS {mib(pre['peak_rss'])} MiB)" if pre["seconds"]
               else "reused")
    lines = [f"# Kronecker-{args.scale} out of core, side by side with GridGraph (issue 35)", "",
             f"Command: `GRIDGRAPH_BIN=... {out['command']}`", "",
             f"Machine: {out['machine']}; load average after {out['load_after']}. tiergraph {out['commit']}. "
             f"Both systems under a cgroup v1 memory limit of {mib(out['limit'])} MiB "
             f"({'as here' if out['cgroup'] else 'not here: no cgroup v1 memory controller'}), cold page cache; "
             f"tiergraph's file {out['file_bytes'] / 2**30:.2f} GiB ({out['file_bytes'] / out['limit']:.1f}x the limit"
             f"{', a ' + str(out['grid_side']) + 'x' + str(out['grid_side']) + ' grid' if out.get('grid_side') else ''}), "
             f"{built}; GridGraph's {pre['partitions']}x{pre['partitions']} grid's blocks "
             f"{pre['grid_bytes'] / 2**30:.2f} GiB, {prepped}, from both directions of every edge.", "",
             "| algorithm | tiergraph s | verified | peak RSS MiB | GridGraph s | peak RSS MiB | GridGraph / tiergraph "
             "(target >= 3) | cross-check |",
             "|---|---:|---|---:|---:|---:|---:|---|"]
    for r in out["rows"]:
        ours, peer = r["tiergraph"], r["gridgraph"]
        ours_s = f"{ours['seconds']:.1f}" if "seconds" in ours else f"refused: {ours.get('failed')}"
        peer_s = f"{peer['seconds']:.1f}" if "seconds" in peer else f"failed: {peer.get('failed')}"
        ratio = f"{r['gridgraph_over_tiergraph']:.2f}" if "gridgraph_over_tiergraph" in r else "-"
        lines.append(f"| {r['algorithm']} | {ours_s} | {ours.get('verified', '-')} | "
                     f"{mib(ours['peak_rss_kernel']) if 'peak_rss_kernel' in ours else '-'} | {peer_s} | "
                     f"{mib(peer['peak_rss']) if 'peak_rss' in peer else '-'} | {ratio} | {r['check']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
