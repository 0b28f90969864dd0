#!/usr/bin/env python3
"""Build-against-build benchmark: two tiergraph binaries (OLD_BIN, NEW_BIN) side by side on the same
graph files, medians of kernel time (`Trial Time`, not wall time) and peak RSS per process.

Inputs: kron22 / urand22 (Graph500 Kronecker / uniform, scale 22, edge factor 16, undirected, made by
`generate -s`) and shared datasets (web-cnr-2000 directed, road-pace-NE undirected). Each input is
made ONCE into bench/work/compare/<input>.tg (and <input>-w.tg with seeded int weights in [1,255] for
SSSP; none of the datasets used here carries weights) by NEW_BIN and reused while present; both
binaries read the same files, and both must read them (checked with `info` first, fails loudly).

For each input and algorithm: --runs runs of each binary, alternated old, new, old, new, ..., each
a separate process `tiergraph run ALGO G.tg -n 1 -t T`. BFS and SSSP start from one fixed source
per graph file (OLD_BIN's default seeded pick, passed with -r to both; every run must report it),
PageRank runs -i 20 on both, Radii its defaults (64 seeded samples). Result lines (levels,
components, iterations, diameter estimate, delta) are compared between the two and any difference
is noted, since a faster run that computes something else is not a speed-up.

Prints and writes a markdown table (--out, default bench/results/compare-<date>.md) with ratios
new/old (above 1.0: the new build is slower; above 1.05 marked SLOWER) and a JSON of every raw
time next to it (same name, .json).

    OLD_BIN=path/to/old/tiergraph NEW_BIN=build/release/tiergraph python3 bench/compare_builds.py \\
        [--inputs kron22,urand22,web-cnr-2000,road-pace-NE] [--algorithms bfs,sssp,wcc,pr,radii] \\
        [--runs 5] [--threads 2] [--out bench/results/FILE.md] [--workdir bench/work/compare] \\
        [--wait-quiet 30]

OLD_COMMIT / NEW_COMMIT override the commit shown for a binary (default: the git checkout that
holds it, "+dirty" when that checkout has uncommitted changes to tracked files).

Noise: the machines are shared and a 2-thread kernel sharing 2 CPUs with other work runs 2-15x
slower (BFS on road-pace-NE: 0.08 s quiet, up to 4.9 s beside a build). So every run measures the
CPU time other processes used meanwhile (/proc/stat minus the run's own), and a disturbed pair is
redone after waiting for a quiet moment (--wait-quiet); rows still disturbed are marked. Runs go
back to back after one uncounted warm-up, because a run started after an idle pause came out ~5%
slower, which favoured whichever binary ran second. Even quiet, single runs vary by 10-50% (some
kernels are bimodal), so old against itself on 2 quiet CPUs gave ratios 0.89-1.12 with --runs 5
(2-3 of 20 rows flagged by chance) but 0.95-1.05 with --runs 10 (17 of 20 within 0.975-1.03, none
flagged). Use --runs 10 before believing a 5% change; a flagged row whose new run is slower in only
about half the pairs is noise.

Time on 2 CPUs (quiet), full default set: about 5.5 minutes with --runs 5, 9.5 with --runs 10, plus
about 3.5 minutes the first time to make the inputs (kron22/urand22: ~1 minute per file, peak
~1.5 GiB; 0.5 GiB + 1 GiB on disk each). Radii on road-pace-NE (~10 s a run) is a third of it.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, datasets_dir, ensure_time_tool, median, run, values

DATASETS = {  # name: (file, undirected, extra convert flags)
    "web-cnr-2000": ("web-cnr-2000.txt.xz", False, ["--ids", "index"]),
    "road-pace-NE": ("road-pace-NE.gr.xz", True, []),
    "web-NotreDame": ("web-NotreDame.txt.xz", False, ["--ids", "index"]),
    "twitter-ego": ("soc-twitter-ego-undirected.txt.xz", True, ["--ids", "index"]),
}
SOURCED = ("bfs", "sssp")
RESULT_LABELS = {  # lines that describe what was computed; old and new should agree
    "bfs": ["levels"], "sssp": ["delta"], "wcc": ["components"], "pr": ["iterations"],
    "radii": ["diameter_estimate", "sources"],
}
SLOWER = 1.05


def binary(var):
    path = os.environ.get(var)
    if not path:
        sys.exit(f"{var} is not set (OLD_BIN=... NEW_BIN=... python3 bench/compare_builds.py)")
    p = Path(path).resolve()
    if not (p.is_file() and os.access(p, os.X_OK)):
        sys.exit(f"{var}={path} is not an executable file")
    return p


def describe(var, path):
    """Commit, version and content hash of a binary, for the report header."""
    commit = os.environ.get(var.replace("_BIN", "_COMMIT"))
    if not commit:
        git = lambda *a: subprocess.run(["git", "-C", str(path.parent)] + list(a), capture_output=True, text=True)
        head = git("rev-parse", "HEAD")
        if head.returncode == 0:
            dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
            commit = head.stdout.strip() + (" +dirty" if dirty else "")
        else:
            commit = "unknown (not in a git checkout)"
    version = subprocess.run([str(path), "--version"], capture_output=True, text=True).stdout.strip()
    sha = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    built = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    return {"path": str(path), "commit": commit, "version": version, "sha256": sha, "built": built}


def machine():
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 platform.processor() or "unknown")
    mem = next((int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal")), 0)
    return {"nproc": os.cpu_count(), "model": model, "memory_gib": round(mem / 2**20, 1),
            "kernel": platform.release(), "loadavg": os.getloadavg()[0]}


CLK_TCK = os.sysconf("SC_CLK_TCK")
QUIET = 0.10  # a run is disturbed when other work used more than this share of all CPUs during it


def cpu_ticks():
    """(busy, all) CPU ticks of the whole machine since boot, steal included as busy."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
    return sum(f) - f[3] - f[4], sum(f)


