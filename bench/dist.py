#!/usr/bin/env python3
"""Distributed execution over MPI ranks (issue 13): tiergraph against Gemini on the same graphs,
the same ranks, the same sources and the same weights.

Gemini (github.com/thu-pacman/GeminiGraph, OSDI '16) is the peer: a checkout named by GEMINI_DIR
(or --gemini); this script runs `make` there first. Its toolkits are bfs, sssp, cc and pagerank
(radii runs on tiergraph alone). Without a Gemini checkout its columns are left empty.

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
import glob
import gzip
import io
import json
import lzma
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import netns
from common import ROOT, datasets_dir, median, tiergraph_bin

SEED = 27491095  # tiergraph's default seed; also the weights' and the sources' here
RUNS = 6  # computes per Gemini process (its toolkits' fixed loop); tiergraph --trials matches it
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]
GEMINI_TOOLKIT = {"bfs": "bfs", "sssp": "sssp", "wcc": "cc", "pr": "pagerank"}
EDGE = np.dtype([("src", "<u4"), ("dst", "<u4")])
WEIGHTED_EDGE = np.dtype([("src", "<u4"), ("dst", "<u4"), ("weight", "<f4")])


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


def launcher(ranks, args):
    """mpirun's command line for N ranks, and the environment with the OpenMP wait policy for them.
    Both systems' threads are OpenMP threads, which spin for a while when they wait; every rank
    starts one per core, so with several ranks the spinning threads take the cores from the working
    ones (Gemini's BFS on kron-16 here: about 0.1 s per run with 2 ranks under OMP_WAIT_POLICY=passive,
    1 s without; 0.2 s and 2.5 s with 4), while with one rank sleeping threads only cost a wake-up
    per parallel region. (Open MPI's mpi_yield_when_idle made no difference.)"""
    passive = args.omp_wait == "passive" or (args.omp_wait == "auto" and ranks > 1)
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if passive:
        env["OMP_WAIT_POLICY"] = "passive"
    return (args.mpi_prefix + MPIRUN + args.mpi_flags + (["-x", "OMP_WAIT_POLICY"] if passive else [])
            + ["-np", str(ranks)], env)


def omp_wait(ranks, args):
    return "passive" if launcher(ranks, args)[1].get("OMP_WAIT_POLICY") else "default"


def run_process(cmd, timeout, env):
    """Runs cmd in its own process group: (return code or None on timeout, stdout, stderr, wall s).
    On timeout the whole group goes (mpirun's ranks spin; killing mpirun alone can orphan them)."""
    start = time.perf_counter()
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, time.perf_counter() - start
    except subprocess.TimeoutExpired:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, None)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                out, err = proc.communicate(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            out, err = proc.communicate()
        return None, out or "", err or "", time.perf_counter() - start


def first_error_line(*texts):
    """The first line that says something: Open MPI's banners (dashes, 'Primary job terminated...')
    pushed aside, since with several ranks it may hide the real error behind them."""
    noise = re.compile(r"^(-+|=+|\s*|Primary job .*|mpirun (noticed|detected) .*|\[.*\] \*\*\*.*)$")
    lines = [ln.strip() for t in texts for ln in t.splitlines()]
    return next((ln for ln in lines if not noise.match(ln)), lines[0] if lines else "no output")


# ---- graphs ----------------------------------------------------------------------------------------
def read_edge_list(path):
    """(src, dst, header fields) of a text edge list, decompressed on the fly. Comment lines (#, %, c)
    and a CSV header are skipped; a DIMACS `a` is dropped; other columns (weights, CEDGE's leading
    edge id) are ignored. METIS adjacency files would read as nonsense here: refused."""
    if ".graph" in path.suffixes:
        sys.exit(f"{path.name}: METIS adjacency files are not read here; give an edge list")
    columns = [1, 2] if ".cedge" in path.suffixes else [0, 1]
    opener = lzma.open if path.suffix == ".xz" else gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        lines = f.read().splitlines()
    header = next((ln.split() for ln in lines if ln.startswith("p ")), [])
    rows = [ln[2:] if ln.startswith("a ") else ln for ln in lines if ln and ln[0] not in "#%cp"]
    if rows and not rows[0].lstrip()[:1].isdigit():
        rows = rows[1:]  # a CSV header
    sep = "," if "," in rows[0] else r"\s+"
    frame = pd.read_csv(io.StringIO("\n".join(rows)), sep=sep, header=None, usecols=columns, dtype=np.int64,
                        engine="c")
    return frame[columns[0]].to_numpy(), frame[columns[1]].to_numpy(), header


def read_text_pairs(path):
    """The two id columns of a space-separated edge list (tiergraph's own .el output)."""
    frame = pd.read_csv(path, sep=" ", header=None, usecols=[0, 1], dtype=np.int64, engine="c")
    return frame[0].to_numpy(), frame[1].to_numpy()


def unique_pairs(u, v, n, directed):
    """Self-loops and duplicates dropped; an undirected edge once, as (lo, hi). (Sorted keys rather
    than np.unique, which is slow on tens of millions of keys with numpy 2.x.)"""
    keep = u != v
    u, v = u[keep], v[keep]
    if not directed:
        u, v = np.minimum(u, v), np.maximum(u, v)
    key = np.sort(u * n + v)
    key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    return key // n, key % n


def write_text_edges(path, u, v, w):
    pd.DataFrame({"u": u, "v": v, "w": w}).to_csv(path, sep=" ", header=False, index=False, chunksize=1 << 22)


def graph_spec(spec):
    """(name, kind, argument, directed or None) of a --graphs entry."""
    m = re.fullmatch(r"(kron|urand):(\d+)", spec)
    if m:
        return f"{m[1]}{m[2]}", m[1], int(m[2]), False
    base, _, flag = spec.partition(":")
    if flag not in ("", "directed", "undirected"):
        sys.exit(f"--graphs: {spec}: the suffix is :directed or :undirected")
    path = Path(base)
    if not path.exists():
        found = sorted(datasets_dir().glob(base + "*"))
        if not found:
            sys.exit(f"--graphs: no file {base} here or in {datasets_dir()}")
        path = found[0]
    name = re.sub(r"\.(txt|csv|tsv|el|gr|graph|cedge)?(\.(xz|gz|zst))?$", "", path.name)
    return name, "file", path, None if not flag else flag == "directed"


def prepare(spec, args):
    """The graph's files for both systems, made once into WORKDIR/NAME/ (meta.json last, so an
    interrupted preparation is redone): plain.tg, weighted.tg, gemini.el, gemini.wel, gemini-cc.el."""
    name, kind, arg, directed = graph_spec(spec)
    work = Path(args.workdir) / name
    meta_path = work / "meta.json"
    if meta_path.exists() and not args.remake:
        return json.loads(meta_path.read_text())
    work.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    labels = None
    threads = ["-t", str(args.threads)] if args.threads else []
    if kind == "file":
        u, v, header = read_edge_list(arg)
        if directed is None:
            directed = not (header[1:2] == ["tw"] or ".cedge" in arg.suffixes or "undirected" in arg.name)
        labels, inverse = np.unique(np.concatenate([u, v]), return_inverse=True)
        u, v, n = inverse[:len(u)], inverse[len(u):], len(labels)
        origin = f"{arg.name}, ids renumbered 0..{n - 1} in increasing order of the original ids"
    else:
        text = work / "generated.el"
        subprocess.run([tiergraph_bin(), "-q", "generate", "-g" if kind == "kron" else "-u", str(arg), "-s", "-o",
                        str(text), "--overwrite", *threads], check=True)
        u, v = read_text_pairs(text)
        text.unlink()
        n, directed = 1 << arg, False
        origin = f"`tiergraph generate {'-g' if kind == 'kron' else '-u'} {arg} -s` (edge factor 16, seed {SEED}), " \
                 "ids kept"
    u, v = unique_pairs(u, v, n, directed)
    w = np.random.default_rng(SEED).integers(1, 256, size=len(u))
    # tiergraph: the same edges and weights, ids as vertex indices (no relabelling).
    text = work / "edges.wel"
    write_text_edges(text, u, v, w)
    base = [tiergraph_bin(), "-q", "convert", str(text), "--format", "edgelist", "--ids", "index", "--vertices",
            str(n), "--overwrite", *threads, *([] if directed else ["-s"])]
    subprocess.run(base + ["--columns", "0,1", "-o", str(work / "plain.tg")], check=True)
    subprocess.run(base + ["--columns", "0,1,2", "-o", str(work / "weighted.tg")], check=True)
    text.unlink()
    # Gemini: arcs both ways for an undirected graph (its bfs, sssp and pagerank load the file as
    # directed), each edge once for cc (which adds the reverse of every edge it reads).
    src, dst, wt = (u, v, w) if directed else (np.concatenate([u, v]), np.concatenate([v, u]), np.concatenate([w, w]))
    plain = np.empty(len(src), EDGE)
    plain["src"], plain["dst"] = src, dst
    plain.tofile(work / "gemini.el")
    weighted = np.empty(len(src), WEIGHTED_EDGE)
    weighted["src"], weighted["dst"], weighted["weight"] = src, dst, wt
    weighted.tofile(work / "gemini.wel")
    del plain, weighted
    cc = "gemini.el"
    if not directed:
        once = np.empty(len(u), EDGE)
        once["src"], once["dst"] = u, v
        once.tofile(work / "gemini-cc.el")
        cc = "gemini-cc.el"
    # Sources: seeded vertices with out-edges, one per trial (64 kept; --trials takes the first).
    out_degree = np.bincount(src, minlength=n)
    candidates = np.flatnonzero(out_degree)
    sources = np.random.default_rng(SEED + 1).choice(candidates, size=min(64, len(candidates)), replace=False)
    meta = {"name": name, "spec": spec, "origin": origin, "directed": directed, "vertices": int(n),
            "edges": int(len(u)), "arcs": int(len(src)), "isolated": int(n - len(np.flatnonzero(
                np.bincount(np.concatenate([src, dst]), minlength=n)))),
            "sources": [int(s) for s in sources],
            "source_labels": [int(labels[s]) for s in sources] if labels is not None else None,
            "files": {"plain": str(work / "plain.tg"), "weighted": str(work / "weighted.tg"),
                      "gemini": str(work / "gemini.el"), "gemini_weighted": str(work / "gemini.wel"),
                      "gemini_cc": str(work / cc)},
            "prepare_s": time.perf_counter() - start}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{name}: {n} vertices, {meta['edges']} {'arcs' if directed else 'edges'} "
          f"({meta['prepare_s']:.0f} s to prepare)", flush=True)
    return meta


