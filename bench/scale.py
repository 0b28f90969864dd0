#!/usr/bin/env python3
"""Graphs larger than memory (issue 35): the bounded-memory build against the in-memory build of
the same graph, and against the peers' builds, side by side in one run.

For each Kronecker scale (undirected, edge factor 16), each input:
  generated  `generate -g S -s` in memory, no limit, then with --memory-budget of a quarter of the
             file inside a cgroup v1 memory limit of that budget + 64 MiB, cold page cache; beside
             it GAPBS's `converter -g S -s -b x.sg` (generates and builds the same size of graph
             in memory; its own generator) when GAPBS_DIR is set;
  binary     the same graph as a raw binary edge list (`generate -o x.bin32`), converted both
             ways, the bounded one under the same limit; beside it GridGraph's `preprocess` of the
             same file under the same limit when GRIDGRAPH_BIN is set (the folder of its bin/);
  text       the same as a text edge list (`generate -o x.el`), converted both ways.
Each pair of tiergraph builds must write byte-identical files (checked with cmp; a mismatch stops
the script). The table gives seconds, edges per second, peak RSS (the kernel's count,
/usr/bin/time), the runs spilled and their bytes on the scratch disk, the ratio to tiergraph's
in-memory build (issue 35's target for the bounded build: at most 1.5x) and the peers' time over
tiergraph's for the same input (targets: GAPBS's in-memory build no faster than tiergraph's,
GridGraph's preprocess at least 2x tiergraph's bounded build). Before each step it checks the free
disk space against what the step needs and says so.

  bench/scale.py [--scales 20,22] [--inputs generated,binary,text] [--trials 1] [--out bench/results/scale-build]

Runs as root (the cgroup and the page-cache drop); without cgroup v1's memory controller the
bounded runs go without the kernel's limit (their own budget still holds; the table says so).
Uses TG_BIN (default build/release/tiergraph); work files go under bench/work/scale/.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
from pathlib import Path

from common import ROOT, ensure_time_tool, run, tiergraph_bin

RUNTIME = 64 << 20
CGROUP = Path("/sys/fs/cgroup/memory/tiergraph-scale")
WORK = ROOT / "bench" / "work" / "scale"


def have_cgroup():
    return os.geteuid() == 0 and Path("/sys/fs/cgroup/memory/memory.limit_in_bytes").exists()


def limited(cmd, limit):
    """cmd inside a cgroup v1 memory limit, from a cold page cache."""
    if not have_cgroup():
        return cmd
    CGROUP.mkdir(exist_ok=True)
    (CGROUP / "memory.limit_in_bytes").write_text(str(limit))
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("3")
    return ["sh", "-c", f'echo $$ > {CGROUP}/cgroup.procs; exec "$@"', "sh", *map(str, cmd)]


def cold(cmd):
    if os.geteuid() == 0:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3")
    return cmd


def need_disk(what, bytes_needed, folder):
    free = shutil.disk_usage(folder).free
    print(f"  {what}: needs about {bytes_needed / 2**30:.2f} GiB of disk, {free / 2**30:.1f} GiB free", flush=True)
    if free < bytes_needed:
        raise SystemExit(f"not enough disk for {what}: {bytes_needed / 2**30:.2f} GiB needed, {free / 2**30:.1f} GiB free in {folder}")


def report_of(text):
    return json.loads(text[text.index("{"):text.rindex("}") + 1])


def build(cmd, trials):
    """Median wall seconds over trials, and the last trial's report and peak RSS."""
    times, last = [], None
    for _ in range(trials):
        text, wall, rss = run(cmd)
        times.append(wall)
        last = (report_of(text), rss)
    return statistics.median(times), last[0], last[1]


def same_files(a, b):
    return subprocess.run(["cmp", "-s", str(a), str(b)]).returncode == 0


def against_bounded(what, memory_row, command, memory_tg, bounded_tg, budget, trials):
    """The bounded build of `command` (its in-memory build done: memory_row, memory_tg) under the
    cgroup limit; stops the script unless its file is the in-memory one. Returns both rows."""
    limit = budget + RUNTIME
    seconds, report, rss = build(limited([*command, "-o", bounded_tg, "--overwrite", "--json", "--memory-budget", str(budget),
                                          "--scratch", WORK], limit), trials)
    if not same_files(memory_tg, bounded_tg):
        raise SystemExit(f"{what}: the bounded build's file differs from the in-memory build's")
    bounded_row = {**memory_row, "build": "bounded", "seconds": seconds, "peak_rss": rss, "budget": budget,
                   "limit": limit if have_cgroup() else None, "runs": report["runs"], "scratch_bytes": report["scratch_bytes"],
                   "identical": True, "ratio": seconds / memory_row["seconds"]}
    print(f"{what}: in memory {memory_row['seconds']:.1f} s ({memory_row['peak_rss'] / 2**20:.0f} MiB), "
          f"bounded {seconds:.1f} s ({rss / 2**20:.0f} MiB, budget {budget / 2**20:.0f} MiB, {report['runs']} runs): "
          f"{bounded_row['ratio']:.2f}x", flush=True)
    return [memory_row, bounded_row]