def others_share(before, after, child_cpu):
    """Share of all CPUs that other work used between two cpu_ticks() samples, our child's CPU time
    taken out. /proc/stat counts in ticks (10 ms), so a few ticks of slack are forgiven."""
    busy = (after[0] - before[0]) / CLK_TCK - child_cpu
    total = (after[1] - before[1]) / CLK_TCK
    return max(0.0, busy - 3.0 * os.cpu_count() / CLK_TCK) / total if total > 0 else 0.0


def wait_quiet(limit):
    """Waits up to `limit` seconds for half a second in which other work uses under QUIET of the CPUs;
    returns the seconds waited."""
    start = time.perf_counter()
    while time.perf_counter() < start + limit:
        before = cpu_ticks()
        time.sleep(0.5)
        if others_share(before, cpu_ticks(), 0.0) < QUIET:
            break
    return time.perf_counter() - start


def make_inputs(name, work, new_bin, threads, weighted):
    """Makes <name>.tg (and <name>-w.tg when weighted) with the given binary unless present; returns
    paths. generate and convert are deterministic, so two binaries make the same graph."""
    env = {"OMP_NUM_THREADS": str(threads)}
    files = {"plain": work / f"{name}.tg"}
    if weighted:
        files["weighted"] = work / f"{name}-w.tg"
    for kind, out in files.items():
        if out.exists():
            continue
        w = ["--weights", "int"] if kind == "weighted" else []
        if name.startswith(("kron", "urand")):
            flag, scale = ("-g", name[4:]) if name.startswith("kron") else ("-u", name[5:])
            cmd = [new_bin, "generate", flag, scale, "-k", 16, "-s", "-o", out, "-t", threads] + w
        else:
            file, undirected, extra = DATASETS[name]
            cmd = [new_bin, "convert", datasets_dir() / file, "-o", out, "-t", threads] + extra \
                + (["-s"] if undirected else []) + w
        print(f"  making {out.name} ...", flush=True)
        start = time.perf_counter()
        _, _, rss = run(cmd, env=env)
        print(f"  made {out.name} in {time.perf_counter() - start:.0f} s (peak {rss / 2**20:.0f} MiB)", flush=True)
    return files


