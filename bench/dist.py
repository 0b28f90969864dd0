#!/usr/bin/env python3
"""Distributed execution over MPI ranks (issue 13): tiergraph against Gemini on the same graphs,
the same ranks, the same sources and the same weights.

Gemini (github.com/thu-pacman/GeminiGraph, OSDI '16) is the peer: a checkout named by GEMINI_DIR
(or --gemini); this script runs `make` there first. Its toolkits are bfs, sssp, cc and pagerank
(radii, tc, lcc and cdlp run on tiergraph alone). Without a Gemini checkout its columns are left empty.

Graphs (--graphs, comma-separated):
- `kron:S` / `urand:S`: `tiergraph generate -g S` / `-u S` (edge factor 16, the default seed,
  undirected) written as a text edge list; vertex ids 0..2^S-1 are kept, isolated vertices too.
- a file from the datasets folder (`soc-Slashdot0902` finds soc-Slashdot0902.txt.xz) or any
  path: text edge lists (SNAP, space/tab/comma separated, CSV with a header), DIMACS (`a u v w`)
  and PACE (`p tw`) .gr files, CEDGE (`id u v w`); not METIS. Directed unless PACE, CEDGE or
  named `*undirected*`; a `:directed` or `:undirected` suffix says otherwise. Their ids are
  renumbered 0..n-1 in increasing order of the original ids (vertices without edges are dropped),
  because Gemini takes ids below the vertex count it is given; the report gives each source's
  original id too.

Both systems read one edge list made here (cached under bench/work/dist/NAME/): self-loops and
duplicate edges removed (an undirected edge counted once), seeded integer weights in [1, 255]
(numpy, seed 27491095; the same weight both ways of an undirected edge). tiergraph gets it through
`tiergraph convert --ids index --vertices n [-s]` (without and with the weight column), so its
vertex ids are exactly the edge list's and `--source` means the same vertex on both sides; with
--blocks P it reads them rewritten on a P x P grid (`tiergraph reblock`), where auto schedules
the passes block-major.
Gemini gets its binary edge list: little-endian uint32 (src, dst) records, each followed by a
float32 weight for SSSP (integers below 2^24 are exact in float32, so distances compare exactly);
an undirected edge is written both ways, except for cc, which adds the reverse of every edge it
reads itself and so gets each undirected edge once.

Per graph, algorithm and rank count, each trial runs one process of each system (mpirun
--allow-run-as-root --oversubscribe --bind-to none -np N), taking turns and rotating who goes first,
from the trial's own source (a seeded vertex with out-edges; the same on both sides). Gemini's
toolkits compute 6 times per process (once, then 5 more: fixed in its code), so tiergraph runs
`--trials 6` per process too; each process's first run counts as a warm-up and the medians are over
the other 5 of every trial. Times: tiergraph's per-trial kernel seconds (`trials[].seconds` of its
JSON report; with N ranks, rank 0's report), Gemini's `exec_time` (which also counts mapping, placing
and filling its vertex arrays). PageRank runs exactly --pr-iterations
iterations on both (tiergraph `-i`; Gemini's argument); the two formulas differ (Gemini's ranks are
unnormalised, 1-d + d*sum, with no dangling-mass redistribution) but the work per iteration is the
same. Both use every core in each rank: Gemini always starts one thread per configured CPU in
every rank (it cannot be told otherwise), tiergraph does by default (--threads changes tiergraph's
only). With more ranks than cores both oversubscribe the machine, and both systems' OpenMP threads
spin while they wait, which starves the other ranks: --omp-wait auto (the default) sets
OMP_WAIT_POLICY=passive for both when there is more than one rank (see `launcher`).

tiergraph's N-rank runs go through `--exchange MODE` for each mode of --exchange that its `run
--help` lists and that it accepts when run (a mode it does not list, or refuses with an error naming
it, is skipped with a note; a build without the option runs once, without it). A failed run (an
error, a timeout, a report that is not one JSON document, or N ranks that each ran the whole graph
alone) is recorded as `failed: <why>` and the run goes on. Each rank's output is kept apart with
mpirun --output-filename.

Answers are compared across systems and rank counts for each source: BFS vertices reached, SSSP
largest finite distance, component count, PageRank's top vertex (tiergraph's rank 0 writes its
answer with `-o` at every rank count; Gemini prints these), and tiergraph's own summaries (BFS
levels, SSSP delta, WCC components, PageRank iterations) between rank counts.

    GEMINI_DIR=/path/to/GeminiGraph bench/dist.py [--graphs kron:22,soc-Slashdot0902]
        [--ranks 1,2,4] [--trials 3] [--algorithms bfs,sssp,wcc,pr] [--exchange collective]
        [--pr-iterations 20] [--blocks P] [--threads T] [--timeout 1800] [--omp-wait auto|passive|default]
        [--workdir bench/work/dist] [--remake] [--out bench/results/dist]

Writes OUT.md (tables per graph and the command line), OUT.json (every run's times and answers)
and OUT.png (seconds by ranks per algorithm, both systems). Uses TG_BIN (default
build/release/tiergraph) and TG_DATASETS_DIR. The prepared graphs stay in the work folder (kron-22:
about 4.5 GB, kron-20 1.1 GB) and are reused; --remake makes them again (after a change of
tiergraph's file format).
"""
import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import netns
from common import ROOT, median, tiergraph_bin
from dist_graphs import prepare, reblock
from dist_report import markdown, plot, table
from dist_systems import (GEMINI_TOOLKIT, MPIRUN, RUNS, TIERED, TIERGRAPH_ONLY, build_gemini, exchange_choices,
                          exchange_flags, omp_wait, run_gemini, run_tiergraph)