def gapbs_row(scale, trials, memory_row):
    """GAPBS's converter generating and building a Kronecker graph of the same scale in memory."""
    gapbs = os.environ.get("GAPBS_DIR")
    if not gapbs:
        return []
    sg = WORK / f"kron{scale}.sg"
    times, rss = [], 0
    for _ in range(trials):
        _, wall, rss = run(cold([Path(gapbs) / "converter", "-g", scale, "-s", "-b", sg]))
        times.append(wall)
    sg.unlink(missing_ok=True)
    seconds = statistics.median(times)
    print(f"kron-{scale} GAPBS converter -g {scale} -s: {seconds:.1f} s ({rss / 2**20:.0f} MiB)", flush=True)
    return [{**memory_row, "build": "GAPBS converter, in memory", "system": "GAPBS", "seconds": seconds, "peak_rss": rss,
             "file_bytes": None, "peer_over_tiergraph": seconds / memory_row["seconds"]}]


def gridgraph_row(scale, binary, budget, trials, bounded_row):
    """GridGraph's preprocess of the same binary edge list, under the bounded build's cgroup limit,
    with its own default grid (a partition per 2^20 vertices, at least 4 a side). It sorts nothing
    and removes no duplicates: it distributes the edges as given into its grid's blocks (an
    undirected graph is given to it with both directions of every edge, which here would double its
    input, so this is the cheaper task of the directed list)."""
    partitions = max(4, (1 << scale) >> 20)
    bins = os.environ.get("GRIDGRAPH_BIN")
    if not bins:
        return []
    grid = WORK / f"kron{scale}-grid"
    need_disk(f"kron-{scale}: GridGraph's grid (about twice its input)", 2 * binary.stat().st_size, WORK)
    limit = budget + RUNTIME
    times, rss = [], 0
    for _ in range(trials):
        shutil.rmtree(grid, ignore_errors=True)
        try:
            _, wall, rss = run(limited([Path(bins) / "preprocess", "-i", binary, "-o", grid, "-v", 1 << scale,
                                        "-p", partitions, "-t", 0], limit))
        except RuntimeError as e:  # its fixed buffers (2 x cores x 24 MiB) exceed a small limit
            shutil.rmtree(grid, ignore_errors=True)
            print(f"kron-{scale} GridGraph preprocess failed under the {limit / 2**20:.0f} MiB limit: "
                  f"{str(e).splitlines()[0]}", flush=True)
            return [{**bounded_row, "build": "GridGraph preprocess: killed at the limit", "system": "GridGraph",
                     "seconds": None, "peak_rss": None, "runs": None, "scratch_bytes": None, "file_bytes": None,
                     "identical": None, "ratio": None, "peer_over_tiergraph": None}]
        times.append(wall)
    grid_bytes = sum(f.stat().st_size for f in grid.rglob("*") if f.is_file())
    shutil.rmtree(grid, ignore_errors=True)
    seconds = statistics.median(times)
    print(f"kron-{scale} GridGraph preprocess: {seconds:.1f} s ({rss / 2**20:.0f} MiB, limit {limit / 2**20:.0f} MiB)",
          flush=True)
    return [{**bounded_row, "build": f"GridGraph preprocess, {partitions}x{partitions} grid",
             "system": "GridGraph", "seconds": seconds, "peak_rss": rss, "runs": None, "scratch_bytes": None,
             "file_bytes": grid_bytes, "identical": None, "ratio": None,
             "peer_over_tiergraph": seconds / bounded_row["seconds"]}]