def check_readable(paths, bins):
    """Each binary must read its file (header, sections, checksums), and when the two binaries read
    files of their own (--old-workdir) the files must hold the same graph; stop here if not."""
    counts = {}
    for side, b in bins.items():
        try:
            text, _, _ = run([b, "info", paths[side], "--json"], timeout=600)
        except RuntimeError as e:
            sys.exit(f"\nFAIL: the {side} binary ({b}) cannot read {paths[side]} (delete it to remake it).\n{e}")
        info = json.loads(text[:text.rindex("}") + 1])
        counts[side] = {k: info[k] for k in ("vertices", "edges", "arcs", "directed", "weight_type")}
    if counts["old"] != counts["new"]:
        sys.exit(f"\nFAIL: the two binaries' files hold different graphs: {counts}")


def one_run(b, side, algo, graph, threads, source):
    cmd = [b, "run", algo, graph, "-n", 1, "-t", threads]
    if algo in SOURCED:
        cmd += ["-r", source]
    if algo == "pr":
        cmd += ["-i", 20]
    try:
        ticks, cpu = cpu_ticks(), resource.getrusage(resource.RUSAGE_CHILDREN)
        text, wall, rss = run(cmd, env={"OMP_NUM_THREADS": str(threads)})
        after, cpu_after = cpu_ticks(), resource.getrusage(resource.RUSAGE_CHILDREN)
        child = (cpu_after.ru_utime - cpu.ru_utime) + (cpu_after.ru_stime - cpu.ru_stime)
    except RuntimeError as e:
        sys.exit(f"\nFAIL: {side} binary failed: {e}")
    t = values(text, "Trial Time")
    if len(t) != 1:
        sys.exit(f"\nFAIL: expected one 'Trial Time' from {side} ({' '.join(map(str, cmd))}), got:\n{text[-2000:]}")
    if algo in SOURCED and values(text, "Source") != [float(source)]:
        sys.exit(f"\nFAIL: {side} did not run from source {source} ({' '.join(map(str, cmd))}):\n{text[-2000:]}")
    result = {label: values(text, label) for label in RESULT_LABELS[algo]}
    return {"time": t[0], "wall": wall, "rss": rss, "result": result, "cpu": child,
            "others": others_share(ticks, after, child)}


def pick_source(graph, old_bin, threads):
    """OLD_BIN's default seeded pick (uniform over vertices with out-edges), from one BFS trial."""
    text, _, _ = run([old_bin, "run", "bfs", graph, "-n", 1, "-t", threads], env={"OMP_NUM_THREADS": str(threads)})
    src = values(text, "Source")
    if len(src) != 1:
        sys.exit(f"\nFAIL: no 'Source:' line from {old_bin} run bfs {graph}:\n{text[-2000:]}")
    return int(src[0])


