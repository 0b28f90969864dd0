"""Memory tiers as a user meets them: `run --memory-budget SIZE` or `--far-ratio R` places part of
the edge blocks on a far tier (the graph file, read with O_DIRECT through io_uring, or memory bound
to a NUMA node) and gives
the all-local answer; peak RSS stays within the budget plus the stated runtime allowance; budgets
that cannot work are refused before any edge is read; `tiergraph plan` explains the placement."""

from __future__ import annotations


import numpy as np
import pytest

import graphfile
from checked_build import SANITIZED
from same_answer import assert_same_answer, convert_datasets

DATASETS = ["tiny-karate.graph.xz", "email-Eu-core.txt.xz", "soc-wiki-Vote.txt.xz",
            "road-rome99.gr.xz", "tiny-lesmis.graph.xz"]
ALGORITHMS = ["bfs", "sssp", "wcc", "pr", "radii"]
# Far ratios from all local to all far, and two threads reading pieces of a tier at once.
WAYS = {
    "ratio-0": ("--far-ratio", "0"),
    "ratio-0.5": ("--far-ratio", "0.5"),
    "ratio-0.9-2-threads": ("--far-ratio", "0.9", "-t", "2"),
    "ratio-1": ("--far-ratio", "1"),
    # The numa tier: far blocks in memory bound to a node (on a one-node machine, node 0).
    "numa-0.5": ("--far-ratio", "0.5", "--far", "numa"),
    "numa-1-2-threads": ("--far-ratio", "1", "--far", "numa", "-t", "2", "--far-node", "0"),
    # The kernel-paging baseline: every block through the mapping, read at random (a far ratio
    # is refused: the kernel, not tiergraph, places the blocks).
    "paging": ("--memory-budget", "64M", "--far", "paging"),
}
OVERHEAD = 64 << 20  # the runtime allowance a budget's promise adds (kFixedOverheadBytes)


@pytest.fixture(scope="module")
def graphs(tg, datasets_dir, tmp_path_factory):
    return convert_datasets(tg, datasets_dir, tmp_path_factory.mktemp("budget"), DATASETS)