def edge_list(scale, ext, tg):
    path = WORK / f"kron{scale}.{ext}"
    if not path.exists():
        subprocess.run([tg, "-q", "generate", "-g", str(scale), "-o", str(path)], check=True)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", default="20,22")
    ap.add_argument("--inputs", default="generated,binary,text")
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "scale-build"))
    args = ap.parse_args()
    inputs = args.inputs.split(",")
    if not set(inputs) <= {"generated", "binary", "text"}:
        raise SystemExit(f"--inputs: each of generated, binary, text; got {args.inputs}")
    ensure_time_tool()
    tg = tiergraph_bin()
    WORK.mkdir(parents=True, exist_ok=True)
    rows = []
    for scale in [int(s) for s in args.scales.split(",")]:
        edges = 16 << scale
        file_estimate = edges * 2 * 4 + (8 << scale) + (64 << 20)  # arcs of 4 bytes, degrees, index
        memory_tg, bounded_tg = WORK / f"kron{scale}-memory.tg", WORK / f"kron{scale}-bounded.tg"
        need_disk(f"kron-{scale}: two graph files and the runs (8 bytes an arc)", 2 * file_estimate + edges * 2 * 8, WORK)
        seconds, report, rss = build(cold([tg, "generate", "-g", scale, "-s", "-o", memory_tg, "--overwrite", "--json"]), args.trials)
        file_bytes = memory_tg.stat().st_size
        budget = max(file_bytes // 4, 16 << 20)
        memory_row = {"scale": scale, "input": "generated", "build": "in memory", "system": "tiergraph", "seconds": seconds,
                      "peak_rss": rss, "budget": None, "limit": None, "runs": 0, "scratch_bytes": 0, "file_bytes": file_bytes,
                      "edges": report["input_edges"], "arcs": report["arcs"]}
        if "generated" in inputs:
            rows += gapbs_row(scale, args.trials, memory_row)
            rows += against_bounded(f"kron-{scale} generated", memory_row, [tg, "generate", "-g", scale, "-s"], memory_tg,
                                    bounded_tg, budget, args.trials)
        for kind in [i for i in inputs if i != "generated"]:
            binary = kind == "binary"
            need_disk(f"kron-{scale}: its {kind} edge list ({'8' if binary else 'about 18'} bytes an edge)",
                      edges * (8 if binary else 18), WORK)
            path = edge_list(scale, "bin32" if binary else "el", tg)
            size = path.stat().st_size
            seconds, report, rss = build(cold([tg, "convert", path, "-s", "-o", memory_tg, "--overwrite", "--json"]), args.trials)
            row = {**memory_row, "input": f"{kind} ({size / 2**30:.2f} GiB)", "seconds": seconds, "peak_rss": rss}
            pair = against_bounded(f"kron-{scale} from {kind}", row, [tg, "convert", path, "-s"], memory_tg, bounded_tg,
                                   budget, args.trials)
            rows += pair
            if binary:
                rows += gridgraph_row(scale, path, budget, args.trials, pair[1])
            path.unlink()
        for f in (memory_tg, bounded_tg):
            f.unlink(missing_ok=True)

    load = os.getloadavg()
    command = (f"bench/scale.py --scales {args.scales} --inputs {args.inputs} --trials {args.trials} "
               f"--out {os.path.relpath(args.out, ROOT)}")
    lines = ["# The bounded-memory build against the in-memory build and the peers' (issue 35)", "",
             f"Command: `{command}`" + (" with GAPBS_DIR" if os.environ.get("GAPBS_DIR") else "")
             + (" and GRIDGRAPH_BIN" if os.environ.get("GRIDGRAPH_BIN") else "") + " set", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores; load average after {[round(x, 2) for x in load]}. "
             f"Kronecker graphs, edge factor 16, undirected (`-s`), the default seed. The bounded build's budget is a quarter "
             f"of the graph file; it runs inside a cgroup v1 memory limit of budget + 64 MiB "
             f"({'as here' if have_cgroup() else 'not here: no cgroup v1 memory controller, so its own budget only'}), "
             f"the page cache dropped before each build. GridGraph's preprocess runs under the same limit; GAPBS's converter "
             f"(its own Kronecker generator, same parameters and size) without one. Seconds are wall time (median of "
             f"{args.trials}), peak RSS the kernel's count (/usr/bin/time). Every bounded file was compared with `cmp` to "
             f"the in-memory one: identical.", "",
             "| scale | input | build | s | M edges/s | peak RSS MiB | budget MiB | cgroup limit MiB | runs | scratch MiB "
             "| output MiB | / tiergraph in memory | peer / tiergraph |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        mib = lambda x: f"{x / 2**20:.0f}" if x else "-"
        ratio = f"{r['ratio']:.2f}x" if r.get("ratio") else ("1.00x" if r["system"] == "tiergraph" else "-")
        peer = f"{r['peer_over_tiergraph']:.2f}x" if r.get("peer_over_tiergraph") else "-"
        runs = r["runs"] if r.get("runs") else "-"
        if r["seconds"] is None:
            lines.append(f"| {r['scale']} | {r['input']} | {r['build']} | - | - | - | - | {mib(r.get('limit'))} | - | - | - | - | - |")
            continue
        lines.append(f"| {r['scale']} | {r['input']} | {r['build']} | {r['seconds']:.1f} | {r['edges'] / r['seconds'] / 1e6:.2f} | "
                     f"{mib(r['peak_rss'])} | {mib(r.get('budget'))} | {mib(r.get('limit'))} | {runs} | "
                     f"{mib(r.get('scratch_bytes'))} | {mib(r['file_bytes'])} | {ratio} | {peer} |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    Path(args.out + ".json").write_text(json.dumps({"command": command, "rows": rows, "load_after": load}, indent=1))
    print("\n".join(lines))
    if CGROUP.exists():
        try:
            CGROUP.rmdir()
        except OSError:
            pass


if __name__ == "__main__":
    main()