# ---- the two systems ---------------------------------------------------------------------------------
def exchange_choices():
    """The --exchange modes `tiergraph run --help` lists, or None if it has no such option."""
    text = subprocess.run([tiergraph_bin(), "run", "--help"], stdout=subprocess.PIPE, text=True).stdout
    if "--exchange" not in text:
        return None
    m = re.search(r"--exchange\s+\S*\{([^}]*)\}", text)
    return m[1].split(",") if m else []


def exchange_flags(mode):
    """(base mode, extra flags) of an --exchange entry: `ring:batch=16:hurried=0.5:memory=64K` is
    --exchange ring --ring-batch 16 --ring-hurried 0.5 --exchange-memory 64K (E5's sweeps),
    `accumulate:direction=push` adds --direction push (E6), `ring:slices=8` adds --slices 8 (each
    push pass sent in 8 slices, overlapping communication with computation) and
    `ring:slices=8:steal=1` adds --steal too, `collective:direction=push:barrier=strict` adds
    --barrier strict (E6: PageRank's apply and next gather with every rank's apply first, against
    the relaxed default), `collective:far=0.5` adds --far-ratio 0.5 and `collective:budget=1G`
    --memory-budget 1G (each rank under a memory budget, its far blocks read from the file), and
    `collective:far=1:tier=rank` --far rank (each rank's far blocks in a far-memory rank of its
    own: the run starts twice the processes); memory=, direction=, barrier=, far=, budget= and
    tier= go with any mode, slices= and steal= with ring and accumulate, batch= and hurried= with
    ring only; a plain mode has no extra flags."""
    base, *settings = mode.split(":")
    flags = []
    option = {"memory": "--exchange-memory", "direction": "--direction", "batch": "--ring-batch",
              "hurried": "--ring-hurried", "slices": "--slices", "steal": "--steal", "barrier": "--barrier",
              "far": "--far-ratio", "budget": "--memory-budget", "tier": "--far"}
    for setting in settings:
        key, _, value = setting.partition("=")
        if not value or key not in option or (key in ("batch", "hurried") and base != "ring") \
                or (key in ("slices", "steal") and base == "collective") or (key == "steal" and value not in "01") \
                or (key == "barrier" and value not in ("relaxed", "strict")) \
                or (key == "tier" and value not in ("file", "numa", "rank", "paging")):
            sys.exit(f"--exchange {mode}: the settings are memory=SIZE, direction=push|pull, barrier=relaxed|strict, "
                     "far=RATIO, budget=SIZE, tier=file|numa|rank|paging, for ring and accumulate slices=N and steal=0|1, and for ring batch=N "
                     "and hurried=F")
        if key == "steal":
            flags += [option[key]] if value == "1" else []
        else:
            flags += [option[key], value]
    return base, flags


