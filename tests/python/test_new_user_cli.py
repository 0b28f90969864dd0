"""What a new user met on the command line (issue 34, items 3, 4, 6 and 7): a calibrate that
filled the disk, output paths refused only after the work, numbers shown wrapped or in 309
digits, and quiet surprises (a far ratio ignored, plans that differ from the run, an isolated
source, a source that was ignored)."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

import graphfile


@pytest.fixture(scope="module")
def graph(tg, tmp_path_factory):
    path = tmp_path_factory.mktemp("new-user") / "kron.tg"
    tg.run("generate", "-g", "12", "-s", "--blocks", "4", "-o", path, check=True)
    return path


@pytest.fixture(scope="module")
def lesmis(tg, datasets_dir, tmp_path_factory):
    """77 vertices: more ranks than ranges of 64 leave ranks empty."""
    path = tmp_path_factory.mktemp("new-user-lesmis") / "lesmis.tg"
    tg.convert(datasets_dir / "tiny-lesmis.graph.xz", path)
    return path


def loud(tg_bin, *args, timeout: float = 120) -> subprocess.CompletedProcess:
    """The binary without -q: notes and messages on stderr, as a user sees them."""
    return subprocess.run([str(tg_bin), *map(str, args)], capture_output=True, text=True, timeout=timeout)


def one_error(res) -> str:
    assert res.returncode == 1, res
    errors = res.error_lines()
    assert len(errors) == 1, res
    return errors[0]


# --- item 3: calibrate --size beyond the free space -------------------------------------------

def test_calibrate_refuses_a_scratch_file_larger_than_the_free_space(tg, tmp):
    free = shutil.disk_usage(tmp).free
    try:
        # Before the fix it wrote about 1.2 GB a second until the disk was full.
        res = tg.run("calibrate", "--dir", tmp, "--size", "99T", "--seconds", "0.01", timeout=10)
    except subprocess.TimeoutExpired:
        for scratch in tmp.glob("tiergraph-calibrate-*"):
            scratch.unlink()
        pytest.fail("calibrate --size 99T was still writing after 10 s")
    error = one_error(res)
    assert "--size 99T" in error and str(99 << 40) in error and "free" in error, error
    # The free bytes it names are this filesystem's (give or take what others wrote meanwhile).
    named = int(re.search(r"has (\d+) bytes", error).group(1))
    assert abs(named - free) < (1 << 30), (named, free)
    assert list(tmp.iterdir()) == []  # nothing written


# --- item 4: every output path checked before any work -----------------------------------------

@pytest.mark.parametrize("output,problem", [
    ("/no/such/dir/x.tsv", "directory '/no/such/dir' does not exist"),
    ("", "output path is empty"),
])
def test_run_refuses_an_unusable_output_before_running(tg, graph, output, problem):
    res = tg.run("run", "bfs", graph, "-o", output)
    error = one_error(res)
    assert problem in error, error
    assert res.stdout == "", "the run ran before its output was refused"


def test_run_refuses_an_output_in_a_directory_it_cannot_write(tg, graph, tmp):
    if os.geteuid() == 0:
        pytest.skip("root writes any directory")
    locked = tmp / "locked"
    locked.mkdir(mode=0o555)
    error = one_error(tg.run("run", "bfs", graph, "-o", locked / "x.tsv"))
    assert "not writable" in error, error


def test_calibrate_refuses_an_unusable_output_before_measuring(tg, tmp):
    started = time.monotonic()
    # Measuring takes 7 chunk sizes x 5 depths x 0.2 s at least; a refusal takes none of it.
    error = one_error(tg.run("calibrate", "--dir", tmp, "--size", "8M", "-o", "/no/dir/p.json"))
    assert "directory '/no/dir' does not exist" in error, error
    assert time.monotonic() - started < 5, "it measured before refusing its output"
    assert list(tmp.iterdir()) == []
    empty = one_error(tg.run("calibrate", "--dir", tmp, "--size", "8M", "-o", ""))
    assert "output path is empty" in empty, empty


@pytest.mark.parametrize("command", [
    ("generate", "-g", "20"),  # seconds of generating before the refusal
    ("reblock", "{graph}", "--blocks", "2"),
    ("convert", "{edges}"),
])
def test_other_commands_refuse_an_unusable_output_at_once(tg, graph, tmp, command):
    edges = tmp / "e.el"
    edges.write_text("0 1\n1 2\n")
    args = [str(a).format(graph=graph, edges=edges) for a in command]
    started = time.monotonic()
    error = one_error(tg.run(*args, "-o", "/no/such/dir/out.tg"))
    assert "directory '/no/such/dir' does not exist" in error, error
    assert time.monotonic() - started < 5


# --- item 6: numbers in messages ---------------------------------------------------------------

def profile_with(tmp: Path, chosen) -> Path:
    path = tmp / "profile.json"
    path.write_text(json.dumps({"format": "tiergraph-fetch-profile", "version": 1,
                                "tiers": {"file": {"points": [], "chosen": chosen}}}))
    return path


def test_a_negative_profile_chunk_is_shown_as_given(tg, graph, tmp):
    bad = profile_with(tmp, {"chunk_bytes": -5, "smallest_chunk_bytes": 4096, "depth": 4})
    error = one_error(tg.run("plan", "bfs", graph, "--far-ratio", "0.5", "--profile", bad))
    assert "18446744073709551611" not in error and "got -5" in error and "chunk_bytes" in error, error
    assert str(bad) in error


def test_a_profile_that_is_not_json_names_the_place_without_library_codes(tg, graph, tmp):
    bad = tmp / "broken.json"
    bad.write_text('{"format": "tiergraph-fetch-profile",\n  "tiers": {oops}}\n')
    error = one_error(tg.run("plan", "bfs", graph, "--far-ratio", "0.5", "--profile", bad))
    assert "json.exception" not in error and "[" not in error.split(str(bad))[1], error
    assert str(bad) in error and "not JSON" in error and "line 2, column" in error, error


def test_a_negative_partition_alpha_is_refused_in_a_line(tg, graph):
    error = one_error(tg.run("plan", "bfs", graph, "--ranks", "2", "--partition-alpha", "-1"))
    assert "'-1'" in error and len(error) < 200, error
    assert not re.search(r"\d{20}", error), error


@pytest.mark.parametrize("blocks", ["-3", "0", "two", "4294967296"])
def test_reblock_names_a_bad_block_count(tg, graph, tmp, blocks):
    error = one_error(tg.run("reblock", graph, "-o", tmp / "r.tg", "--blocks", blocks))
    assert "Could not convert" not in error and blocks in error and "1 to 4294967295" in error, error
    assert not (tmp / "r.tg").exists()


def test_reblock_prints_the_grid_it_wrote(tg, tg_bin, graph, tmp):
    out = tmp / "r.tg"
    res = loud(tg_bin, "reblock", graph, "-o", out, "--blocks", "100000")
    assert res.returncode == 0, res.stderr
    side = tg.info(out)["blocks"]["per_side"]
    assert side == 4096 // 64  # 4096 vertices make at most 64 ranges of 64
    assert f"with a {side}x{side} block grid" in res.stderr, res.stderr
    assert "100000x100000 block grid" not in res.stderr, res.stderr


# --- item 7: quiet surprises -------------------------------------------------------------------

def test_paging_refuses_a_far_ratio_and_names_the_budget_it_stands_for(tg, graph):
    error = one_error(tg.run("run", "bfs", graph, "--far", "paging", "--far-ratio", "0.7"))
    assert "--far paging" in error and "--far-ratio 0.7" in error and "--memory-budget" in error, error
    budget = re.search(r"give --memory-budget (\d+K)", error).group(1)
    # The budget it names runs as the paging baseline.
    tg.run("run", "bfs", graph, "--far", "paging", "--memory-budget", budget, check=True)
    planned = one_error(tg.run("plan", "bfs", graph, "--far", "paging", "--far-ratio", "0.7"))
    assert planned == error


def test_plan_on_ranks_plans_the_threads_a_rank_runs(tg, graph):
    cores = len(os.sched_getaffinity(0))
    for ranks in (1, 2, 3):
        plan = tg.run("plan", "bfs", graph, "--far-ratio", "0.5", "--ranks", ranks, "--json", check=True).json()
        # As run: one rank uses every core, N ranks on this machine share them.
        assert plan["threads"] == max(1, cores // ranks), (ranks, plan["threads"])
    given = tg.run("plan", "bfs", graph, "--far-ratio", "0.5", "--ranks", 2, "-t", 3, "--json", check=True).json()
    assert given["threads"] == 3


def test_plan_refuses_more_ranks_than_vertices_and_notes_empty_ranks(tg, tg_bin, lesmis):
    error = one_error(tg.run("plan", "bfs", lesmis, "--ranks", "100"))
    assert "--ranks 100" in error and "77 vertices" in error and "at most 77" in error, error
    res = loud(tg_bin, "plan", "bfs", lesmis, "--ranks", "50")
    assert res.returncode == 0, res.stderr
    assert "note: 48 of the 50 ranks master no vertex" in res.stderr, res.stderr
    quiet = loud(tg_bin, "plan", "bfs", lesmis, "--ranks", "2")
    assert "master no vertex" not in quiet.stderr


def test_pagerank_under_a_budget_that_holds_everything_keeps_everything_local(tg, tmp):
    graph = tmp / "directed.tg"
    tg.run("generate", "-g", "14", "--blocks", "4", "-o", graph, check=True)
    size = graph.stat().st_size
    plan = tg.run("plan", "pr", graph, "--memory-budget", f"{(size >> 20) + 20}M", "--json", check=True).json()
    assert plan["far_blocks"] == 0 and plan["memory"]["pool"] == 0 and plan["buffers"] == 0, plan
    assert any("all stay local" in r for r in plan["reasons"]), plan["reasons"]
    report = tg.run("run", "pr", graph, "--memory-budget", f"{(size >> 20) + 20}M", "-i", "2", "--json",
                    check=True).json()
    assert report["plan"]["far_blocks"] == 0 and report["plan"]["memory"]["pool"] == 0, report["plan"]
    # A far ratio places what it is told: the unread grid is still far.
    tight = tg.run("plan", "pr", graph, "--far-ratio", "0", "--json", check=True).json()
    assert any("does not read the out grid" in r for r in tight["reasons"]), tight["reasons"]


def test_a_corrupt_block_is_named_the_same_with_and_without_a_budget(tg, tmp):
    good = tmp / "undirected.tg"
    tg.run("generate", "-g", "11", "-s", "--blocks", "4", "-o", good, check=True)
    f = graphfile.GraphFile(good)
    rows = f.index("out")
    off_diagonal = [k for k in range(16) if k // 4 != k % 4]
    k = max(off_diagonal, key=lambda k: int(rows[k]["edge_count"]))
    row = rows[k]
    b = [int(x) for x in row["part_bytes"]]
    at = int(row["offset"]) + (b[0] + 7) // 8 * 8 + b[1] // 2  # the middle of its neighbours
    bad = tmp / "bad.tg"
    data = bytearray(good.read_bytes())
    data[at] ^= 0x5A
    bad.write_bytes(bytes(data))
    where = f"out-grid block (row {k // 4}, column {k % 4}) at byte {int(row['offset'])}"
    unbudgeted = one_error(tg.run("run", "pr", bad, "-i", "1"))
    budgeted = one_error(tg.run("run", "pr", bad, "-i", "1", "--far-ratio", "1"))
    assert where in unbudgeted, unbudgeted
    assert where in budgeted and "in grid" not in budgeted, budgeted


def test_bfs_from_a_source_without_out_edges_says_so(tg, tg_bin, tmp):
    graph = tmp / "path.tg"
    edges = tmp / "path.el"
    edges.write_text("0 1\n1 2\n")
    tg.convert(edges, graph)
    res = loud(tg_bin, "run", "bfs", graph, "-r", "2")
    assert res.returncode == 0, res.stderr
    assert "levels: 1" in res.stdout
    assert "note: source 2 has no out-edges, so bfs reaches only the source itself" in res.stderr, res.stderr
    connected = loud(tg_bin, "run", "bfs", graph, "-r", "0")
    assert "no out-edges" not in connected.stderr


@pytest.mark.parametrize("algorithm,why", [
    ("pr", "pr takes no source"), ("wcc", "wcc takes no source"), ("radii", "radii runs from sampled sources"),
])
def test_a_source_for_an_algorithm_without_one_is_refused(tg, graph, algorithm, why):
    error = one_error(tg.run("run", algorithm, graph, "-r", "0"))
    assert "--source is the source of bfs, sssp and bc" in error and why in error, error
    tg.run("run", "sssp", graph, "-r", "0", "--unit-weights", check=True)
