"""`tiergraph run lcc`: the local clustering coefficient as LDBC Graphalytics defines it, against
the Graphalytics reference answer for p2p-Gnutella31 (to its printed precision), networkx's
clustering() on every undirected dataset (the same doubles), the definition computed here for
directed ones, and agreement across threads, stores and block grids; on MPI ranks too.
"""

from __future__ import annotations

import lzma
import shutil
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


def graphalytics_lcc(g: h.RefGraph) -> dict[int, float]:
    """Graphalytics' definition: the arcs among v's in- and out-neighbours (v excluded) over
    |N(v)| (|N(v)| - 1); an undirected edge is an arc each way."""
    succ = {v: set() for v in g.vertices}
    for (u, v) in g.edges:
        if u == v:
            continue
        succ[u].add(v)
        if not g.directed:
            succ[v].add(u)
    near = {v: set(succ[v]) for v in g.vertices}
    for u in g.vertices:
        for v in succ[u]:
            near[v].add(u)
    out = {}
    for v in g.vertices:
        n = near[v]
        k = len(n)
        arcs = sum(len(succ[u] & n) for u in n)
        out[v] = arcs / (k * (k - 1)) if k >= 2 else 0.0
    return out


@pytest.mark.parametrize("ranks", [None, 3] if shutil.which("mpirun") else [None])
def test_p2p31_matches_the_graphalytics_reference(store, tgb, dsdir, tmp_path, ranks):
    r = run_algo(tgb, "lcc", store.graph("p2p-s"), tmp_path, "-t", 2 if ranks is None else 1, ranks=ranks)
    with lzma.open(dsdir / "grape-p2p31" / "p2p-31-LCC.xz", "rt") as f:
        want = dict(line.split() for line in f)
    got = r.numbers(float)
    assert len(got) == len(want) == 62586
    bad = [(v, got[v], want[str(v)]) for v in got if f"{got[v]:.15e}" != want[str(v)]]
    assert not bad, f"{len(bad)} coefficients differ from the reference, first {bad[:5]}"


# p2p first: directed, skewed (ranked lists merged from both grids), what the sanitizers run.
@pytest.mark.parametrize("name", first_under_sanitizers(["p2p"] + sorted(set(DATASETS) - {"p2p"})))
def test_every_dataset_matches_the_definition(store, tgb, tmp_path, name):
    g = store.ref(name)
    got = run_algo(tgb, "lcc", store.graph(name), tmp_path, "-t", 2).numbers(float)
    assert got == graphalytics_lcc(g), f"lcc on {name}"
    if not g.directed:
        import networkx as nx
        assert got == nx.clustering(g.nx()), f"lcc on {name} against networkx"


@pytest.mark.parametrize("which", first_under_sanitizers(["p2p", "kron"]))
def test_threads_stores_and_grids_agree(store, kron, tgb, tmp_path, which):
    graph = kron["plain"] if which == "kron" else store.graph(which)
    base = run_algo(tgb, "lcc", graph, tmp_path, "-t", 1).numbers(float)
    assert any(x > 0 for x in base.values())
    variants = [["-t", 4], ["-t", 2, "--store", "file"], ["-t", 2, "--store", "copying", "--store-buffers", 2]]
    assert_same_on_every_setup(tgb, "lcc", graph, tmp_path, base, variants, float, which)

