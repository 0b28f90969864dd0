#!/usr/bin/env python3
"""Graphs larger than memory (issue 35): the bounded-memory build against the in-memory build of
the same graph, side by side in one run.

For each Kronecker scale (undirected, edge factor 16):
  generate   `generate -g S -s` in memory, no limit, then with --memory-budget of a quarter of the
             file inside a cgroup v1 memory limit of that budget + 64 MiB, cold page cache;
  convert    the same graph as a text edge list (`generate -o x.el`), converted both ways, the
             bounded one under the same limit.
Each pair must write byte-identical files (checked with cmp; a mismatch stops the script). The
table gives seconds, edges per second, peak RSS (the kernel's count, /usr/bin/time), the runs
spilled and their bytes on the scratch disk, and the bounded/in-memory time ratio (issue 35's
target: at most 1.5x). Before each step it checks the free disk space against what the step
needs (file, text, runs) and says so.

  bench/scale.py [--scales 20,22] [--trials 1] [--out bench/results/scale-build]

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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", default="20,22")
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "scale-build"))
    args = ap.parse_args()
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
        memory_row = {"scale": scale, "input": "generated", "build": "in memory", "seconds": seconds, "peak_rss": rss,
                      "budget": None, "limit": None, "runs": 0, "scratch_bytes": 0, "file_bytes": file_bytes,
                      "edges": report["input_edges"], "arcs": report["arcs"]}
        rows += against_bounded(f"kron-{scale} generated", memory_row, [tg, "generate", "-g", scale, "-s"], memory_tg,
                                bounded_tg, budget, args.trials)

        text = WORK / f"kron{scale}.el"
        need_disk(f"kron-{scale}: its text edge list (about 18 bytes an edge)", edges * 18, WORK)
        if not text.exists():
            subprocess.run([tg, "-q", "generate", "-g", str(scale), "-o", str(text)], check=True)
        text_bytes = text.stat().st_size
        seconds, report, rss = build(cold([tg, "convert", text, "-s", "-o", memory_tg, "--overwrite", "--json"]), args.trials)
        memory_row = {**memory_row, "input": f"text ({text_bytes / 2**30:.2f} GiB)", "seconds": seconds, "peak_rss": rss}
        rows += against_bounded(f"kron-{scale} from text", memory_row, [tg, "convert", text, "-s"], memory_tg, bounded_tg,
                                budget, args.trials)
        for f in (memory_tg, bounded_tg, text):
            f.unlink(missing_ok=True)

    load = os.getloadavg()
    lines = ["# The bounded-memory build against the in-memory build (issue 35)", "",
             f"Command: `bench/scale.py --scales {args.scales} --trials {args.trials} --out {os.path.relpath(args.out, ROOT)}`", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores; load average after {[round(x, 2) for x in load]}. "
             f"Kronecker graphs, edge factor 16, undirected (`-s`), the default seed. The bounded build's budget is a quarter "
             f"of the graph file; it runs inside a cgroup v1 memory limit of budget + 64 MiB "
             f"({'as here' if have_cgroup() else 'not here: no cgroup v1 memory controller, so its own budget only'}), "
             f"the page cache dropped before each build. Seconds are wall time (median of {args.trials}), peak RSS the kernel's "
             f"count (/usr/bin/time). Every bounded file was compared with `cmp` to the in-memory one: identical.", "",
             "| scale | input | build | s | M edges/s | peak RSS MiB | budget MiB | cgroup limit MiB | runs | scratch MiB | file MiB | bounded / in memory |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        mib = lambda x: f"{x / 2**20:.0f}" if x else "-"
        lines.append(f"| {r['scale']} | {r['input']} | {r['build']} | {r['seconds']:.1f} | {r['edges'] / r['seconds'] / 1e6:.2f} | "
                     f"{mib(r['peak_rss'])} | {mib(r['budget'])} | {mib(r['limit'])} | {r['runs']} | {mib(r['scratch_bytes'])} | "
                     f"{mib(r['file_bytes'])} | {r['ratio']:.2f}x |" if "ratio" in r else
                     f"| {r['scale']} | {r['input']} | {r['build']} | {r['seconds']:.1f} | {r['edges'] / r['seconds'] / 1e6:.2f} | "
                     f"{mib(r['peak_rss'])} | - | - | - | - | {mib(r['file_bytes'])} | 1.00x |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    Path(args.out + ".json").write_text(json.dumps({"rows": rows, "load_after": load}, indent=1))
    print("\n".join(lines))
    if CGROUP.exists():
        try:
            CGROUP.rmdir()
        except OSError:
            pass


if __name__ == "__main__":
    main()