def answers_from_npy(algorithm, path):
    """What a run's `-o` file (written by rank 0) says that Gemini also prints."""
    answer = np.load(path)
    values, ids = answer["value"], answer["id"]
    if algorithm == "pr":
        return {"top_vertex": int(ids[np.argmax(values)])}
    finite = values[np.isfinite(values) & (values < np.iinfo(np.int64).max)] if values.dtype.kind == "f" \
        else values[values < np.iinfo(np.int64).max]
    if algorithm == "bfs":
        return {"reached": int(len(finite))}
    return {"farthest": float(finite.max())}


def run_tiergraph(graph, algorithm, ranks, mode, source, trial, args):
    """One tiergraph process: {"times": [...], "answers": {...}, "wall_s"} or {"failed": why}."""
    path = graph["files"]["weighted" if algorithm == "sssp" else "plain"]
    flags = ["--json", "-q", "--trials", str(RUNS)]
    if algorithm in ("bfs", "sssp"):
        flags += ["--source", str(source)]
    elif algorithm == "pr":
        flags += ["-i", str(args.pr_iterations)]
    elif algorithm == "radii":
        flags += ["--seed", str(SEED + trial)]
    if args.threads:
        flags += ["-t", str(args.threads)]
    if mode:
        base, extra = exchange_flags(mode)
        flags += ["--exchange", base, *extra]
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        npy = Path(tmp) / "answer.npy"
        if algorithm in ("bfs", "sssp", "pr"):
            flags += ["-o", str(npy)]  # rank 0 writes every rank count's answer, as one rank does
        far_ranks = "--far" in flags and flags[flags.index("--far") + 1] == "rank"
        mpirun, env = launcher(2 * ranks if far_ranks else ranks, args)  # rank N + r serves rank r
        cmd = mpirun + ["--output-filename", str(Path(tmp) / "out"), tiergraph_bin(), "run", algorithm, path] + flags
        rc, out, err, wall = run_process(cmd, args.timeout, env)
        per_rank = {}
        for f in glob.glob(str(Path(tmp) / "out" / "*" / "rank.*" / "stdout")):
            rank = int(Path(f).parent.name.split(".")[1])
            per_rank[rank] = (Path(f).read_text(), (Path(f).parent / "stderr").read_text())
        if rc is None:
            return {"failed": f"timeout after {args.timeout} s"}
        if rc != 0:
            errors = [per_rank[r][1] for r in sorted(per_rank)] + [err, out]
            return {"failed": first_error_line(*errors)}
        reports = {}
        for rank, (text, _) in per_rank.items():
            if text.strip():
                try:
                    reports[rank] = json.loads(text)
                except json.JSONDecodeError as e:
                    return {"failed": f"rank {rank} printed something that is not one JSON report ({e})"}
        if 0 not in reports:
            return {"failed": "rank 0 printed no report"}
        report = reports[0]
        said = rank_count(report)
        if ranks > 1 and said is None and len(reports) == ranks:
            return {"failed": f"not distributed: each of the {ranks} ranks ran the whole graph and printed its "
                              "own report"}
        if ranks > 1 and said is not None and said != ranks:
            return {"failed": f"the report says {said} ranks, not {ranks}"}
        trials = report.get("trials") or []
        times = [t.get("seconds") for t in trials]
        if len(times) != RUNS or any(not isinstance(x, (int, float)) for x in times):
            return {"failed": f"expected {RUNS} trials with seconds, got {len(times)}"}
        summary = trials[-1].get("summary") or {}
        answers = {k: summary[k] for k in ("levels", "delta", "components", "iterations") if k in summary}
        if npy.exists():
            answers.update(answers_from_npy(algorithm, npy))
        return {"times": times, "answers": answers, "wall_s": wall, "threads": report.get("threads"),
                "exchange": report.get("exchange"), **rank_details(trials)}


