"""bench/dist.py's two systems: launching tiergraph and Gemini under mpirun (the OpenMP wait
policy, timeouts that take the whole process group), tiergraph's --exchange settings, and reading
each system's times and answers from what it printed."""
import glob
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from common import tiergraph_bin
from dist_graphs import SEED

RUNS = 6  # computes per Gemini process (its toolkits' fixed loop); tiergraph --trials matches it
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]
GEMINI_TOOLKIT = {"bfs": "bfs", "sssp": "sssp", "wcc": "cc", "pr": "pagerank"}
TIERGRAPH_ONLY = {"radii", "tc", "lcc", "cdlp"}  # Gemini has no such toolkits
TIERED = re.compile(r":(far|budget|tier)=[^:]*")  # an --exchange entry's tier settings


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
    `ring:slices=8:steal=1` adds --steal too, `collective:far=0.5` adds --far-ratio 0.5 and `collective:budget=1G`
    --memory-budget 1G (each rank under a memory budget, its far blocks read from the file), and
    `collective:far=1:tier=rank` --far rank (each rank's far blocks in a far-memory rank of its
    own: the run starts twice the processes); memory=, direction=, far=, budget= and
    tier= go with any mode, slices= and steal= with ring and accumulate, batch= and hurried= with
    ring only; a plain mode has no extra flags."""
    base, *settings = mode.split(":")
    flags = []
    option = {"memory": "--exchange-memory", "direction": "--direction", "batch": "--ring-batch",
              "hurried": "--ring-hurried", "slices": "--slices", "steal": "--steal",
              "far": "--far-ratio", "budget": "--memory-budget", "tier": "--far"}
    for setting in settings:
        key, _, value = setting.partition("=")
        if not value or key not in option or (key in ("batch", "hurried") and base != "ring") \
                or (key in ("slices", "steal") and base == "collective") or (key == "steal" and value not in "01") \
                or (key == "tier" and value not in ("file", "numa", "rank", "paging")):
            sys.exit(f"--exchange {mode}: the settings are memory=SIZE, direction=push|pull, "
                     "far=RATIO, budget=SIZE, tier=file|numa|rank|paging, for ring and accumulate slices=N and steal=0|1, and for ring batch=N "
                     "and hurried=F")
        if key == "steal":
            flags += [option[key]] if value == "1" else []
        else:
            flags += [option[key], value]
    return base, flags


def answers_from_npy(algorithm, path):
    """What a run's `-o` file (written by rank 0) says that Gemini also prints (cdlp: the
    communities, and a hash of every label, for the rank counts to agree on)."""
    answer = np.load(path)
    values, ids = answer["value"], answer["id"]
    if algorithm == "cdlp":
        return {"communities": int(len(np.unique(values))), "labels_hash": hashlib.sha1(values.tobytes()).hexdigest()}
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
        if algorithm in ("bfs", "sssp", "pr", "cdlp"):
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
        answers = {k: summary[k] for k in ("levels", "delta", "components", "iterations", "triangles", "average")
                   if k in summary}
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
