"""MPI ranks under a memory budget (issue 13 with the memory tiers): each rank plans its own budget
for the block rows of its masters, keeps what fits of them local, reads the rest from its far
tier (the graph file through io_uring, NUMA memory, or its own far-memory rank: `mpirun -np 2N`,
rank N + r serving rank r) block-major as they arrive, and never reads another rank's rows; the
answer is the 1-rank answer and every rank's peak RSS keeps the budget's promise. `tiergraph plan
--ranks N` shows each rank's plan."""

from __future__ import annotations

import json

import numpy as np
import pytest

from checked_build import SANITIZED, first_under_sanitizers
from same_answer import assert_same_answer
from test_dist import MPIRUN, mpirun

pytestmark = pytest.mark.skipif(MPIRUN is None, reason="Open MPI is not installed (scripts/setup.sh installs it)")

ALGORITHMS = ["bfs", "sssp", "wcc", "pr", "radii"]
OVERHEAD = 64 << 20  # the runtime allowance a budget's promise adds (kFixedOverheadBytes)


@pytest.fixture(scope="module")
def graphs(tg, tmp_path_factory):
    """Kronecker graphs on a 4x4 grid (so ranks own different rows): weighted directed, and
    undirected; and a 16x16 one large enough that a budget matters."""
    folder = tmp_path_factory.mktemp("dist-budget")
    out = {}
    for name, opts in {"directed": ["-g", "12", "--weights", "int", "--blocks", "4"],
                       "undirected": ["-g", "12", "-s", "--blocks", "4"],
                       "large": ["-g", "16", "--weights", "int", "--blocks", "16"]}.items():
        path = folder / f"{name}.tg"
        tg.run("generate", "--seed", "7", *opts, "-o", path, check=True)
        out[name] = path
    return out


def options_for(algorithm, graph_name):
    extra = ["-r", "1"] if algorithm in ("bfs", "sssp") else []
    if algorithm == "sssp" and graph_name == "undirected":
        extra.append("--unit-weights")
    return extra


# The ways ranks fetch blocks: some far under a budget (the file tier, NUMA memory, or a far-memory
# rank per computing rank, read in place or copied: 4 processes are 2 ranks), or all of them from a fetching store without
# one (the disk tier, or the copying store with completions out of order and late); each exchange
# at least once, sliced or not (a sliced push reads block-major too, a slice a run of whole block
# rows). The kernel-paging baseline places nothing far: every rank maps its rows.
FAR = ["--far-ratio", "0.6", "--far"]
WAYS = [
    (2, [*FAR, "file"]),
    (4, [*FAR, "rank", "--exchange", "ring", "--slices", "3"]),
    (4, [*FAR, "rank", "--far-rank-copy", "--exchange", "collective"]),
    (2, ["--memory-budget", "64M", "--far", "paging"]),
    (4, [*FAR, "file", "--exchange", "ring", "--slices", "4"]),
    (2, [*FAR, "numa"]),
    (2, [*FAR, "file", "--exchange", "accumulate", "--slices", "3"]),
    (2, ["--store", "file", "--exchange", "collective"]),
    (4, ["--store", "copying", "--store-order", "shuffled", "--store-buffers", "3", "--exchange", "ring", "--slices", "4"]),
    (2, ["--store", "copying", "--store-delay", "0.0005", "--exchange", "accumulate"]),
    (4, ["--store", "file", "--store-depth", "2", "--exchange", "accumulate", "--slices", "3"]),
]