def rank_details(trials):
    """What an N-rank report says per rank, read defensively (its fields are new): each trial's
    `ranks` list without the per-pass lists, its `imbalance`, and the share of the trial that the
    busiest rank spent communicating."""
    out = {}
    if all(isinstance(t.get("ranks"), list) for t in trials):
        out["per_rank"] = [[{**{k: v for k, v in r.items() if k != "passes"},
                             **{k: sum(p.get(k) or 0 for p in r.get("passes") or [])
                                for k in ("updates_sent", "updates_sent_early", "slices_stolen", "updates_held")}}
                            for r in t["ranks"] if isinstance(r, dict)]
                           for t in trials]
        comm = [max((r.get("communication_seconds") or 0 for r in t["ranks"] if isinstance(r, dict)), default=None)
                for t in trials]
        if all(isinstance(c, (int, float)) for c in comm):
            out["communication_share"] = [c / t["seconds"] if t["seconds"] else None for c, t in zip(comm, trials)]
    if all(isinstance(t.get("imbalance"), (int, float)) for t in trials):
        out["imbalance"] = [t["imbalance"] for t in trials]
    return out


def rank_count(report):
    """How many ranks a report says it ran on, if it says (the field's name is not settled yet)."""
    for key in ("ranks", "world_size", "num_ranks", "processes", "mpi_ranks", "per_rank"):
        value = report.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, list):
            return len(value)
        if isinstance(value, dict) and isinstance(value.get("count", value.get("size")), int):
            return value.get("count", value.get("size"))
    return None