def fmt_row(r):
    flag, pairs = "", f" (new slower in {r['pairs_slower']} of {r['pairs']} pairs)"
    if r["ratio"] > SLOWER:
        flag = "**SLOWER**" + pairs
    elif r["ratio"] < 1 / SLOWER:
        flag = "faster" + pairs
    ratio = f"**{r['ratio']:.3f}**" if r["ratio"] > SLOWER else f"{r['ratio']:.3f}"
    note = "; ".join(filter(None, [flag] + r["notes"]))
    return (f"| {r['input']} | {r['algorithm']} | {r['old_median']:.4f} | {r['new_median']:.4f} | {ratio} | "
            f"{r['old_rss_mib']:.0f} | {r['new_rss_mib']:.0f} | {r['spread']:.0%} | {note} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", default="kron22,urand22,web-cnr-2000,road-pace-NE")
    ap.add_argument("--algorithms", default="bfs,sssp,wcc,pr,radii")
    ap.add_argument("--runs", type=int, default=5, help="runs of each binary per input and algorithm")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", help="markdown report (default bench/results/compare-<date>.md); raw JSON beside it")
    ap.add_argument("--workdir", default=str(ROOT / "bench" / "work" / "compare"))
    ap.add_argument("--old-workdir", default=None,
                    help="OLD_BIN makes and reads its own copies of the inputs here (when the two builds "
                         "write different graph file versions); default: both read NEW_BIN's files")
    ap.add_argument("--wait-quiet", type=float, default=30, metavar="S",
                    help="redo an old/new pair (up to 3 times) when other work on the machine disturbed either "
                         "run, after waiting up to S seconds (default 30) for a quiet half second (other work under "
                         "10%% of the CPUs); also wait so before each row. Redoing stops once 20 x S seconds "
                         "went to waiting and redone pairs. 0: neither")
    args = ap.parse_args()
    algos = args.algorithms.split(",")
    for a in algos:
        if a not in RESULT_LABELS:
            sys.exit(f"unknown algorithm {a!r}: {', '.join(RESULT_LABELS)}")
    for name in args.inputs.split(","):
        if not (name in DATASETS or (name.startswith("kron") and name[4:].isdigit())
                or (name.startswith("urand") and name[5:].isdigit())):
            sys.exit(f"unknown input {name!r}: kron<SCALE>, urand<SCALE> or one of {', '.join(DATASETS)}")
    ensure_time_tool()
    bins = {"old": binary("OLD_BIN"), "new": binary("NEW_BIN")}
    info = {side: describe(f"{side.upper()}_BIN", b) for side, b in bins.items()}
    host = machine()
    now = datetime.datetime.now()
    out = Path(args.out) if args.out else ROOT / "bench" / "results" / f"compare-{now:%Y%m%d-%H%M%S}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)

    header = [
        f"# tiergraph build comparison, {now:%Y-%m-%d %H:%M}",
        "",
    ] + [f"- {side}: `{i['path']}` commit {i['commit']} (sha256 {i['sha256']}, built {i['built']})"
         for side, i in info.items()] + [
        f"- threads {args.threads}, runs {args.runs} per binary (alternated old/new, one process per run, `-n 1`), "
        f"kernel time (`Trial Time`), medians; peak RSS median per process (the mapped graph file counts: "
        f"all of it is read to verify checksums); --wait-quiet {args.wait_quiet:g}",
        f"- machine: {host['nproc']} CPUs ({host['model']}), {host['memory_gib']} GiB, Linux {host['kernel']}, "
        f"load average {host['loadavg']:.2f} at start",
        f"- graph files: `{work}` (made by the new binary)"
        + (f"; the old binary reads its own, made the same way, in `{args.old_workdir}`" if args.old_workdir else ""),
        "",
    ]
    print("\n".join(header), flush=True)
    start_all = time.perf_counter()
    making, loads, budget = 0.0, [host["loadavg"]], 20 * args.wait_quiet  # seconds for waits and redos
    rows, raw = [], {"old": info["old"], "new": info["new"], "machine": host, "threads": args.threads,
                     "runs": args.runs, "date": now.isoformat(timespec="seconds"), "results": []}
    for name in args.inputs.split(","):
        print(f"{name}:", flush=True)
        t0 = time.perf_counter()
        files = make_inputs(name, work, bins["new"], args.threads, "sssp" in algos)
        old_files = files
        if args.old_workdir:
            Path(args.old_workdir).mkdir(parents=True, exist_ok=True)
            old_files = make_inputs(name, Path(args.old_workdir), bins["old"], args.threads, "sssp" in algos)
        for kind in files:
            check_readable({"old": old_files[kind], "new": files[kind]}, bins)
        making += time.perf_counter() - t0
        sources = {}
        for algo in algos:
            kind = "weighted" if algo == "sssp" else "plain"
            graph = files[kind]
            graphs = {"old": old_files[kind], "new": graph}
            if algo in SOURCED and graph not in sources:
                sources[graph] = pick_source(graphs["old"], bins["old"], args.threads)
            source = sources.get(graph) if algo in SOURCED else None
            runs = {"old": [], "new": []}
            t0, load = time.perf_counter(), os.getloadavg()[0]
            redone = []
            budget -= wait_quiet(min(args.wait_quiet, max(budget, 0)))
            warmup = one_run(bins["old"], "old", algo, graphs["old"], args.threads, source)  # not counted
            for _ in range(args.runs):  # back to back: every counted run follows another run
                for attempt in range(4 if args.wait_quiet > 0 else 1):
                    pair = {side: one_run(bins[side], side, algo, graphs[side], args.threads, source)
                            for side in ("old", "new")}
                    if max(r["others"] for r in pair.values()) <= QUIET or attempt == 3 or budget <= 0:
                        break
                    redone.append(pair)
                    budget -= sum(r["wall"] for r in pair.values()) + wait_quiet(min(args.wait_quiet, budget))
                for side in ("old", "new"):
                    runs[side].append(pair[side])
            busy = [r["others"] for side in ("old", "new") for r in runs[side]]
            old_t = [r["time"] for r in runs["old"]]
            new_t = [r["time"] for r in runs["new"]]
            disturbed = sum(b > QUIET for b in busy)
            notes = [f"{disturbed} of {len(busy)} runs disturbed (others up to {max(busy):.0%})"] if disturbed else []
            if redone:
                notes.append(f"{len(redone)} pairs redone")
            for label in RESULT_LABELS[algo]:
                o = {tuple(r["result"][label]) for r in runs["old"]}
                n = {tuple(r["result"][label]) for r in runs["new"]}
                if o != n:
                    show = lambda s: ",".join(f"{v[0]:g}" if v else "-" for v in sorted(s))
                    notes.append(f"{label} differs: old {show(o)}, new {show(n)}")
            row = {"input": name, "algorithm": algo, "graph": str(graph), "source": source,
                   "old_median": median(old_t), "new_median": median(new_t),
                   "old_rss_mib": median([r["rss"] for r in runs["old"]]) / 2**20,
                   "new_rss_mib": median([r["rss"] for r in runs["new"]]) / 2**20, "notes": notes,
                   "loadavg": [load, os.getloadavg()[0]], "others_busy": busy,
                   "disturbed": disturbed, "pairs": len(old_t),
                   "pairs_slower": sum(n > o for o, n in zip(old_t, new_t)),
                   "spread": (max(old_t + new_t) / min(old_t + new_t) - 1) if min(old_t + new_t) > 0 else float("nan")}
            loads += row["loadavg"]
            row["ratio"] = row["new_median"] / row["old_median"] if row["old_median"] > 0 else float("nan")
            rows.append(row)
            raw["results"].append({**row, "old_times": old_t, "new_times": new_t,
                                   "old_runs": runs["old"], "new_runs": runs["new"], "redone_pairs": redone,
                                   "warmup": warmup,
                                   "seconds": time.perf_counter() - t0})
            print(f"  {algo:<6} old {row['old_median']:.4f} s  new {row['new_median']:.4f} s  "
                  f"ratio {row['ratio']:.3f}  ({time.perf_counter() - t0:.0f} s)"
                  + (f"  {'; '.join(notes)}" if notes else ""),
                  flush=True)

    total = time.perf_counter() - start_all
    table = ["| input | algorithm | old median s | new median s | ratio new/old | old RSS MiB | new RSS MiB "
             "| spread | note |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"] + [fmt_row(r) for r in rows]
    slower = [f"{r['input']}/{r['algorithm']}" for r in rows if r["ratio"] > SLOWER]
    busy_rows = [f"{r['input']}/{r['algorithm']}" for r in rows if r["disturbed"]]
    differ = [f"{r['input']}/{r['algorithm']}" for r in rows if any("differs" in n for n in r["notes"])]
    minutes = lambda sec: f"{sec / 60:.1f} min" if sec >= 120 else f"{sec:.0f} s"
    footer = ["", f"Rows with ratio above {SLOWER}: {', '.join(slower) if slower else 'none'}.",
              f"Total time {minutes(total)} ({minutes(making)} of it making and checking inputs). "
              f"1-minute load average {min(loads):.2f} to {max(loads):.2f} (sampled before and after each row)."]
    footer.insert(1, "spread: slowest / fastest run of all 2 x runs of the row, minus 1 (old and new together). "
                     "Pairs: each old run and the new run right after it; a real slowdown makes the new run slower "
                     "in (nearly) every pair, noise in about half. disturbed: runs during which other work on the "
                     "machine used more than 10% of all CPUs (from /proc/stat, this run's own CPU time taken out).")
    if differ:
        footer.append(f"WARNING: old and new computed different results in {', '.join(differ)} (see notes); their "
                      f"times do not compare like with like.")
    if busy_rows:
        footer.append(f"WARNING: other work on this machine disturbed runs of {', '.join(busy_rows)}; those ratios "
                      f"are not trustworthy: rerun when the machine is quiet (or with a longer --wait-quiet).")
    raw["total_seconds"], raw["input_seconds"] = total, making
    report = "\n".join(header + table + footer) + "\n"
    out.write_text(report)
    out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n")
    print("\n" + "\n".join(table + footer))
    print(f"\nwrote {out} and {out.with_suffix('.json')}")


if __name__ == "__main__":
    main()
