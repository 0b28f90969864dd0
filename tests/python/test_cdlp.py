"""`tiergraph run cdlp`: label propagation as LDBC Graphalytics defines it, against the
Graphalytics reference answer for p2p-Gnutella31 (exact), the definition computed here on every
dataset (directed ones count in- and out-neighbours), the engine's own verifier, the rounds
option, and agreement across threads, stores and block grids (test_dist.py runs it on MPI
ranks).
"""

from __future__ import annotations

import lzma
import sys
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import algo_helpers as h  # noqa: E402
from checked_build import first_under_sanitizers  # noqa: E402
from test_algorithms import (DATASETS, assert_same_on_every_setup, dsdir, gen_dir, kron, run_algo,  # noqa: E402,F401
                             store, tgb)


def graphalytics_cdlp(g: h.RefGraph, rounds: int = 10) -> dict[int, int]:
    """Graphalytics' definition: synchronous rounds, each vertex taking the most frequent of its
    neighbours' labels (the smallest of those tied; its own without neighbours); a directed
    graph's in- and out-neighbours both count, so one joined both ways counts twice."""
    near: dict[int, list[int]] = {v: [] for v in g.vertices}
    for (u, v) in g.edges:
        if u != v:
            near[u].append(v)
            near[v].append(u)
    label = {v: v for v in g.vertices}
    for _ in range(rounds):
        nxt = {}
        for v, ns in near.items():
            if not ns:
                nxt[v] = label[v]
                continue
            counts = Counter(label[u] for u in ns)
            most = max(counts.values())
            nxt[v] = min(lab for lab, c in counts.items() if c == most)
        label = nxt
    return label


def test_p2p31_matches_the_graphalytics_reference(store, tgb, dsdir, tmp_path):
    r = run_algo(tgb, "cdlp", store.graph("p2p-s"), tmp_path, "-t", 2)
    with lzma.open(dsdir / "grape-p2p31" / "p2p-31-CDLP.xz", "rt") as f:
        want = {int(v): int(label) for v, label in (line.split() for line in f)}
    got = r.numbers(int)
    assert len(got) == len(want) == 62586
    bad = [(v, got[v], want[v]) for v in got if got[v] != want[v]]
    assert not bad, f"{len(bad)} labels differ from the reference, first {bad[:5]}"


# p2p first: directed (in- and out-lists), what the sanitizers run.
@pytest.mark.parametrize("name", first_under_sanitizers(["p2p"] + sorted(set(DATASETS) - {"p2p"})))
def test_every_dataset_matches_the_definition(store, tgb, tmp_path, name):
    g = store.ref(name)
    got = run_algo(tgb, "cdlp", store.graph(name), tmp_path, "-t", 2).numbers(int)
    assert got == graphalytics_cdlp(g), f"cdlp on {name}"


@pytest.mark.parametrize("rounds", [1, 3])
def test_rounds_are_the_iterations_option(store, tgb, tmp_path, rounds):
    g = store.ref("eu-core")
    r = run_algo(tgb, "cdlp", store.graph("eu-core"), tmp_path, "-t", 2, "-i", rounds)
    assert r.numbers(int) == graphalytics_cdlp(g, rounds)
    assert r.numbers(int) != graphalytics_cdlp(g, rounds + 1), "eu-core's labels change every round"


# kron first: the one the sanitizer run takes (5 s there, p2p's 27 s, the same passes).
@pytest.mark.parametrize("which", first_under_sanitizers(["kron", "p2p"]))
def test_threads_stores_and_grids_agree(store, kron, tgb, tmp_path, which):
    graph = kron["plain"] if which == "kron" else store.graph(which)
    base = run_algo(tgb, "cdlp", graph, tmp_path, "-t", 1).numbers(int)
    assert len(set(base.values())) < len(base) / 2, "labels spread: most vertices joined a community"
    variants = [["-t", 4], ["-t", 2, "--store", "file"], ["-t", 2, "--store", "copying", "--store-buffers", 2],
                ["-t", 2, "--far-ratio", 0.6]]
    assert_same_on_every_setup(tgb, "cdlp", graph, tmp_path, base, variants, int, which)
