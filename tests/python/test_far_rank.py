"""The far-memory rank tier: under `mpirun -np 2 tiergraph run ... --far rank`, rank 1 holds the far
blocks in an MPI window and rank 0 reads them: in place where the window is shared memory (the
two on one machine), else, or with --far-rank-copy, with one-sided MPI_Rget (on N computing ranks,
`-np 2N`: rank N + r serves rank r; test_dist_budget.py runs those). Every algorithm gives the
all-local answer read in place and copied over shared memory (osc sm), and over UCX on TCP; a run without a far rank for
each computing rank says how to start them; an error on any rank, or a far rank that dies, ends
the job with a non-zero exit instead of a hang."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

import graphfile
from checked_build import first_under_sanitizers
from same_answer import assert_same_answer, convert_datasets

MPIRUN = shutil.which("mpirun")
pytestmark = pytest.mark.skipif(MPIRUN is None, reason="Open MPI is not installed (scripts/setup.sh installs it)")

SHARED_MEMORY = ("--mca", "osc", "sm")
UCX_TCP = ("--mca", "pml", "ucx", "--mca", "osc", "ucx", "--mca", "opal_common_ucx_tls", "any",
           "--mca", "opal_common_ucx_devices", "any", "-x", "UCX_TLS=tcp")
DATASETS = ["email-Eu-core.txt.xz", "road-rome99.gr.xz", "tiny-lesmis.graph.xz"]
ALGORITHMS = ["bfs", "sssp", "wcc", "pr", "radii", "bc"]


def report_of(stdout):
    """The run's JSON report: the first document on stdout. UCX prints its warnings to stdout too
    ("UCX WARN disconnect failed: Endpoint timeout" on a loaded machine), after the report."""
    return json.JSONDecoder().raw_decode(stdout.lstrip())[0]


def mpirun(tg_bin, ranks, *args, transport=SHARED_MEMORY, timeout=300):
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1")
    # MPI's own allocations are no part of the sanitized build's leak check.
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    argv = [MPIRUN, "--allow-run-as-root", "-np", str(ranks), "-x", "ASAN_OPTIONS", *transport,
            str(tg_bin), "-q", *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def graphs(tg, datasets_dir, tmp_path_factory):
    return convert_datasets(tg, datasets_dir, tmp_path_factory.mktemp("far-rank"), DATASETS)


def expected(tg, graph, algorithm, extra, tmp):
    reference = tmp / f"reference-{algorithm}.npy"
    tg.run("run", algorithm, graph, *extra, "-o", reference, "--overwrite", check=True)
    return np.load(reference)


@pytest.mark.parametrize("dataset", first_under_sanitizers(DATASETS))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_through_a_far_rank(tg, tg_bin, graphs, dataset, algorithm, tmp):
    graph = graphs[dataset]
    extra = ["--unit-weights"] if algorithm == "sssp" and not tg.info(graph)["weighted"] else []
    want = expected(tg, graph, algorithm, extra, tmp)
    # At 0 nothing is far, and rank 1 must still be let go; read in place, then copied.
    for ratio, reads in (("0", []), ("0", ["--far-rank-copy"]), ("0.6", []), ("0.6", ["--far-rank-copy"]),
                         ("1", []), ("1", ["--far-rank-copy"])):
        out = tmp / f"rank-{ratio}-{len(reads)}.npy"
        res = mpirun(tg_bin, 2, "run", algorithm, graph, *extra, "--far-ratio", ratio, "--far", "rank", *reads,
                     "-t", "2", "-v", "-o", out)
        assert res.returncode == 0, res.stderr[-2000:]
        assert_same_answer(np.load(out), want, algorithm)


@pytest.mark.parametrize("processes", [2, 4])
def test_the_far_rank_over_ucx_on_tcp(tg, tg_bin, graphs, tmp, processes):
    # 4 processes: two computing ranks, each reading its far rank over TCP, and exchanging over it.
    graph = graphs["email-Eu-core.txt.xz"]
    want = expected(tg, graph, "pr", [], tmp)
    out = tmp / "ucx.npy"
    res = mpirun(tg_bin, processes, "run", "pr", graph, "--far-ratio", "0.7", "--far", "rank", "-o", out, "--json",
                 transport=UCX_TCP)
    assert res.returncode == 0, res.stderr[-2000:]
    assert_same_answer(np.load(out), want, "pr")
    # osc ucx makes no shared-memory windows: the far blocks are copied, though on one machine.
    assert report_of(res.stdout)["tiers"][1]["far_rank"]["reads"] == "one-sided copies"


def test_json_reports_the_rank_tier_read_in_place(tg_bin, graphs):
    # Its two ranks on one machine, rank 0 loads the far blocks from the far rank's shared window.
    res = mpirun(tg_bin, 2, "run", "pr", graphs["email-Eu-core.txt.xz"], "--far-ratio", "0.7", "--far", "rank",
                 "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads(res.stdout)
    far = report["tiers"][1]
    assert far["name"] == "rank" and far["far_rank"]["reads"] == "in place"
    assert far["blocks_read"] > 0 and far["bytes_fetched"] == 0 and far["requests"] == 0 and far["pool_bytes"] == 0
    assert far["far_rank"]["window_bytes"] >= report["plan"]["far_bytes"] > 0
    assert far["far_rank"]["peak_rss_bytes"] >= far["far_rank"]["window_bytes"]
    # Pages rank 0 maps from the far rank are the far tier's, not its own memory.
    assert report["far_node_bytes"] == far["far_rank"]["window_bytes"]
    # Nothing is fetched, so the plan holds no pipeline for it and says why.
    assert report["plan"]["memory"]["pool"] == 0, report["plan"]
    assert any("its window is shared memory that every pass reads in place" in line
               for line in report["plan"]["reasons"]), report["plan"]


def test_a_corrupt_block_held_by_the_far_rank_is_named_before_it_is_read_in_place(tg, tg_bin, tmp):
    good = tmp / "served.tg"
    tg.run("generate", "-g", "11", "--blocks", "2", "-o", good, check=True)
    rows = graphfile.GraphFile(good).index("out")
    k = max(range(len(rows)), key=lambda k: int(rows[k]["edge_count"]))
    row = rows[k]
    b = [int(x) for x in row["part_bytes"]]
    data = bytearray(good.read_bytes())
    data[int(row["offset"]) + (b[0] + 7) // 8 * 8 + b[1] // 2] ^= 0x5A  # the middle of its neighbours
    bad = tmp / "bad.tg"
    bad.write_bytes(bytes(data))
    res = mpirun(tg_bin, 2, "run", "bfs", bad, "--far-ratio", "1", "--far", "rank", timeout=120)
    assert res.returncode != 0
    assert f"out-grid block (row {k // 2}, column {k % 2})" in res.stderr, res.stderr[-2000:]
    assert "held by the far-memory rank (world rank 1)" in res.stderr and "checksum" in res.stderr, res.stderr[-2000:]


def test_far_rank_copy_needs_the_rank_tier(tg, graphs):
    res = tg.run("run", "bfs", graphs["tiny-lesmis.graph.xz"], "--far-ratio", "0.5", "--far-rank-copy")
    assert res.returncode == 1 and any("--far-rank-copy says how a far-memory rank is read: give --far rank too" in line
                                       for line in res.error_lines()), res


def test_json_reports_the_rank_tier_copied(tg_bin, graphs):
    res = mpirun(tg_bin, 2, "run", "bfs", graphs["road-rome99.gr.xz"], "--far-ratio", "1", "--far", "rank",
                 "--far-rank-copy", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads(res.stdout)  # printed once, by rank 0
    far = report["tiers"][1]
    assert far["name"] == "rank" and far["bytes_fetched"] > 0 and far["requests"] > 0
    assert far["far_rank"]["reads"] == "one-sided copies"
    assert report["plan"]["memory"]["pool"] > 0, report["plan"]  # the copies' pipeline
    # The far rank's window holds every far block (aligned), and its memory is reported.
    assert far["far_rank"]["window_bytes"] >= report["plan"]["far_bytes"] > 0
    assert far["far_rank"]["peak_rss_bytes"] >= far["far_rank"]["window_bytes"]
    assert report["plan"]["far"] == "rank" and report["plan"]["far_ratio"] == 1.0
    # A road network's frontiers are small: its pushes read selections of the blocks' entries.
    steps = report["trials"][0]["iterations"]
    assert sum(it["blocks_partial"] for it in steps) > 0
    for it in steps:
        assert it["bytes_partial"] + it["bytes_whole"] == it["bytes_fetched"]
        assert 0 <= it["overlap"] <= 1, it  # a share of the fetch time (was -2.24 where waits outran it)
    assert all(0 <= tier["overlap"] <= 1 for tier in report["tiers"]), report["tiers"]


def test_without_a_far_rank_for_each_rank_it_says_how_to_start_them(tg, tg_bin, graphs):
    graph = graphs["tiny-lesmis.graph.xz"]
    alone = tg.run("run", "bfs", graph, "--far-ratio", "0.5", "--far", "rank")
    assert alone.returncode == 1 and any("mpirun -np 2" in line for line in alone.error_lines()), alone
    res = mpirun(tg_bin, 1, "run", "bfs", graph, "--far-ratio", "0.5", "--far", "rank")
    assert res.returncode != 0 and "mpirun -np 2" in res.stderr, res.stderr[-2000:]
    for ranks in (3, 5):  # N computing ranks take N far ranks
        start = time.monotonic()
        res = mpirun(tg_bin, ranks, "run", "bfs", graph, "--far-ratio", "0.5", "--far", "rank", timeout=60)
        assert res.returncode != 0 and time.monotonic() - start < 30
        assert f"start an even number of processes (N computing, then N serving their far blocks), not {ranks}" in res.stderr, \
            res.stderr[-2000:]


def test_an_error_on_rank_0_ends_the_job(tg_bin, graphs):
    start = time.monotonic()
    res = mpirun(tg_bin, 2, "run", "pr", graphs["email-Eu-core.txt.xz"], "--memory-budget", "32K", "--far", "rank",
                 timeout=60)
    assert res.returncode != 0
    assert "rank 0: a memory budget of 32 KiB is too small" in res.stderr, res.stderr[-2000:]
    assert time.monotonic() - start < 30


def rank_pid(graph: Path, rank: int) -> int | None:
    """The pid of the tiergraph process of `rank` running on `graph`, from /proc."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            if not cmdline or not cmdline[0].endswith(b"tiergraph") or str(graph).encode() not in cmdline:
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ:
            return int(entry.name)
    return None