@pytest.mark.parametrize("graph_name", first_under_sanitizers(["directed", "undirected"]))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_with_fetched_blocks_on_ranks_gives_the_one_rank_answer(tg, tg_bin, graphs, tmp, algorithm,
                                                                                  graph_name):
    graph = graphs[graph_name]
    extra = options_for(algorithm, graph_name)
    reference = tmp / "reference.npy"
    tg.run("run", algorithm, graph, *extra, "-o", reference, check=True)
    want = np.load(reference)
    for k, (ranks, options) in enumerate(WAYS):
        out = tmp / f"way{k}.npy"
        res = mpirun(tg_bin, ranks, "run", algorithm, graph, *extra, *options, "--exchange-memory", "256K", "--json",
                     "-o", out)
        assert res.returncode == 0, res.stderr
        assert_same_answer(np.load(out), want, algorithm, f"{ranks} ranks, {' '.join(options)}")
        reports = json.loads(res.stdout)["trials"][0]["ranks"]
        if options[0] == "--store":
            assert all(r["store"]["name"].startswith(options[1]) and r["store"]["bytes_fetched"] > 0 for r in reports)
            continue
        far = options[options.index("--far") + 1]
        assert len(reports) == (ranks // 2 if far == "rank" else ranks)  # far-memory ranks compute nothing
        rows = [r["plan"]["rows"] for r in reports]
        # The ranks' rows tile the grid in order (neighbours may share the row they meet in).
        assert rows[0][0] == 0 and rows[-1][1] == 4
        assert all(a[1] - 1 <= b[0] <= a[1] for a, b in zip(rows, rows[1:])), rows
        if far == "paging":
            assert all(r["plan"]["far_blocks"] == 0 and r["store"]["name"] == "mapped" for r in reports), reports
            continue
        assert all(r["plan"]["far_blocks"] > 0 for r in reports), rows
        # Each rank fetched its far blocks, or read them in place (the numa tier; a far rank on
        # this machine unless told to copy).
        in_place = far == "numa" or (far == "rank" and "--far-rank-copy" not in options)
        assert all((r["store"]["bytes_fetched"] == 0) == in_place for r in reports), reports
        if far == "rank":
            assert all(r["store"]["name"] == "composite(mapped+rank)" for r in reports), reports


@pytest.mark.parametrize("ranks", [2, 4])
def test_each_rank_reads_only_the_blocks_of_its_rows(tg_bin, graphs, ranks):
    # PageRank pulls every pass over all vertices: a rank reads each of its rows' in-blocks once
    # a pass, local or far, and no block of another rank's rows.
    res = mpirun(tg_bin, ranks, "run", "pr", graphs["directed"], "-i", "5", "--far-ratio", "0.5", "--exchange-memory",
                 "256K", "--json")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    for r in report["trials"][0]["ranks"]:
        first, end = r["plan"]["rows"]
        assert end - first < 4, r["plan"]  # a rank of several plans less than the whole grid
        blocks = r["plan"]["local_blocks"] + r["plan"]["far_blocks"]
        assert 0 < blocks <= (end - first) * 4
        assert r["store"]["blocks_read"] == len(r["passes"]) * blocks, (r["rank"], r["store"], r["plan"])


@pytest.mark.parametrize("ranks", [2, 4])
def test_each_rank_fetches_only_the_blocks_of_its_rows(tg_bin, graphs, ranks):
    # PageRank pulls every pass over all vertices: a rank fetches the in-blocks of its own rows
    # once a pass. The ranks' rows tile the 4x4 grid (neighbours may share the row they meet in),
    # so together they fetch a pass's 16 blocks and at most a row more per boundary.
    res = mpirun(tg_bin, ranks, "run", "pr", graphs["directed"], "-i", "5", "--store", "file", "--exchange-memory",
                 "256K", "--json")
    assert res.returncode == 0, res.stderr
    per_pass = []
    for r in json.loads(res.stdout)["trials"][0]["ranks"]:
        blocks, passes = r["store"]["blocks_read"], len(r["passes"])
        assert blocks % passes == 0, (r["rank"], r["store"], passes)
        per_pass.append(blocks // passes)
    assert all(0 < b < 16 for b in per_pass), per_pass
    assert 16 <= sum(per_pass) <= 16 + 4 * (ranks - 1), per_pass


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_each_rank_reads_its_far_blocks_from_its_own_far_memory_rank(tg, tg_bin, graphs, tmp, ranks):
    # `mpirun -np 2N ... --far rank`: rank N + r holds the far blocks of rank r's rows and no
    # other's; a rank that read another's far rank would find other blocks at its displacements
    # (a wrong answer) or ranges it does not hold (an error). Every block far: every edge the
    # ranks read comes through their pairs' windows.
    graph = graphs["directed"]
    reference = tmp / "reference.npy"
    tg.run("run", "pr", graph, "-i", "5", "-o", reference, check=True)
    out = tmp / "far-ranks.npy"
    res = mpirun(tg_bin, 2 * ranks, "run", "pr", graph, "-i", "5", "--far-ratio", "1", "--far", "rank",
                 "--exchange-memory", "256K", "--json", "-o", out)
    assert res.returncode == 0, res.stderr
    assert_same_answer(np.load(out), np.load(reference), "pr", f"{ranks} ranks, each with a far rank")
    report = json.loads(res.stdout)
    if ranks == 1:  # one computing rank is a plain run with the rank tier
        assert report["tiers"][1]["name"] == "rank" and report["tiers"][1]["blocks_read"] > 0
        assert report["tiers"][1]["far_rank"]["reads"] == "in place"
        return
    reports = report["trials"][0]["ranks"]
    assert [r["rank"] for r in reports] == list(range(ranks))
    for r in reports:
        assert r["store"]["name"] == "composite(mapped+rank)" and r["plan"]["local_blocks"] == 0, r
        assert r["store"]["far_rank"]["reads"] == "in place", r["store"]
        # Its own far rank holds its far blocks (with the grid no pass reads, placed far too) and
        # reports the memory that costs.
        window = r["store"]["far_rank"]["window_bytes"]
        assert window >= r["plan"]["far_bytes"] > 0, (window, r["plan"])
        assert r["store"]["far_rank"]["peak_rss_bytes"] >= window
        blocks = r["plan"]["far_blocks"]
        assert 0 < blocks < 16 and r["store"]["blocks_read"] == len(r["passes"]) * blocks, (r["store"], r["plan"])


@pytest.mark.parametrize("algorithm", ["bfs", "sssp"])
def test_a_sliced_push_reads_each_block_once(tg_bin, graphs, algorithm):
    # A slice is a run of whole block rows: the slices of a pass together read the blocks one
    # unsliced pass reads, no more, while their updates leave early.
    def run(*slices):
        res = mpirun(tg_bin, 2, "run", algorithm, graphs["directed"], "-r", "1", "--store", "file", "--exchange", "ring",
                     *slices, "--exchange-memory", "256K", "--json")
        assert res.returncode == 0, res.stderr
        return json.loads(res.stdout)["trials"][0]["ranks"]
    whole, sliced = run(), run("--slices", "4")
    assert [r["store"]["blocks_read"] for r in sliced] == [r["store"]["blocks_read"] for r in whole]
    assert all(r["store"]["blocks_read"] > 0 for r in sliced)
    assert sum(p["updates_sent_early"] for r in sliced for p in r["passes"]) > 0
    assert sum(p["updates_sent_early"] for r in whole for p in r["passes"]) == 0


def test_every_rank_keeps_the_budget_with_blocks_far(tg, tg_bin, graphs, tmp):
    graph = graphs["large"]
    reference = tmp / "reference.npy"
    tg.run("run", "bfs", graph, "-r", "3", "-o", reference, check=True)
    # About 3.4 MiB of each rank's budget is hot (vertex state, frontiers, index, result, exchange
    # and pipeline; BFS ships no source values); a local block costs its bytes and two pages:
    # about 40% of its blocks stay local.
    budget = 4500 << 10
    res = mpirun(tg_bin, 4, "run", "bfs", graph, "-r", "3", "--memory-budget", "4500K", "--exchange-memory", "64K",
                 "--json", "-o", tmp / "bfs.npy")
    assert res.returncode == 0, res.stderr
    assert_same_answer(np.load(tmp / "bfs.npy"), np.load(reference), "bfs", "4 ranks under 6M each")
    report = json.loads(res.stdout)
    sanitized = SANITIZED  # shadow memory is no part of the promise
    assert report["within_budget"] is True or sanitized
    assert report["plan"]["memory"]["communication"] > 64 << 10  # the exchange is planned for
    for r in report["trials"][0]["ranks"]:
        assert r["plan"]["far_blocks"] > 0 and r["plan"]["local_blocks"] > 0, r["plan"]
        assert r["peak_rss_bytes"] <= budget + OVERHEAD or sanitized, r
        assert r["store"]["bytes_fetched"] > 0
    # Too small for a rank's hot data: refused before any edge is read, naming the exchange.
    res = mpirun(tg_bin, 2, "run", "bfs", graph, "-r", "3", "--memory-budget", "1M")
    assert res.returncode != 0 and "is too small" in res.stderr and "communication" in res.stderr, res.stderr


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_what_a_ranks_exchange_holds_is_what_its_plan_counts(tg, tg_bin, graphs, algorithm):
    # Each kernel declares what its exchanges hold per vertex on a rank (the source values a pull
    # ships, a merged forest's copy), and a rank under a budget plans exactly that as hot data,
    # besides --exchange-memory and a bitmap of every vertex. What the run held must be what was
    # planned: more would overrun the budget, less is room the plan took from the edge blocks.
    # BFS ships nothing (its source value is the source itself), so it plans nothing for it.
    graph = graphs["undirected"]
    n = tg.info(graph)["vertices"]
    extra = options_for(algorithm, "undirected")
    if algorithm == "sssp":
        extra += ["--direction", "pull"]  # SSSP pushes on its own; a pull pass ships its distances
    res = mpirun(tg_bin, 2, "run", algorithm, graph, *extra, "--memory-budget", "1G", "--exchange-memory", "64K",
                 "--json")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    planned = report["plan"]["memory"]["communication"] - (64 << 10) - (n + 63) // 64 * 8
    trial = report["trials"][0]
    # WCC makes no edge pass: its exchange is the merged forest's copy.
    assert (algorithm == "wcc") != any(it["direction"] == "pull" for it in trial["iterations"]), trial["iterations"]
    assert (planned == 0) == (algorithm == "bfs"), planned
    for r in trial["ranks"]:
        held = r["exchange_held_bytes"]
        assert held["shipped_values"] + held["forest_copy"] == planned, (r["rank"], held, planned)
        assert (held["forest_copy"] > 0) == (algorithm == "wcc"), held


def test_plan_shows_each_ranks_plan(tg, graphs):
    report = tg.run("plan", "pr", graphs["large"], "--memory-budget", "6M", "--ranks", "4", "--exchange-memory", "64K",
                    "--json", check=True).json()
    plans = report["rank_plans"]
    assert len(plans) == 4 and len(report["partition"]["ranks"]) == 4
    assert plans[0]["rows"][0] == 0 and plans[-1]["rows"][1] == 16
    assert all(p["memory"]["communication"] > 0 and p["budget_bytes"] == 6 << 20 for p in plans)
    # Each rank places only its rows' blocks: together they place about the one-process plan's.
    whole = tg.run("plan", "pr", graphs["large"], "--far-ratio", "0", "--json", check=True).json()
    placed = sum(p["local_bytes"] + p["far_bytes"] for p in plans)
    assert whole["edge_bytes"] <= placed < 1.5 * whole["edge_bytes"]
    text = tg.run("plan", "pr", graphs["large"], "--memory-budget", "6M", "--ranks", "2", "--exchange-memory", "64K",
                  check=True).stdout
    assert "rank 0 of 2" in text and "rank 1 of 2" in text and "block rows" in text
    # The accumulate exchange also holds its inbox window: 8 bytes and a bit per master.
    accumulate = tg.run("plan", "pr", graphs["large"], "--memory-budget", "6M", "--ranks", "4", "--exchange-memory",
                        "64K", "--exchange", "accumulate", "--json", check=True).json()
    for plain, more, share in zip(plans, accumulate["rank_plans"], report["partition"]["ranks"]):
        masters = share["end"] - share["first"]
        extra = more["memory"]["communication"] - plain["memory"]["communication"]
        assert extra == masters * 8 + (masters + 63) // 64 * 8, (extra, masters)


@pytest.mark.parametrize("extra,words", [
    (["--memory-budget", "64M", "--exchange", "ring", "--slices", "4", "--steal"], "--steal with a memory budget on MPI ranks"),
])
def test_what_budgets_on_ranks_cannot_do_is_refused(tg_bin, graphs, extra, words):
    res = mpirun(tg_bin, 2, "run", "bfs", graphs["directed"], "-r", "1", *extra)
    assert res.returncode != 0 and words in res.stderr, res.stderr