def run_gemini(graph, algorithm, ranks, source, args):
    """One Gemini process: {"times": [...], "answers": {...}, "wall_s"} or {"failed": why}."""
    files = graph["files"]
    toolkit = GEMINI_TOOLKIT[algorithm]
    argv = {"bfs": [files["gemini"], graph["vertices"], source],
            "sssp": [files["gemini_weighted"], graph["vertices"], source],
            "wcc": [files["gemini_cc"], graph["vertices"]],
            "pr": [files["gemini"], graph["vertices"], args.pr_iterations]}[algorithm]
    mpirun, env = launcher(ranks, args)
    rc, out, err, wall = run_process(mpirun + [Path(args.gemini) / "toolkits" / toolkit, *argv], args.timeout, env)
    if rc is None:
        return {"failed": f"timeout after {args.timeout} s"}
    if rc != 0:
        return {"failed": first_error_line(err, out)}
    times = [float(x) for x in re.findall(r"^exec_time=([0-9.eE+-]+)\(s\)", out, re.M)]
    if len(times) != RUNS:
        return {"failed": f"expected {RUNS} exec_time lines, got {len(times)}"}
    answers = {}
    for pattern, key, cast in ((r"^found_vertices = (\d+)", "reached", int),
                               (r"^distance\[\d+\]=([0-9.]+)", "farthest", float),
                               (r"^components = (\d+)", "components", int),
                               (r"^pr\[(\d+)\]=", "top_vertex", int)):
        found = re.findall(pattern, out, re.M)
        if found:
            answers[key] = cast(found[-1])
    return {"times": times, "answers": answers, "wall_s": wall}