@pytest.fixture(scope="module")
def kron(tg, tmp_path_factory):
    """A directed Kronecker graph on an 8x8 grid, weighted, large enough that a budget matters."""
    path = tmp_path_factory.mktemp("budget-kron") / "kron.tg"
    tg.run("generate", "-g", "16", "--weights", "int", "--blocks", "8", "-o", path, check=True)
    return path


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_far_ratio_gives_the_all_local_answer(tg, graphs, dataset, algorithm, tmp):
    graph = graphs[dataset]
    extra = ["--unit-weights"] if algorithm == "sssp" and not tg.info(graph)["weighted"] else []
    reference = tmp / "reference.npy"
    tg.run("run", algorithm, graph, *extra, "-o", reference, check=True)
    expected = np.load(reference)
    for way, options in WAYS.items():
        out = tmp / f"{way}.npy"
        tg.run("run", algorithm, graph, *extra, *options, "-v", "-o", out, check=True)
        assert_same_answer(np.load(out), expected, algorithm, way)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_budgets_on_a_directed_weighted_graph(tg, kron, algorithm, tmp):
    """Budgets from tight to roomy on a directed, weighted graph: each gives the all-local answer,
    reports its plan, and stays within the budget plus the runtime allowance."""
    reference = tmp / "reference.npy"
    tg.run("run", algorithm, kron, "-o", reference, check=True)
    expected = np.load(reference)
    plan = tg.run("plan", algorithm, kron, "--far-ratio", "1", "--json", check=True).json()
    minimum = plan["minimum_bytes"]
    for extra in (0, plan["edge_bytes"] // 3, 2 * plan["edge_bytes"]):
        budget = minimum + extra
        out = tmp / f"b{extra}.npy"
        report = tg.run("run", algorithm, kron, "--memory-budget", budget, "-t", "2", "--json", "-o", out,
                        check=True).json()
        assert_same_answer(np.load(out), expected, algorithm, f"budget {budget}")
        p = report["plan"]
        assert p["budget_bytes"] == budget
        assert p["minimum_bytes"] + p["local_bytes"] <= budget
        assert p["local_bytes"] + p["far_bytes"] == p["edge_bytes"]
        if extra == 0:
            assert p["local_bytes"] == 0 and p["far_ratio"] == 1.0
        if extra == 2 * plan["edge_bytes"]:
            assert p["far_bytes"] == 0
        if not SANITIZED:  # shadow memory is no part of the promise
            assert report["within_budget"] and report["peak_rss_bytes"] <= budget + OVERHEAD, \
                (budget, report["peak_rss_bytes"], report["baseline_rss_bytes"])


def test_pagerank_keeps_the_grid_it_reads(tg, kron):
    """PageRank pulls: with room for half its in grid, only in-grid blocks are local, and every
    out-grid block is far (fetched only if a pass read it)."""
    full = tg.run("plan", "pr", kron, "--far-ratio", "0", "--json", check=True).json()
    half = tg.run("plan", "pr", kron, "--far-ratio", "0.5", "--json", check=True).json()
    g = graphfile.GraphFile(str(kron))
    in_bytes = sum(int(r["part_bytes"][0]) + int(r["part_bytes"][1]) for r in g.index("in") if r["edge_count"] > 0)
    assert abs(full["edge_bytes"] - in_bytes) < 64 * 8 * 8  # the in grid's prefixes (part padding aside)
    assert full["far_bytes"] == 0
    assert 0.5 <= half["far_ratio"] < 0.6
    assert any("does not read the out grid" in r for r in half["reasons"])


def test_peak_rss_stays_under_a_budget_well_below_the_graph(tg, tmp):
    """The promise measured: a graph whose edge blocks are 4x the budget runs within the budget
    plus the runtime allowance, and reads its far blocks without the page cache."""
    if SANITIZED:
        pytest.skip("AddressSanitizer's shadow memory is counted in RSS")
    graph = tmp / "big.tg"
    tg.run("generate", "-g", "20", "-s", "--blocks", "8", "-o", graph, check=True)
    size = graph.stat().st_size
    plan = tg.run("plan", "pr", graph, "--far-ratio", "1", "-t", "2", "--json", check=True).json()
    budget = plan["minimum_bytes"] + size // 8
    assert plan["edge_bytes"] >= 4 * (budget - plan["minimum_bytes"])
    report = tg.run("run", "pr", graph, "-i", "3", "-t", "2", "--memory-budget", budget, "--json",
                    check=True).json()
    assert report["within_budget"]
    assert report["peak_rss_bytes"] <= budget + OVERHEAD
    assert report["peak_rss_bytes"] < size  # the whole file was never resident
    far = report["tiers"][1]
    assert far["name"] == "file" and far["bytes_fetched"] >= 3 * report["plan"]["far_bytes"]


def test_sparse_pushes_read_only_their_sources_entries(tg, tmp):
    """BFS with every block on the file tier: the first step pushes from the source alone and reads
    selections (its entries and their arcs) of the blocks of its row only; every step accounts
    for its bytes as whole blocks or selections; the depths are the all-local ones."""
    graph = tmp / "sparse.tg"
    tg.run("generate", "-g", "16", "-s", "--blocks", "8", "-o", graph, check=True)
    want = tmp / "local.npy"
    tg.run("run", "bfs", graph, "-o", want, check=True)
    out = tmp / "far.npy"
    report = tg.run("run", "bfs", graph, "--far-ratio", "1", "-o", out, "--json", "-v", check=True).json()
    assert report["verification"] == "PASS"
    assert_same_answer(np.load(out), np.load(want), "bfs")
    steps = report["trials"][0]["iterations"]
    first = steps[0]
    assert first["frontier"] == 1 and 0 < first["blocks_read"] <= 8
    assert first["blocks_partial"] == first["blocks_read"] and first["bytes_partial"] == first["bytes_fetched"]
    for it in steps:
        assert it["bytes_partial"] + it["bytes_whole"] == it["bytes_fetched"]
        assert it["blocks_partial"] + it["blocks_whole"] == it["blocks_read"]
        assert 0 <= it["compute_seconds"] <= it["seconds"]
    assert sum(it["blocks_whole"] for it in steps) > 0  # dense steps read whole blocks


def test_every_pass_reports_each_tier(tg, kron, tmp):
    """With part of the blocks far, every pass gives the local and the far tier's share, and the
    shares add up to the pass's totals."""
    report = tg.run("run", "pr", kron, "-i", "3", "--far-ratio", "0.5", "--json", check=True).json()
    for it in report["trials"][0]["iterations"]:
        local, far = it["tiers"]
        assert local["name"] == "mapped" and far["name"] == "file"
        assert local["bytes_fetched"] == 0 and far["bytes_fetched"] > 0
        for key in ("blocks_read", "bytes_fetched", "requests", "blocks_partial", "bytes_partial"):
            assert local[key] + far[key] == it[key], key
        assert far["wait_seconds"] == pytest.approx(it["wait_seconds"])
        assert 0 <= it["compute_seconds"] <= it["seconds"]


def test_far_blocks_are_checked_as_they_arrive(tg, kron, tmp):
    """Under a budget the open reads no block; a corrupted block is named when it is used, whether
    it was placed local (checked when placed) or far (checked on arrival)."""
    rows = graphfile.GraphFile(str(kron)).index("in")
    k = max(range(len(rows)), key=lambda i: int(rows[i]["edge_count"]))
    row = rows[k]
    at = int(row["offset"]) + (int(row["part_bytes"][0]) + 7) // 8 * 8 + 5  # inside its neighbours
    data = bytearray(kron.read_bytes())
    data[at] ^= 0x5A
    bad = tmp / "bad.tg"
    bad.write_bytes(bytes(data))
    p = int(np.sqrt(len(rows)))
    for ratio in ("0", "1"):  # the block local, then far
        res = tg.run("run", "pr", bad, "--far-ratio", ratio, "-i", "2")
        assert res.returncode == 1, res
        msg = " ".join(res.error_lines())
        assert f"(row {k // p}, column {k % p})" in msg and "in grid" in msg.replace("in-grid", "in grid"), msg
        assert "its neighbours fail their checksum" in msg, msg
        assert ("fetched by the file store" in msg) == (ratio == "1"), msg


@pytest.mark.parametrize("options,message", [
    (("--memory-budget", "0"), "must be a size above 0"),
    (("--memory-budget", "-1"), "must be a size above 0"),
    (("--memory-budget", "1Q"), "must be a size above 0"),
    (("--memory-budget", "10T"), "more than this machine's memory"),
    (("--memory-budget", "1M"), "is too small"),
    (("--far-ratio", "1.5"), "between 0 and 1"),
    (("--far-ratio", "-0.1"), "between 0 and 1"),
    (("--memory-budget", "1G", "--far-ratio", "0.5"), "not both"),
    (("--far", "file"), "give --memory-budget or --far-ratio"),
    (("--far-ratio", "0.5", "--store", "copying"), "the planner places them"),
    (("--far-ratio", "0.5", "--far", "numa", "--far-node", "4095"), "has no memory on this machine"),
    (("--far-ratio", "0.5", "--far-node", "0"), "give --far numa too"),
])
def test_impossible_budgets_are_refused(tg, kron, options, message):
    res = tg.run("run", "bfs", kron, *options)
    assert res.returncode == 1, res
    assert any(message in line for line in res.error_lines()), res


def test_too_small_says_what_would_fit(tg, kron):
    res = tg.run("run", "pr", kron, "--memory-budget", "1M")
    line = res.error_lines()[0]
    assert "needs at least" in line and "vertex state" in line and "--memory-budget" in line
    needed = line.split("give --memory-budget ")[1].split()[0]
    assert tg.run("run", "pr", kron, "-i", "1", "--memory-budget", needed).returncode == 0


def test_every_trials_result_counts_under_a_budget(tg, kron, tmp):
    """Each trial's result is held to the end of the run (the verifier checks them all after the
    trials, under a budget): a budget that holds one trial but not 64 results is refused before
    anything runs or is written, naming the results and what would do; that budget then runs all
    64 trials and verifies them. (8 under the sanitizers: the same paths, where 64 verified trials
    of Radii took two minutes.)"""
    trials = 8 if SANITIZED else 64
    plan = tg.run("plan", "radii", kron, "--far-ratio", "1", "--json", check=True).json()
    budget = plan["minimum_bytes"]
    assert plan["memory"]["result"] == 0, "one trial's eccentricities are its state's, not counted twice"
    out = tmp / "radii.npy"
    res = tg.run("run", "radii", kron, "-n", trials, "--verify", "--memory-budget", budget, "-o", out)
    assert res.returncode == 1, res
    line = res.error_lines()[0]
    vertices = graphfile.GraphFile(str(kron)).n
    results = (trials - 1) * vertices * 8  # the earlier trials' results beside the last one's state
    assert "too small" in line and "result" in line, line
    assert not out.exists()
    needed = line.split("give --memory-budget ")[1].split()[0]
    assert needed.endswith("M") and int(needed[:-1]) << 20 >= budget + results, (needed, budget, results)
    report = tg.run("run", "radii", kron, "-n", trials, "--verify", "--memory-budget", needed, "--json",
                    check=True).json()
    assert report["verification"] == "PASS"


def test_a_text_input_is_refused_under_a_budget(tg, datasets_dir):
    res = tg.run("run", "bfs", datasets_dir / "tiny-karate.graph.xz", "--far-ratio", "0.5")
    assert res.returncode == 1 and any("need a graph file" in line for line in res.error_lines()), res


def test_plan_explains_itself(tg, kron):
    text = tg.run("plan", "bfs", kron, "--memory-budget", "5M", "-t", "2", check=True).stdout
    assert "switches between push and pull" in text and "far on the file tier" in text
    assert "local memory:" in text and "budget 5 MiB" in text
    j = tg.run("plan", "bfs", kron, "--memory-budget", "5M", "-t", "2", "--json", check=True).json()
    assert j["local_blocks"] + j["far_blocks"] == sum(1 for grid in ("out", "in")
                                                     for r in graphfile.GraphFile(str(kron)).index(grid)
                                                     if r["edge_count"] > 0)
    assert j["buffers"] == j["depth"] + 4 and j["profile"] == "default"
    assert tg.run("plan", "bfs", kron).returncode == 1  # a plan is for a budget


def test_numa_tier_reports_its_node(tg, kron):
    report = tg.run("run", "pr", kron, "-i", "2", "--far-ratio", "0.6", "--far", "numa", "--json", check=True).json()
    far = report["tiers"][1]
    assert far["name"] == "numa" and far["node"] == 0 and far["bytes_fetched"] == 0
    assert far["node_bytes"] >= report["plan"]["far_bytes"] and report["far_node_bytes"] == far["node_bytes"]
    assert report["plan"]["memory"]["pool"] == 0 and report["plan"]["buffers"] == 0  # read in place: no pipeline


def test_paging_baseline_places_nothing_and_promises_nothing(tg, kron):
    report = tg.run("run", "bfs", kron, "--memory-budget", "64M", "--far", "paging", "--json", check=True).json()
    assert report["plan"]["far_bytes"] == 0 and report["plan"]["memory"]["pool"] == 0
    assert "within_budget" not in report  # the kernel holds it to a cgroup limit, not tiergraph
    assert any("paging" in r for r in report["plan"]["reasons"])
    res = tg.run("run", "bfs", kron, "--memory-budget", "1M", "--far", "paging")
    assert res.returncode == 1 and any("is too small" in line for line in res.error_lines()), res
