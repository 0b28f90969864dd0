"""`tiergraph run bc`: betweenness centrality against networkx (exact from every vertex on small
graphs, from the same sampled sources on larger ones, directed and undirected), the verifier
(Brandes serially) on every dataset, agreement across threads, directions, schedules and block
grids, and its options' errors.

networkx's betweenness_centrality_subset(G, S, all targets, normalized=False) is the sum over the
sources in S of their dependencies, halved on undirected graphs (each pair counted once):
tiergraph's score is the unhalved sum (GAPBS's), so the oracle doubles it there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import algo_helpers as h  # noqa: E402
from checked_build import first_under_sanitizers  # noqa: E402
from test_algorithms import DATASETS, dsdir, gen_dir, kron, run_algo, store, tgb  # noqa: E402,F401


def oracle_bc(g: h.RefGraph, sources) -> dict[int, float]:
    import networkx as nx
    G = g.nx()
    sub = nx.betweenness_centrality_subset(G, sources=list(sources), targets=list(G), normalized=False)
    scale = 1.0 if g.directed else 2.0
    return {v: scale * b for v, b in sub.items()}


def assert_close(got: dict, want: dict, what: str):
    assert set(got) == set(want), what
    bad = [(v, got[v], want[v]) for v in want if abs(got[v] - want[v]) > 1e-9 * max(1.0, abs(want[v]))]
    assert not bad, f"{what}: {len(bad)} scores differ, first {bad[:5]}"


def sources_of(r) -> list[int]:
    """The sources a run drew, as original ids, from its JSON report."""
    return r["trials"][-1]["sources"]


@pytest.mark.parametrize("name", ["karate", "lesmis"])
def test_exact_betweenness_matches_networkx(store, tgb, tmp_path, name):
    g = store.ref(name)
    r = run_algo(tgb, "bc", store.graph(name), tmp_path, "-k", "all")
    assert int(r.last("sources")) == len([v for v, d in g.out_degree().items() if d > 0])
    assert_close(r.numbers(float), oracle_bc(g, g.vertices), f"bc -k all on {name}")


@pytest.mark.parametrize("name,k,seed", [("eu-core", 16, 3), ("power", 8, 1), ("p2p", 4, 7), ("p2p-s", 4, 2),
                                         ("wiki-vote", 8, 5)])
def test_sampled_betweenness_matches_networkx_from_the_same_sources(store, tgb, tmp_path, name, k, seed):
    g = store.ref(name)
    graph = store.graph(name)
    out = tmp_path / "bc.tsv"
    proc = h.check_ok(h.run_tg(tgb, "run", "bc", graph, "-k", k, "--seed", seed, "--json", "--verify", "-o", out))
    report = json.loads(proc.stdout)
    assert report["verification"] == "PASS"
    sources = sources_of(report)
    assert len(sources) == k and len(set(sources)) == k
    got = h.tsv_numbers(h.read_tsv(out), float)
    assert_close(got, oracle_bc(g, sources), f"bc -k {k} on {name}")


def test_one_given_source(store, tgb, tmp_path):
    g = store.ref("eu-core")
    r = run_algo(tgb, "bc", store.graph("eu-core"), tmp_path, "-r", 160)
    assert_close(r.numbers(float), oracle_bc(g, [160]), "bc -r 160 on eu-core")


def test_verify_passes_on_every_dataset(store, tgb, tmp_path):
    for name in sorted(DATASETS):
        r = run_algo(tgb, "bc", store.graph(name), tmp_path, "-k", 2, trials=2)
        assert len(r.values) == len(store.ref(name).vertices)


@pytest.mark.parametrize("which", first_under_sanitizers(["kron", "p2p"]))
def test_threads_directions_schedules_and_grids_agree(store, kron, tgb, tmp_path, which):
    graph = kron["plain"] if which == "kron" else store.graph(which)
    base = run_algo(tgb, "bc", graph, tmp_path, "-t", 1, "--seed", 5, "-k", 6).numbers(float)
    variants = [["-t", t, "--direction", d] for t in (2, 4) for d in ("auto", "push", "pull")]
    variants += [["-t", 2, "--schedule", "block"], ["-t", 2, "--store", "file"],
                 ["-t", 2, "--store", "copying", "--store-order", "shuffled", "--store-buffers", 16]]
    for opts in variants:
        other = run_algo(tgb, "bc", graph, tmp_path, "--seed", 5, "-k", 6, *opts).numbers(float)
        assert_close(other, base, f"bc on {which} {opts}")
    reblocked = tmp_path / "reblocked.tg"
    h.check_ok(h.run_tg(tgb, "reblock", graph, "-o", reblocked, "--blocks", 8))
    assert_close(run_algo(tgb, "bc", reblocked, tmp_path, "--seed", 5, "-k", 6).numbers(float), base,
                 f"bc on {which} in 8x8 blocks")


def test_under_a_memory_budget(store, tgb, tmp_path):
    graph = store.graph("p2p")
    base = run_algo(tgb, "bc", graph, tmp_path, "--seed", 4, "-k", 3).numbers(float)
    proc = h.check_ok(h.run_tg(tgb, "run", "bc", graph, "--seed", 4, "-k", 3, "--far-ratio", 0.6, "--json",
                               "-o", tmp_path / "far.tsv"))
    report = json.loads(proc.stdout)
    assert report["plan"]["far_bytes"] > 0, report["plan"]
    assert_close(h.tsv_numbers(h.read_tsv(tmp_path / "far.tsv"), float), base, "bc with 60% of the blocks far")


@pytest.mark.parametrize("args,needle", [
    (["-k", "-1"], "--samples"),
    (["-k", "many"], "--samples"),
    (["-r", "35"], "35"),
    (["--parents"], "--parents"),
])
def test_bad_options(store, tgb, tmp_path, args, needle):
    proc = h.run_tg(tgb, "run", "bc", store.graph("karate"), *args)
    assert proc.returncode != 0 and needle in proc.stdout + proc.stderr, h.describe(proc)
