"""`tiergraph run tc`: triangles through every vertex and in all, against networkx's triangles() on
the undirected view (a directed graph's arcs as edges, self-loops dropped) on every dataset, the
verifier, agreement across threads, schedules, stores, block grids and MPI ranks, and its
refusals of options it does not take.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import algo_helpers as h  # noqa: E402
from checked_build import first_under_sanitizers  # noqa: E402
from test_algorithms import (DATASETS, assert_same_on_every_setup, dsdir, gen_dir, kron, run_algo,  # noqa: E402,F401
                             store, tgb)


def oracle_triangles(g: h.RefGraph) -> dict[int, int]:
    import networkx as nx
    G = nx.Graph()
    G.add_nodes_from(g.vertices)
    G.add_edges_from((u, v) for (u, v) in g.edges if u != v)
    return nx.triangles(G)


# p2p first: directed, skewed (ranked lists merged from both grids), what the sanitizers run.
@pytest.mark.parametrize("name", first_under_sanitizers(["p2p"] + sorted(set(DATASETS) - {"p2p"})))
def test_triangles_match_networkx(store, tgb, tmp_path, name):
    g = store.ref(name)
    r = run_algo(tgb, "tc", store.graph(name), tmp_path, "-t", 2)
    want = oracle_triangles(g)
    assert r.numbers(int) == want, f"tc on {name}"
    assert int(r.last("triangles")) == sum(want.values()) // 3


@pytest.mark.parametrize("which", first_under_sanitizers(["p2p", "kron"]))
def test_threads_schedules_stores_and_grids_agree(store, kron, tgb, tmp_path, which):
    graph = kron["plain"] if which == "kron" else store.graph(which)
    base = run_algo(tgb, "tc", graph, tmp_path, "-t", 1).numbers(int)
    assert sum(base.values()) > 0
    variants = [["-t", 4], ["-t", 2, "--schedule", "block"], ["-t", 2, "--store", "file"],
                ["-t", 2, "--store", "copying", "--store-order", "shuffled", "--store-buffers", 64],
                ["-t", 2, "--far-ratio", 0.6]]
    assert_same_on_every_setup(tgb, "tc", graph, tmp_path, base, variants, int, which)


def test_json_reports_the_total(store, tgb, tmp_path):
    proc = h.check_ok(h.run_tg(tgb, "run", "tc", store.graph("karate"), "--json", "--verify"))
    report = json.loads(proc.stdout)
    assert report["verification"] == "PASS"
    trial = report["trials"][-1]
    assert trial["summary"]["triangles"] == 45, trial  # Zachary's karate club
    assert len(trial["iterations"]) == 1, trial  # one triangle pass


def test_a_pool_of_two_buffers_streams_every_block(store, tgb, tmp_path):
    """The triangle pass reads its lists' arcs block by block: a pool that holds 2 of 128 blocks
    will do, and each block is read once a stream (count, fill; both grids of a directed graph)."""
    graph = tmp_path / "p2p-8.tg"
    h.check_ok(h.run_tg(tgb, "reblock", store.graph("p2p"), "-o", graph, "--blocks", 8))
    want = run_algo(tgb, "tc", store.graph("p2p"), tmp_path).numbers(int)
    out = tmp_path / "pool.tsv"
    proc = h.check_ok(h.run_tg(tgb, "run", "tc", graph, "--store", "copying", "--store-buffers", 2, "--json",
                               "--verify", "-o", out))
    assert h.tsv_numbers(h.read_tsv(out), int) == want
    trial = json.loads(proc.stdout)["trials"][-1]
    # Two streams (count, fill) of the out and the in grid's 64 blocks each, empty blocks skipped.
    assert 2 * 64 < trial["iterations"][0]["blocks_read"] <= 2 * 2 * 64, trial["iterations"][0]


def test_under_a_memory_budget_most_blocks_far(store, tgb, tmp_path):
    """A budget that leaves most blocks on the file tier: the same counts, within the budget, and
    a budget below what the pass holds is refused up front with the figure that would do."""
    graph = tmp_path / "p2p-8.tg"
    h.check_ok(h.run_tg(tgb, "reblock", store.graph("p2p"), "-o", graph, "--blocks", 8))
    want = run_algo(tgb, "tc", graph, tmp_path).numbers(int)
    out = tmp_path / "budget.tsv"
    proc = h.check_ok(h.run_tg(tgb, "run", "tc", graph, "--memory-budget", "5M", "--json", "-o", out))
    report = json.loads(proc.stdout)
    assert report["plan"]["far_ratio"] > 0.5 and report["within_budget"], report["plan"]
    assert h.tsv_numbers(h.read_tsv(out), int) == want
    proc = h.run_tg(tgb, "run", "tc", graph, "--memory-budget", "2M", "-o", tmp_path / "none.tsv")
    assert proc.returncode != 0 and "give --memory-budget" in proc.stderr, h.describe(proc)
    assert not (tmp_path / "none.tsv").exists()


# On ranks the lists pass round (engine/mpi/triangle_ring.h): an odd count of ranks, so that
# no rank's peer in a step is the one that sent to it.
@pytest.mark.skipif(shutil.which("mpirun") is None, reason="Open MPI is not installed")
@pytest.mark.parametrize("ranks", [2, 3])
def test_ranks_count_the_networkx_triangles(store, tgb, tmp_path, ranks):
    r = run_algo(tgb, "tc", store.graph("p2p"), tmp_path, "-t", 1, ranks=ranks)
    want = oracle_triangles(store.ref("p2p"))
    assert r.numbers(int) == want
    assert int(r.last("triangles")) == sum(want.values()) // 3


@pytest.mark.parametrize("args,needle", [(["-r", "3"], "--source"), (["--parents"], "--parents"),
                                         (["-k", "4"], "--samples")])
def test_bad_options(store, tgb, tmp_path, args, needle):
    proc = h.run_tg(tgb, "run", "tc", store.graph("karate"), *args)
    assert proc.returncode != 0 and needle in proc.stdout + proc.stderr, h.describe(proc)