def build_gemini(path):
    """`make` in the Gemini checkout, after the one fix it needs to run at all with GCC 11 or newer:
    `dealloc_vertex_array` is declared to return T * and returns nothing, which -O3 turns into a
    crash when a toolkit frees its arrays (upstream issue #31; the fix is the one given there)."""
    header = Path(path) / "core" / "graph.hpp"
    text = header.read_text()
    if "T * dealloc_vertex_array(T * array)" in text:
        header.write_text(text.replace("T * dealloc_vertex_array(T * array)", "void dealloc_vertex_array(T * array)"))
        print(f"patched {header}: dealloc_vertex_array returns void (upstream issue #31)", flush=True)
    subprocess.run(["make", "-C", str(path), "-j2"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    git = ["git", "-C", str(path)]
    commit = subprocess.run(git + ["rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE, text=True).stdout.strip()
    changed = subprocess.run(git + ["diff", "--name-only"], stdout=subprocess.PIPE, text=True).stdout.split()
    return (commit or "unknown") + (f" (changed here: {', '.join(changed)})" if changed else "")


# ---- measuring -------------------------------------------------------------------------------------
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


# ---- reporting -------------------------------------------------------------------------------------
def fmt(x, digits=4):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def table(graph, rows):
    """One line per (algorithm, ranks, exchange mode): tiergraph, Gemini, their ratio, and each
    system's time against its own 1-rank time."""
    lines = ["| algorithm | ranks | exchange | OMP wait | tiergraph s | Gemini s | Gemini / tiergraph | "
             "tiergraph t(N)/t(1) | Gemini t(N)/t(1) | tiergraph imbalance | tiergraph communication | "
             "other processes' CPU |",
             "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    one = {(r["algorithm"], r["system"]): r["median_s"] for r in rows if r["ranks"] == 1 and not r.get("exchange")}
    for algorithm in dict.fromkeys(r["algorithm"] for r in rows):
        for ranks in dict.fromkeys(r["ranks"] for r in rows):
            group = [r for r in rows if r["algorithm"] == algorithm and r["ranks"] == ranks]
            gemini = next((r for r in group if r["system"] == "gemini"), None)
            for tg in [r for r in group if r["system"] == "tiergraph"]:
                t = tg["median_s"]
                g = gemini["median_s"] if gemini else None
                cells = [algorithm, str(ranks), tg["exchange"] or "-", tg["omp_wait"],
                         f"failed: {tg['failed']}" if tg["failed"] else fmt(t),
                         "-" if not gemini else f"failed: {gemini['failed']}" if gemini["failed"] else fmt(g),
                         fmt(g / t if g and t else None, 2),
                         fmt(t / one[(algorithm, "tiergraph")] if t and one.get((algorithm, "tiergraph")) else None, 2),
                         fmt(g / one[(algorithm, "gemini")] if g and one.get((algorithm, "gemini")) else None, 2),
                         fmt(tg.get("imbalance"), 2),
                         "-" if tg.get("communication_share") is None else f"{100 * tg['communication_share']:.0f}%",
                         f"{100 * tg['other_cpu_share']:.0f}%"]
                lines.append("| " + " | ".join(cells) + " |")
    return lines


EXCHANGE_NOTE = (
    "Per N-rank tiergraph row: the time, the communication memory each rank held at its peak (the "
    "report's `communication_buffer_peak_bytes`, the busiest rank), and what its rings did (summed over "
    "ranks, median over the timed runs). `full mesh` is what per-thread rings between every sending and "
    "every receiving thread would hold with the same slots and batch: threads² times ours, since we keep "
    "one ring per peer, filled from what the rank's threads combined. It is computed, not run. `sent early`: "
    "the share of the updates sent (all ranks) that left before their pass's last slice was computed "
    "(`slices=N`: overlapped with computation); `stolen`: slices ranks took from their peers (`steal=1`, "
    "summed over ranks, median over runs); `wait`: the busiest waiter's seconds waiting at exchanges.")


def exchange_table(rows):
    """E5 in Nezha's shape (its Tables 6, 10 and 11): one line per N-rank tiergraph row (EXCHANGE_NOTE)."""
    lines = ["| exchange | algorithm | ranks | s | t(N)/t(1) | buffer peak / rank | ring slots x batch | "
             "ring batches | hurried | full waits | full mesh / rank | ours / full mesh | stolen | sent early | wait |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    one = {r["algorithm"]: r["median_s"] for r in rows if r["ranks"] == 1 and r["system"] == "tiergraph" and not r["exchange"]}
    for r in rows:
        if r["system"] != "tiergraph" or r["ranks"] == 1 or r["failed"]:
            continue
        ok = [run for run in r["runs"] if "per_rank" in run]
        timed = [ranks for run in ok for ranks in run["per_rank"][1:]]
        if not timed:
            continue
        peak = max(x.get("communication_buffer_peak_bytes") or 0 for ranks in timed for x in ranks)
        ring = [[x["ring"] for x in ranks if "ring" in x] for ranks in timed]
        cells = [r["exchange"], r["algorithm"], str(r["ranks"]), fmt(r["median_s"]),
                 fmt(r["median_s"] / one[r["algorithm"]] if one.get(r["algorithm"]) else None, 2),
                 f"{peak / 1024:.0f} KiB"]
        if all(ring):
            first = ring[0][0]
            threads = ok[0].get("threads") or 1
            mesh = threads * threads * first["bytes"]
            cells += [f"{first['slots']} x {first['batch_records']}",
                      *(f"{median([sum(x[key] for x in ranks) for ranks in ring]):.0f}"
                        for key in ("batches", "hurried_batches", "full_waits")),
                      f"{mesh / 1024:.0f} KiB ({threads} threads)", f"1/{mesh / first['bytes']:.0f}"]
        else:
            cells += ["-"] * 6
        cells.append(f"{median([sum(x.get('slices_stolen') or 0 for x in ranks) for ranks in timed]):.0f}")
        sent = sum(x.get("updates_sent") or 0 for ranks in timed for x in ranks)
        early = sum(x.get("updates_sent_early") or 0 for ranks in timed for x in ranks)
        cells.append(f"{100 * early / sent:.0f}%" if sent else "-")
        cells.append(fmt(median([max(x.get("wait_seconds") or 0 for x in ranks) for ranks in timed])))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


BARRIER_NOTE = (
    "Each mode run with `barrier=strict` beside the same mode without it (the relaxed default): "
    "PageRank's apply of iteration i and push of i + 1 with every rank's apply ended first, against "
    "each rank applying a master just before pushing it (GraCXL's relaxed barrier). strict / relaxed "
    "> 1: relaxing is faster. `wait`: the busiest waiter's seconds waiting at exchanges (median over "
    "the timed runs).")


BUDGET_NOTE = (
    "Each mode run with `far=R` (--far-ratio) or `budget=SIZE` (--memory-budget) beside the same mode "
    "without it: every rank plans its own budget for the block rows of its masters and reads its far "
    "blocks from the graph file (O_DIRECT through io_uring), or with `tier=rank` from a far-memory rank "
    "of its own (MPI_Rget; N ranks start 2N processes), as they arrive, block-major; on one rank the "
    "same options make a plain run under a budget. `tiered t(N)/t(1)`: N tiered ranks over one tiered "
    "process. `far share`: "
    "the largest rank's far bytes over the bytes of its rows' blocks; `fetched / rank / trial`: the "
    "bytes the busiest rank read from its far tier, per trial; `peak RSS / rank`: the largest rank's "
    "(a budget promises at most the budget plus 64 MiB for the runtime, MPI's included).")


TIERED = re.compile(r":(far|budget|tier)=[^:]*")


def budget_table(rows):
    """Ranks under a memory budget: one line per mode that was also run with far= or budget= (BUDGET_NOTE)."""
    lines = ["| exchange | algorithm | ranks | all local s | tiered s | tiered / all local | tiered t(N)/t(1) | "
             "far share | fetched / rank / trial | peak RSS / rank |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    mine = [r for r in rows if r["system"] == "tiergraph" and not r["failed"]]
    for tiered in [r for r in mine if r["exchange"] and TIERED.search(r["exchange"])]:
        mode = TIERED.sub("", tiered["exchange"]) if tiered["ranks"] > 1 else None  # one process: the plain row
        local = next((r for r in mine if r["exchange"] == mode and r["algorithm"] == tiered["algorithm"]
                      and r["ranks"] == tiered["ranks"]), None)
        one = next((r for r in mine if r["exchange"] == tiered["exchange"] and r["algorithm"] == tiered["algorithm"]
                    and r["ranks"] == 1), None)
        runs = [run["per_rank"] for run in tiered["runs"] if run.get("per_rank")]
        if not local:
            continue
        ranks = runs[-1][-1] if runs else []  # the last trial's ranks: the stores' counters since the run began
        plans = [x["plan"] for x in ranks if "plan" in x]
        share = max((p["far_bytes"] / (p["far_bytes"] + p["local_bytes"]) for p in plans
                     if p["far_bytes"] + p["local_bytes"]), default=None)
        fetched = max((x["store"].get("bytes_fetched") or 0 for x in ranks if "store" in x), default=None)
        peak = max((x.get("peak_rss_bytes") or 0 for x in ranks), default=None)
        lines.append("| " + " | ".join([tiered["exchange"], tiered["algorithm"], str(tiered["ranks"]),
                                         fmt(local["median_s"]), fmt(tiered["median_s"]),
                                         fmt(tiered["median_s"] / local["median_s"], 2),
                                         fmt(tiered["median_s"] / one["median_s"] if one else None, 2), fmt(share, 2),
                                         "-" if fetched is None else f"{fetched / len(runs[-1]) / 2**20:.0f} MiB",
                                         "-" if not peak else f"{peak / 2**20:.0f} MiB"]) + " |")
    return lines if len(lines) > 2 else []


def barrier_table(rows):
    """E6's relaxed barrier: one line per mode that was also run with barrier=strict (BARRIER_NOTE)."""
    lines = ["| exchange | algorithm | ranks | relaxed s | strict s | strict / relaxed | relaxed wait | strict wait |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]

    def wait(r):
        timed = [ranks for run in r["runs"] if "per_rank" in run for ranks in run["per_rank"][1:]]
        return median([max(x.get("wait_seconds") or 0 for x in ranks) for ranks in timed]) if timed else None

    mine = [r for r in rows if r["system"] == "tiergraph" and r["exchange"] and not r["failed"]]
    for strict in [r for r in mine if ":barrier=strict" in r["exchange"]]:
        mode = strict["exchange"].replace(":barrier=strict", "")
        relaxed = next((r for r in mine if r["exchange"] == mode and r["algorithm"] == strict["algorithm"]
                        and r["ranks"] == strict["ranks"]), None)
        if not relaxed:
            continue
        lines.append("| " + " | ".join([mode, strict["algorithm"], str(strict["ranks"]), fmt(relaxed["median_s"]),
                                         fmt(strict["median_s"]), fmt(strict["median_s"] / relaxed["median_s"], 2),
                                         fmt(wait(relaxed)), fmt(wait(strict))]) + " |")
    return lines if len(lines) > 2 else []


def plot(out, rows, graphs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return None
    algorithms = list(dict.fromkeys(r["algorithm"] for r in rows))
    fig, axes = plt.subplots(len(graphs), len(algorithms), figsize=(3.2 * len(algorithms), 2.8 * len(graphs)),
                             squeeze=False)
    for i, graph in enumerate(graphs):
        for j, algorithm in enumerate(algorithms):
            ax = axes[i][j]
            series = {}
            mine = [r for r in rows if r["graph"] == graph["name"] and r["algorithm"] == algorithm and r["median_s"]]
            # tiergraph's 1-rank run has no exchange mode: it starts the line of every mode.
            modes = sorted({r["exchange"] for r in mine if r["system"] == "tiergraph" and r["exchange"]}) or [None]
            for r in mine:
                if r["system"] == "gemini":
                    series.setdefault("Gemini", []).append((r["ranks"], r["median_s"]))
                    continue
                for mode in [r["exchange"]] if r["exchange"] else modes:
                    label = "tiergraph" + (f" ({mode})" if mode else "")
                    series.setdefault(label, []).append((r["ranks"], r["median_s"]))
            for label, points in series.items():
                xs, ys = zip(*sorted(points))
                ax.plot(xs, ys, marker="o", label=label)
            ax.set_yscale("log")
            ax.set_xticks(sorted({r["ranks"] for r in rows}))
            ax.set_title(f"{graph['name']} {algorithm}", fontsize=9)
            ax.set_xlabel("ranks", fontsize=8)
            if j == 0:
                ax.set_ylabel("median seconds", fontsize=8)
            if series:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{out}.png", dpi=110)
    return f"{out}.png"


def markdown(args, out):
    lines = ["# Distributed execution over MPI ranks: tiergraph against Gemini", "",
             f"Command: `{out['command']}`", "",
             f"Machine: {out['machine']}; load average before {out['load_before']}, after {out['load_after']}. "
             f"tiergraph {out['commit']} (binary built {out['built']}); Gemini "
             f"{out['gemini_commit'] or 'not run (no GEMINI_DIR)'}. "
             f"`{' '.join(out['mpirun'])} -np N`; {args.trials} trial{'s' if args.trials > 1 else ''} per row, each one process per "
             f"system from the same source (who goes first rotates), {RUNS} computes per process, the first a "
             f"warm-up: medians of the other {RUNS - 1} of every trial.", "",
             "Ratio Gemini / tiergraph > 1: tiergraph faster. t(N)/t(1): a system's median with N ranks over its "
             "own with 1 (below 1: faster with more ranks). tiergraph imbalance: its report's `imbalance` "
             "(median per trial); communication: the busiest rank's `communication_seconds` over the trial's "
             "seconds. tiergraph's time is its kernel time "
             "(`trials[].seconds`); Gemini's is `exec_time`, which also counts allocating and filling its "
             "vertex arrays. PageRank: exactly "
             f"{args.pr_iterations} iterations on both. SSSP: the same integer weights in [1, 255] on both "
             "(float32 in Gemini's file). Both use every core in each rank (Gemini cannot be told otherwise): "
             f"with more ranks than the machine's {os.cpu_count()} cores both oversubscribe it, and their OpenMP "
             "threads spin while they wait unless OMP_WAIT_POLICY=passive (the OMP wait column; --omp-wait "
             f"{args.omp_wait}).", ""]
    for graph in out["graphs"]:
        lines += [f"## {graph['name']}", "",
                  f"{graph['vertices']} vertices ({graph['isolated']} without edges), {graph['edges']} "
                  f"{'arcs' if graph['directed'] else 'undirected edges'} ({graph['arcs']} arcs in Gemini's file); "
                  f"from {graph['origin']}. Sources: {graph['sources'][:args.trials]}"
                  + (f" (original ids {graph['source_labels'][:args.trials]})" if graph["source_labels"] else "")
                  + ".", ""]
        lines += table(graph, [r for r in out["rows"] if r["graph"] == graph["name"]]) + [""]
        if any(r["exchange"] for r in out["rows"] if r["graph"] == graph["name"]):
            lines += [f"### {graph['name']}: the exchanges (E5)", "", EXCHANGE_NOTE, "",
                      *exchange_table([r for r in out["rows"] if r["graph"] == graph["name"]]), ""]
        barrier = barrier_table([r for r in out["rows"] if r["graph"] == graph["name"]])
        if barrier:
            lines += [f"### {graph['name']}: relaxed against strict barrier (E6)", "", BARRIER_NOTE, "", *barrier, ""]
        budget = budget_table([r for r in out["rows"] if r["graph"] == graph["name"]])
        if budget:
            lines += [f"### {graph['name']}: ranks under a memory budget", "", BUDGET_NOTE, "", *budget, ""]
    lines += ["## Checks", ""] + [f"- {c}" for c in out["checks"]] + [""]
    if out["notes"]:
        lines += ["## Notes", ""] + [f"- {n}" for n in out["notes"]] + [""]
    if out.get("plot"):
        lines += [f"Plot: `{Path(out['plot']).name}` (median seconds by ranks, log scale).", ""]
    return "\n".join(lines)


def reblock(graph, blocks):
    """tiergraph's files rewritten on a blocks x blocks grid (`tiergraph reblock`), made once and
    kept beside the others; the runs read those instead."""
    for kind in ("plain", "weighted"):
        source = Path(graph["files"][kind])
        target = source.with_name(f"{source.stem}-b{blocks}.tg")
        if not target.exists():
            subprocess.run([tiergraph_bin(), "-q", "reblock", str(source), "--blocks", str(blocks), "-o", str(target)],
                           check=True)
        graph["files"][kind] = str(target)
    graph["origin"] += f"; tiergraph reads it reblocked to a {blocks}x{blocks} grid (`tiergraph reblock --blocks {blocks}`)"


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
    ap.add_argument("--algorithms", default="bfs,sssp,wcc,pr", help="bfs, sssp, wcc, pr; radii (tiergraph only)")
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
    unknown = set(args.algorithms) - {"bfs", "sssp", "wcc", "pr", "radii"}
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
    if "radii" in args.algorithms:
        args.notes.append("radii: tiergraph only (Gemini has no such toolkit)")
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