@pytest.mark.parametrize("processes", [2, 4])
def test_a_far_rank_that_dies_ends_the_run_within_30_seconds(tg, tg_bin, tmp, processes):
    # With two computing ranks, the last process serves rank 1: rank 0 and its far rank must
    # end too, not wait for rank 1 at the next exchange.
    graph = tmp / "long.tg"
    tg.run("generate", "-g", "16", "--blocks", "8", "-o", graph, check=True)
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1",
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    proc = subprocess.Popen([MPIRUN, "--allow-run-as-root", "-np", str(processes), "-x", "ASAN_OPTIONS", *SHARED_MEMORY,
                             str(tg_bin), "-q", "run", "pr", str(graph), "-i", "1000000", "--far-ratio", "1",
                             "--far", "rank"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    far_rank = processes - 1
    try:
        pid = None
        deadline = time.monotonic() + 60
        while pid is None and time.monotonic() < deadline and proc.poll() is None:
            pid = rank_pid(graph, far_rank)
            time.sleep(0.2)
        assert pid is not None, f"rank {far_rank} never started"
        time.sleep(1.0)  # mid-run: its computing rank is reading from it
        assert proc.poll() is None, "the run ended before the far rank was killed"
        killed = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
        assert time.monotonic() - killed < 30
        assert proc.returncode != 0
        assert f"rank {far_rank}" in err or "signal 9" in err or "Killed" in err, err[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_calibrate_measures_the_rank_tier_and_run_reads_its_profile(tg, tg_bin, graphs, tmp):
    """`mpirun -np 2 tiergraph calibrate --far rank`: rank 1 holds a window, rank 0 reads it with
    MPI_Rget at every chunk size and depth; the profile it writes sizes a far-rank run's chunks."""
    profile = tmp / "rank.json"
    res = mpirun(tg_bin, 2, "calibrate", "--far", "rank", "--size", "8M", "--seconds", "0.02", "--max-threads", "1",
                 "-o", profile)
    assert res.returncode == 0, res.stderr[-2000:]
    rank = json.loads(profile.read_text())["tiers"]["rank"]
    assert len(rank["points"]) == 6 * 5  # 4 KiB .. 4 MiB (16 MiB does not fit 8 MiB) x depths 1 .. 16
    assert all(p["bytes_per_second"] > 0 and p["requests"] > 0 for p in rank["points"])
    graph = graphs["email-Eu-core.txt.xz"]
    want = expected(tg, graph, "bfs", [], tmp)
    out = tmp / "profiled.npy"
    # The profile sizes the copies (read in place, nothing is fetched in chunks).
    run = mpirun(tg_bin, 2, "run", "bfs", graph, "--far-ratio", "0.7", "--far", "rank", "--far-rank-copy",
                 "--profile", profile, "-o", out, "--json")
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)
    assert report["plan"]["profile"] == str(profile)
    assert report["plan"]["chunk_bytes"] == rank["chosen"]["chunk_bytes"]
    assert_same_answer(np.load(out), want, "bfs")
    for ranks in (1, 4):
        wrong = mpirun(tg_bin, ranks, "calibrate", "--far", "rank", "--size", "8M", "--seconds", "0.02")
        assert wrong.returncode != 0 and "runs as two ranks" in wrong.stderr, wrong.stderr[-2000:]


def same_sized_graph_with_other_weights(tg, folder: Path) -> tuple[Path, Path]:
    """Two graph files of one edge list's arcs, the same size, the weights of one reversed."""
    listed = folder / "arcs.wel"
    tg.run("generate", "-g", "10", "--weights", "int", "--seed", "3", "-o", listed, check=True)
    lines = [line.split() for line in listed.read_text().splitlines() if line and line[0].isdigit()]
    other = folder / "other.wel"
    other.write_text("".join(f"{u} {v} {256 - int(w)}\n" for u, v, w in lines))
    a, b = folder / "a.tg", folder / "b.tg"
    tg.convert(listed, a)
    tg.convert(other, b)
    assert a.stat().st_size == b.stat().st_size and a.read_bytes() != b.read_bytes()
    return a, b


def test_a_far_rank_with_another_file_of_the_same_size_stops_the_job_at_the_start(tg, tg_bin, tmp):
    # The far rank opens the path it was given; another file there once served its weights and
    # SSSP exited 0 with the other graph's distances.
    a, b = same_sized_graph_with_other_weights(tg, tmp)
    options = ["-r", "1", "--far", "rank", "--far-ratio", "1", "-o", str(tmp / "d.npy")]
    argv = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", *SHARED_MEMORY,
            "-np", "1", str(tg_bin), "-q", "run", "sssp", str(a), *options, ":",
            "-np", "1", str(tg_bin), "-q", "run", "sssp", str(b), *options]
    res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert res.returncode != 0
    assert "a far rank must read the very graph file its computing rank reads" in res.stderr, res.stderr
    assert f"'{b}'" in res.stderr and f"'{a}'" in res.stderr, res.stderr  # both named
    assert res.stderr.count("tiergraph: error:") == 1, res.stderr  # told once, by the computing rank
    assert not (tmp / "d.npy").exists()


def cpu_seconds(pid: int) -> float:
    """User + system time of a process (all its threads), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_waiting_far_rank_uses_under_a_tenth_of_a_core(tg, tg_bin, tmp):
    # Once its blocks are in its window the far rank only waits for the word that the run is
    # over: its computing rank reads it one-sidedly. Waiting must leave the cores to the ranks
    # that compute (measured over 3 s of PageRank reading every block from it).
    graph = tmp / "served.tg"
    tg.run("generate", "-g", "15", "--blocks", "4", "-o", graph, check=True)
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1",
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    proc = subprocess.Popen([MPIRUN, "--allow-run-as-root", "-np", "2", "-x", "ASAN_OPTIONS", *SHARED_MEMORY,
                             str(tg_bin), "-q", "run", "pr", str(graph), "-i", "1000000", "--far-ratio", "1",
                             "--far", "rank"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        pid = None
        deadline = time.monotonic() + 60
        while pid is None and time.monotonic() < deadline and proc.poll() is None:
            pid = rank_pid(graph, 1)
            time.sleep(0.2)
        assert pid is not None, "the far rank never started"
        time.sleep(2.0)  # its blocks are loaded; the computing rank iterates
        before, start = cpu_seconds(pid), time.monotonic()
        time.sleep(3.0)
        used, wall = cpu_seconds(pid) - before, time.monotonic() - start
        assert proc.poll() is None, proc.communicate()
        assert used / wall < 0.10, f"the waiting far rank used {used:.2f} s of CPU in {wall:.2f} s"
    finally:
        # SIGTERM: mpirun ends its ranks and removes their shared-memory segments
        # (/dev/shm/vader_segment.*, 4 MiB each), which a SIGKILL of mpirun leaves behind.
        proc.terminate()
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        # mpirun's ranks end with it; make sure no far rank is left waiting
        for rank in (0, 1):
            left = rank_pid(graph, rank)
            if left:
                os.kill(left, signal.SIGKILL)