def rotated(items, trial):
    """`items` starting at position trial % len: who goes first changes every trial."""
    k = trial % len(items)
    return items[k:] + items[:k]


def load_average():
    return [round(x, 2) for x in os.getloadavg()]


def busy_ticks():
    """(busy, total) CPU ticks of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:9]]
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


def contenders_for(algorithm, ranks, args):
    """(system, exchange mode) pairs for one row group; notes go to args.notes."""
    out = []
    if ranks == 1 or args.exchange_choices is None:
        out.append(("tiergraph", None))
        # A tiered mode runs on one process too: what N ranks under a budget compare with.
        out += [("tiergraph", mode) for mode in args.exchange if ranks == 1 and TIERED.search(mode)]
    else:
        for mode in args.exchange:
            if mode in args.refused:
                continue
            if exchange_flags(mode)[0] in args.exchange_choices:
                out.append(("tiergraph", mode))
            else:
                note = f"--exchange {mode}: not in this tiergraph's choices ({', '.join(args.exchange_choices)}): skipped"
                if note not in args.notes:
                    args.notes.append(note)
    if args.gemini and algorithm in GEMINI_TOOLKIT:
        out.append(("gemini", None))
    return out


def measure(graph, args):
    rows = []
    for algorithm in args.algorithms:
        for ranks in args.ranks:
            contenders = contenders_for(algorithm, ranks, args)
            runs = {c: [] for c in contenders}
            busy0, total0 = busy_ticks()
            own0 = os.times()
            for trial in range(args.trials):
                source = graph["sources"][trial]
                for system, mode in rotated(contenders, trial):
                    if runs[(system, mode)] and "failed" in runs[(system, mode)][-1]:
                        continue  # it failed once: the other trials would fail alike
                    result = run_tiergraph(graph, algorithm, ranks, mode, source, trial, args) if system == "tiergraph" \
                        else run_gemini(graph, algorithm, ranks, source, args)
                    result.update(trial=trial, source=source if algorithm in ("bfs", "sssp") else None)
                    runs[(system, mode)].append(result)
                    if system == "tiergraph" and mode and f"--exchange {exchange_flags(mode)[0]}" in result.get("failed", ""):
                        # Listed by --help but refused when run (not built yet): skipped from here on.
                        args.refused.add(mode)
                        args.notes.append(f"--exchange {mode}: skipped, tiergraph refuses it: {result['failed']}")
                    label = f"{graph['name']} {algorithm} {ranks} rank{'s' if ranks > 1 else ''} {system}" + \
                            (f" --exchange {mode}" if mode else "")
                    if "failed" in result:
                        print(f"{label}: failed: {result['failed']}", flush=True)
                    else:
                        print(f"{label} trial {trial}: median {median(result['times'][1:]):.4f} s "
                              f"(first {result['times'][0]:.4f} s, process {result['wall_s']:.1f} s)", flush=True)
            busy1, total1 = busy_ticks()
            own1 = os.times()
            hz = os.sysconf("SC_CLK_TCK")
            # Other processes' share of the CPU: the machine's busy time less this script's children.
            own = (own1.children_user + own1.children_system - own0.children_user - own0.children_system) * hz
            other = max(0.0, (busy1 - busy0 - own) / (total1 - total0)) if total1 > total0 else 0.0
            for (system, mode), results in runs.items():
                if mode in args.refused:
                    continue
                ok = [r for r in results if "failed" not in r]
                failed = next((r["failed"] for r in results if "failed" in r), None)
                timed = [x for r in ok for x in r["times"][1:]]
                rows.append({"graph": graph["name"], "algorithm": algorithm, "ranks": ranks, "system": system,
                             "exchange": mode, "omp_wait": omp_wait(ranks, args),
                             "median_s": median(timed) if timed and not failed else None,
                             "first_run_s": median([r["times"][0] for r in ok]) if ok and not failed else None,
                             "process_s": median([r["wall_s"] for r in ok]) if ok and not failed else None,
                             **{key: median([x for r in ok for x in r[key][1:] if x is not None])
                                for key in ("imbalance", "communication_share")
                                if ok and not failed and all(key in r for r in ok)},
                             "failed": failed, "other_cpu_share": other, "runs": results})
    return rows


def check_answers(graph, rows):
    """Per algorithm: do all runs from the same source (or of the same algorithm, for wcc/pr) agree
    on each answer they both give?"""
    checks = []
    for algorithm in dict.fromkeys(r["algorithm"] for r in rows):
        seen = {}  # (trial, key) -> {who: value}
        for r in rows:
            if r["algorithm"] != algorithm:
                continue
            who = f"{r['system']}@{r['ranks']}" + (f"/{r['exchange']}" if r["exchange"] else "")
            for run in r["runs"]:
                for key, value in run.get("answers", {}).items():
                    seen.setdefault((run["trial"], key), {})[who] = value
        bad = [f"trial {t} {key}: {values}" for (t, key), values in sorted(seen.items())
               if len({round(v, 3) if isinstance(v, float) else v for v in values.values()}) > 1]
        compared = sorted({key for (_, key), values in seen.items() if len(values) > 1})
        if bad:
            checks.append(f"{graph['name']} {algorithm}: DIFFERENT: " + "; ".join(bad))
        elif compared:
            checks.append(f"{graph['name']} {algorithm}: {', '.join(compared)} agree across "
                          f"{', '.join(sorted({w for v in seen.values() for w in v}))}")
    return checks


def run_graphs(args, out):
    for spec in args.graphs.split(","):
        graph = prepare(spec, args)
        if len(graph["sources"]) < args.trials:
            sys.exit(f"{graph['name']}: only {len(graph['sources'])} vertices with out-edges for {args.trials} trials")
        if args.blocks:
            reblock(graph, args.blocks)
        rows = measure(graph, args)
        out["graphs"].append(graph)
        out["rows"] += rows
        out["checks"] += check_answers(graph, rows)
        print("\n".join(table(graph, rows)), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphs", default="kron:22,soc-Slashdot0902",
                    help="kron:S, urand:S, or a dataset name or path [:directed|:undirected]")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--trials", type=int, default=3, help="processes per system per row")
    ap.add_argument("--algorithms", default="bfs,sssp,wcc,pr", help="bfs, sssp, wcc, pr; radii, tc, lcc, cdlp (tiergraph only)")
    ap.add_argument("--exchange", default="collective",
                    help="tiergraph --exchange modes for N > 1 ranks, each with optional settings (see exchange_flags): "
                         "collective,ring:batch=16,accumulate:direction=push")
    ap.add_argument("--pr-iterations", type=int, default=20)
    ap.add_argument("--blocks", type=int, default=0,
                    help="tiergraph reads its files reblocked to this many ranges a side (default: as converted, "
                         "the fewest blocks that fit; 8 suits PageRank on kron-22)")
    ap.add_argument("--threads", type=int, default=0, help="tiergraph's threads per rank (default: all cores)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per process")
    ap.add_argument("--omp-wait", choices=["auto", "passive", "default"], default="auto",
                    help="OMP_WAIT_POLICY for both systems: passive, the OpenMP runtime's default (spin a while, "
                         "then sleep), or auto: passive with more than one rank, the default with one")
    ap.add_argument("--gemini", default=os.environ.get("GEMINI_DIR"), help="Gemini checkout (default: GEMINI_DIR)")
    ap.add_argument("--workdir", default=str(ROOT / "bench" / "work" / "dist"))
    ap.add_argument("--remake", action="store_true", help="prepare the graphs again, ignoring the work folder")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "dist"))
    ap.add_argument("--network", default="local",
                    help="local: every rank on this machine as it is (shared memory); tcp or tcp:RATE (e.g. "
                         "tcp:1gbit): ranks alternate between two network namespaces joined by a veth pair capped "
                         "at RATE, talking TCP (bench/netns.py; needs root)")
    args = ap.parse_args()
    # A TERM (timeout, kill) unwinds like an error, so the network namespaces are taken down.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.network != "local" and not re.fullmatch(r"tcp(:\w+)?", args.network):
        sys.exit(f"--network {args.network}: local, tcp or tcp:RATE")
    args.mpi_prefix, args.mpi_flags = [], []
    args.ranks = [int(x) for x in args.ranks.split(",")]
    args.algorithms = args.algorithms.split(",")
    args.exchange = args.exchange.split(",")
    unknown = set(args.algorithms) - {"bfs", "sssp", "wcc", "pr"} - TIERGRAPH_ONLY
    if unknown:
        sys.exit(f"--algorithms: unknown {sorted(unknown)}")
    if args.trials > 64:
        sys.exit("--trials: at most 64")
    if not shutil.which("mpirun"):
        sys.exit("mpirun not found (Open MPI)")
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    args.notes, args.refused = [], set()
    args.exchange_choices = exchange_choices()
    if args.exchange_choices is None and max(args.ranks) > 1:
        args.notes.append("this tiergraph has no --exchange option: its N-rank runs use its only mode (shown as -)")
    gemini_commit = None
    if args.gemini:
        gemini_commit = build_gemini(args.gemini)
    else:
        args.notes.append("no Gemini checkout (set GEMINI_DIR): Gemini's columns are empty")
    for algorithm in TIERGRAPH_ONLY & set(args.algorithms):
        args.notes.append(f"{algorithm}: tiergraph only (Gemini has no such toolkit)")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    out = {"command": "bench/dist.py " + " ".join(sys.argv[1:]),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
           "commit": commit, "built": time.ctime(os.path.getmtime(tiergraph_bin())), "gemini_commit": gemini_commit,
           "mpirun": MPIRUN, "omp_wait": args.omp_wait, "runs_per_process": RUNS, "load_before": load_average(),
           "graphs": [], "rows": [], "checks": []}
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if args.network != "local":
            rate = args.network.partition(":")[2] or None
            args.mpi_prefix, args.mpi_flags = stack.enter_context(netns.two_hosts(rate, args.workdir))
            link_before = netns.bytes_sent()
        run_graphs(args, out)
        if args.network != "local":
            crossed = netns.bytes_sent() - link_before
            args.notes.append(f"network {args.network}: ranks alternate between two network namespaces joined by a "
                              f"veth pair{' capped at ' + rate if rate else ''} (bench/netns.py), UCX over TCP; "
                              f"{crossed / 1e6:.0f} MB crossed the link from the first namespace in this run")
    out["mpirun"] = args.mpi_prefix + MPIRUN + args.mpi_flags
    out["load_after"] = load_average()
    if time.ctime(os.path.getmtime(tiergraph_bin())) != out["built"]:
        args.notes.append(f"the tiergraph binary was rebuilt during this run (built {out['built']} at the start, "
                          f"{time.ctime(os.path.getmtime(tiergraph_bin()))} at the end): the rows may mix builds")
    out["notes"] = args.notes
    out["total_s"] = time.perf_counter() - start
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    out["plot"] = plot(path, out["rows"], out["graphs"])
    path.with_suffix(".json").write_text(json.dumps(out, indent=1) + "\n")
    text = markdown(args, out)
    path.with_suffix(".md").write_text(text + f"\nTotal time: {out['total_s']:.0f} s.\n")
    print(text)


if __name__ == "__main__":
    main()
