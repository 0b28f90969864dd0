"""`tiergraph run`: every algorithm against independent oracles (networkx, scipy, numpy, the
libgrape-lite reference answers), consistency across threads / directions / block grids, the
verifiers, NumPy output and option errors.

Graphs: the shared datasets (parsed here from their text, not through tiergraph) and small graphs
written from Python. Binary: $TG_BIN or <repo>/build/tiergraph. Datasets: $TG_DATASETS_DIR, else
<repo>/../shared/datasets, else /work/shared/datasets (tests that need them skip without them).
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import algo_helpers as h  # noqa: E402
from algo_helpers import INF  # noqa: E402

REPO = HERE.parents[1]
ALGOS = ["bfs", "sssp", "wcc", "pr", "radii"]


# ------------------------------------------------------------------------------------------------
# Fixtures (local, so this file does not depend on conftest.py's details).

@pytest.fixture(scope="session")
def tgb() -> Path:
    env = os.environ.get("TG_BIN")
    path = Path(env) if env else REPO / "build" / "tiergraph"
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.skip(f"tiergraph binary not found at {path} (build it, or set TG_BIN)")
    return path


@pytest.fixture(scope="session")
def dsdir() -> Path:
    env = os.environ.get("TG_DATASETS_DIR")
    candidates = [Path(env)] if env else [REPO.parent / "shared" / "datasets", Path("/work/shared/datasets")]
    for c in candidates:
        if c.is_dir():
            return c
    pytest.skip(f"no datasets directory (tried {', '.join(map(str, candidates))})")


def _metis(text, _opts):
    vertices, edges, weighted = h.parse_metis(text)
    return h.build_ref(edges, directed=False, weighted=weighted, vertices=vertices)


def _snap(directed, keep_loops=False):
    def load(text, _opts):
        return h.build_ref(h.parse_edge_list(text), directed=directed, weighted=False, keep_self_loops=keep_loops)
    return load


def _dimacs(text, _opts):
    vertices, edges = h.parse_dimacs(text)
    return h.build_ref(edges, directed=True, weighted=True, vertices=vertices)


def _dimacs_arcs(text, _opts):
    vertices, edges = h.parse_dimacs(text)
    assert vertices is None  # no problem line: ids are labels
    return h.build_ref(edges, directed=True, weighted=True)


def _cedge(text, _opts):
    edges = h.parse_edge_list(text, columns=(1, 2), weight_column=3)
    return h.build_ref(edges, directed=False, weighted=True)


def _csv_undirected(text, _opts):
    return h.build_ref(h.parse_edge_list(text, sep=",", header=True), directed=False, weighted=False)


def _p2p(directed):
    def load(text, _opts):
        return h.build_ref(h.parse_edge_list(text, weight_column=2), directed=directed, weighted=True)
    return load


# name: (file under the datasets directory, loader, convert options)
DATASETS = {
    "karate": ("tiny-karate.graph.xz", _metis, []),
    "lesmis": ("tiny-lesmis.graph.xz", _metis, []),
    "power": ("infra-power-grid.graph.xz", _metis, []),
    "eu-core": ("email-Eu-core.txt.xz", _snap(True), []),
    "eu-core-loops": ("email-Eu-core.txt.xz", _snap(True, keep_loops=True), ["--keep-self-loops"]),
    "rome": ("road-rome99.gr.xz", _dimacs, []),
    "cal": ("road-cal.cedge.xz", _cedge, ["-s"]),
    "lastfm": ("soc-lastfm-asia.csv.xz", _csv_undirected, ["-s"]),
    "enron": ("email-Enron-undirected.txt.xz", _snap(False), ["-s"]),
    "wiki-vote": ("soc-wiki-Vote.txt.xz", _snap(True), []),
    "bremen": ("road-osm-bremen-dist.gr.xz", _dimacs_arcs, []),
    "p2p": ("grape-p2p31/p2p-31.e.xz", _p2p(True), []),
    "p2p-s": ("grape-p2p31/p2p-31.e.xz", _p2p(False), ["-s"]),
}


class Store:
    """Session cache: each dataset converted once and parsed once."""

    def __init__(self, binary: Path, datasets: Path, work: Path):
        self.binary, self.datasets, self.work = binary, datasets, work
        self._graphs: dict[str, Path] = {}
        self._refs: dict[str, h.RefGraph] = {}
        self._texts: dict[str, str] = {}

    def path(self, rel: str) -> Path:
        p = self.datasets / rel
        if not p.is_file():
            pytest.skip(f"dataset {rel} is not in {self.datasets}")
        return p

    def text(self, rel: str) -> str:
        if rel not in self._texts:
            self._texts[rel] = h.read_text(self.path(rel))
        return self._texts[rel]

    def graph(self, name: str) -> Path:
        if name not in self._graphs:
            rel, _, opts = DATASETS[name]
            out = self.work / f"{name}.tg"
            h.check_ok(h.run_tg(self.binary, "convert", self.path(rel), "-o", out, "--overwrite", *opts))
            self._graphs[name] = out
        return self._graphs[name]

    def ref(self, name: str) -> h.RefGraph:
        if name not in self._refs:
            rel, loader, opts = DATASETS[name]
            self._refs[name] = loader(self.text(rel), opts)
        return self._refs[name]


@pytest.fixture(scope="session")
def store(tgb, dsdir, tmp_path_factory) -> Store:
    return Store(tgb, dsdir, tmp_path_factory.mktemp("algo-datasets"))


@pytest.fixture(scope="session")
def gen_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("algo-generated")


# ------------------------------------------------------------------------------------------------
# Running an algorithm.

class Run:
    def __init__(self, proc, out: Path | None):
        self.proc = proc
        self.out = out
        self.summary = h.summary_lines(proc.stdout)
        self.values = h.read_tsv(out) if out is not None and proc.returncode == 0 else None

    @property
    def source(self) -> int:
        return int(self.summary["Source"][-1])

    def numbers(self, kind=int):
        return h.tsv_numbers(self.values, kind)

    def last(self, key: str) -> str:
        return self.summary[key][-1]


_counter = [0]


def run_algo(tgb, algo, graph, tmp: Path, *opts, verify: bool = True, trials: int | None = None,
             ranks: int | None = None) -> Run:
    """Runs ALGO on GRAPH writing a TSV (in one process, or on RANKS MPI ranks); checks success and
    (with verify) that every trial says 'Verification: PASS'."""
    _counter[0] += 1
    out = tmp / f"{algo}-{_counter[0]}.tsv"
    args = ["run", algo, graph, "-o", out, *opts]
    if verify:
        args.append("--verify")
    if trials is not None:
        args += ["-n", trials]
    proc = h.check_ok(h.run_tg(tgb, *args) if ranks is None else h.run_tg_on_ranks(tgb, ranks, *args))
    r = Run(proc, out)
    if verify:
        verdicts = r.summary.get("Verification", [])
        assert verdicts and all(v == "PASS" for v in verdicts), h.describe(proc)
        if trials is not None:
            assert len(verdicts) == trials, h.describe(proc)
    return r


def assert_same_on_every_setup(tgb, algo, graph, tmp: Path, base: dict, variants, kind=int, what: str = ""):
    """ALGO on GRAPH gives `base` (its numbers read as `kind`) with each variant's options (threads,
    stores, far ratios) and on the graph reblocked into 8x8 blocks."""
    for opts in variants:
        assert run_algo(tgb, algo, graph, tmp, *opts).numbers(kind) == base, f"{algo} on {what} {opts}"
    reblocked = tmp / "reblocked.tg"
    h.check_ok(h.run_tg(tgb, "reblock", graph, "-o", reblocked, "--blocks", 8))
    assert run_algo(tgb, algo, reblocked, tmp, "-t", 2).numbers(kind) == base, f"{algo} on {what} in 8x8 blocks"


def assert_same(got: dict, want: dict, what: str, close=None):
    problems = h.first_mismatches(got, want, close)
    assert not problems, f"{what}:\n  " + "\n  ".join(problems)


def high_degree_vertex(g: h.RefGraph) -> int:
    deg = g.out_degree()
    return max(g.vertices, key=lambda v: (deg[v], -v))


# ------------------------------------------------------------------------------------------------
# BFS

BFS_DATASETS = ["karate", "lesmis", "power", "eu-core", "rome", "cal", "lastfm", "wiki-vote", "p2p", "p2p-s"]


@pytest.mark.parametrize("name", BFS_DATASETS)
def test_bfs_matches_networkx(store, tgb, tmp_path, name):
    g, graph = store.ref(name), store.graph(name)
    # Two trials from seeded sources (the last is written), then an explicit hub source.
    r = run_algo(tgb, "bfs", graph, tmp_path, "--seed", 7, trials=2)
    assert len(r.summary["Source"]) == 2
    want = h.oracle_bfs(g, r.source)
    assert_same(r.numbers(), want, f"bfs {name} from {r.source}")
    assert int(r.last("levels")) == max(d for d in want.values() if d != INF) + 1
    hub = high_degree_vertex(g)
    r = run_algo(tgb, "bfs", graph, tmp_path, "-r", hub)
    assert r.source == hub
    assert_same(r.numbers(), h.oracle_bfs(g, hub), f"bfs {name} from {hub}")


def test_bfs_on_text_input_converted_on_the_fly(store, tgb, tmp_path):
    """`run` on a text file converts it first; results are the same as from a converted file."""
    g = store.ref("eu-core")
    src = store.path(DATASETS["eu-core"][0])
    r = run_algo(tgb, "bfs", src, tmp_path, "-r", 0)
    assert_same(r.numbers(), h.oracle_bfs(g, 0), "bfs eu-core (text input) from 0")
    # A source that only has a self-loop (removed): everything else is unreached.
    only_loops = sorted(set(g.vertices) - {x for e in g.edges for x in e})
    assert only_loops, "email-Eu-core has vertices whose only edges are self-loops"
    s = only_loops[0]
    r = run_algo(tgb, "bfs", store.graph("eu-core"), tmp_path, "-r", s)
    vals = r.numbers()
    assert vals[s] == 0 and all(vals[v] == INF for v in g.vertices if v != s)


def test_bfs_parents_with_verify(store, tgb, tmp_path):
    for name in ["eu-core", "p2p-s", "power"]:
        plain = run_algo(tgb, "bfs", store.graph(name), tmp_path, "--seed", 3, trials=3)
        tree = run_algo(tgb, "bfs", store.graph(name), tmp_path, "--seed", 3, "--parents", trials=3)
        assert tree.summary["Source"] == plain.summary["Source"]
        assert tree.values == plain.values, f"--parents changed bfs depths on {name}"
    bad = h.run_tg(tgb, "run", "wcc", store.graph("karate"), "--parents")
    assert bad.returncode == 1 and "--parents" in bad.stderr, h.describe(bad)


# ------------------------------------------------------------------------------------------------
# SSSP

SSSP_DATASETS = ["lesmis", "rome", "cal", "bremen", "p2p", "p2p-s"]


@pytest.mark.parametrize("name", SSSP_DATASETS)
def test_sssp_matches_dijkstra(store, tgb, tmp_path, name):
    g, graph = store.ref(name), store.graph(name)
    real = name == "cal"
    for opts in (["--seed", 11], ["-r", high_degree_vertex(g)]):
        r = run_algo(tgb, "sssp", graph, tmp_path, *opts)
        got = r.numbers(float)
        want = h.oracle_sssp(g, r.source)
        if real:
            assert_same(got, want, f"sssp {name} from {r.source}", h.rel_close(1e-9))
        else:
            assert all(v == "infinity" or h.NUMBER.match(v) and "." not in v for v in r.values.values()), \
                "integer weights must give integer distances"
            assert_same(got, want, f"sssp {name} from {r.source}")


def test_sssp_real_weights_any_delta_any_direction(store, tgb, tmp_path):
    """road-cal (float weights, ~700 hops deep): the bucket width and the pass direction change
    the schedule, never the distances (byte-identical output, equal to Dijkstra)."""
    g, graph = store.ref("cal"), store.graph("cal")
    want = h.oracle_sssp(g, 0)
    first = None
    for opts in (["-d", "0.0001"], ["-d", "0.05", "--direction", "push"], ["-d", "100", "--direction", "pull"],
                 ["-d", "1", "-t", "1"]):
        r = run_algo(tgb, "sssp", graph, tmp_path, "-r", 0, *opts)
        assert_same(r.numbers(float), want, f"sssp cal {opts}", h.rel_close(1e-9))
        first = first or r.values
        assert r.values == first, f"sssp cal {opts}: output differs from the first run's"


@pytest.mark.parametrize("name", ["karate", "power", "eu-core", "rome"])
def test_sssp_unit_weights_equals_bfs(store, tgb, tmp_path, name):
    g, graph = store.ref(name), store.graph(name)
    s = high_degree_vertex(g)
    sssp = run_algo(tgb, "sssp", graph, tmp_path, "-r", s, "--unit-weights")
    bfs = run_algo(tgb, "bfs", graph, tmp_path, "-r", s)
    assert sssp.values == bfs.values, f"sssp --unit-weights differs from bfs on {name}"
    assert_same(sssp.numbers(), h.oracle_bfs(g, s), f"sssp --unit-weights {name}")


def test_sssp_refuses_unweighted_graph(store, tgb, tmp_path):
    out = tmp_path / "x.tsv"
    proc = h.run_tg(tgb, "run", "sssp", store.graph("karate"), "-o", out)
    assert proc.returncode == 1, h.describe(proc)
    assert "--unit-weights" in proc.stderr, h.describe(proc)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_sssp_refuses_negative_weights(store, tgb, tmp_path):
    src = store.path("soc-sign-bitcoinotc.csv.xz")
    out = tmp_path / "x.tsv"
    proc = h.run_tg(tgb, "run", "sssp", src, "--columns", "0,1,2", "-o", out)
    assert proc.returncode == 1, h.describe(proc)
    assert "negative" in proc.stderr, h.describe(proc)
    assert not out.exists() and list(tmp_path.iterdir()) == []
    # Hop distances ignore the signs: --unit-weights runs, and equals BFS.
    edges = h.parse_edge_list(store.text("soc-sign-bitcoinotc.csv.xz"), sep=",")
    g = h.build_ref(edges, directed=True, weighted=False)
    r = run_algo(tgb, "sssp", src, tmp_path, "--columns", "0,1,2", "--unit-weights", "-r", 1)
    assert_same(r.numbers(), h.oracle_bfs(g, 1), "sssp --unit-weights on bitcoin-otc from 1")


# ------------------------------------------------------------------------------------------------
# WCC

WCC_DATASETS = ["karate", "power", "eu-core", "rome", "cal", "lastfm", "enron", "wiki-vote", "bremen", "p2p"]


@pytest.mark.parametrize("name", WCC_DATASETS)
def test_wcc_matches_networkx(store, tgb, tmp_path, name):
    g = store.ref(name)
    r = run_algo(tgb, "wcc", store.graph(name), tmp_path)
    want = h.oracle_wcc(g)
    assert_same(r.numbers(), want, f"wcc {name}")
    assert int(r.last("components")) == len(set(want.values()))
    if name == "enron":
        assert int(r.last("components")) == 1065
    if name == "bremen":
        assert int(r.last("components")) == 343


# ------------------------------------------------------------------------------------------------
# PageRank

PR_DATASETS = ["karate", "lesmis", "power", "eu-core", "eu-core-loops", "rome", "lastfm", "wiki-vote"]


@pytest.mark.parametrize("name", PR_DATASETS)
def test_pagerank_matches_networkx(store, tgb, tmp_path, name):
    g = store.ref(name)
    r = run_algo(tgb, "pr", store.graph(name), tmp_path, "--tolerance", "1e-12")
    got = r.numbers(float)
    assert abs(sum(got.values()) - 1) < 1e-9
    assert float(r.last("last_change")) < 1e-12
    assert 1 < int(r.last("iterations")) < 1000
    want = h.oracle_pagerank_nx(g)
    assert set(got) == set(want)
    worst = max(abs(got[v] - want[v]) for v in want)
    assert worst < 1e-9, f"pr {name}: max |tiergraph - networkx| = {worst}"


@pytest.mark.parametrize("name", ["karate", "eu-core", "eu-core-loops", "p2p"])
def test_pagerank_fixed_iterations(store, tgb, tmp_path, name):
    g = store.ref(name)
    r = run_algo(tgb, "pr", store.graph(name), tmp_path, "-i", 20)
    assert int(r.last("iterations")) == 20
    got = r.numbers(float)
    assert abs(sum(got.values()) - 1) < 1e-9, f"ranks sum to {sum(got.values())}"
    want = h.oracle_pagerank_iterations(g, 20)
    worst = max(abs(got[v] - want[v]) for v in want)
    assert worst < 1e-12, f"pr -i 20 {name}: max |tiergraph - 20 power iterations| = {worst}"


@pytest.mark.parametrize("name", ["eu-core", "wiki-vote", "p2p"])
def test_pagerank_in_float_precision(store, tgb, tmp_path, name):
    """--precision float holds the contributions in floats: the ranks are 20 power iterations'
    within float's rounding, and not the double answer bit for bit (float is what ran)."""
    g = store.ref(name)
    got = run_algo(tgb, "pr", store.graph(name), tmp_path, "-i", 20, "--precision", "float").numbers(float)
    want = h.oracle_pagerank_iterations(g, 20)
    assert set(got) == set(want)
    worst = max(abs(got[v] - want[v]) / want[v] for v in want)
    assert worst < 1e-6, f"pr --precision float {name}: largest relative error {worst}"
    assert abs(sum(got.values()) - 1) < 1e-6
    double = run_algo(tgb, "pr", store.graph(name), tmp_path, "-i", 20).numbers(float)
    assert any(got[v] != double[v] for v in want)
    # Float's rounding moves the ranks by about 1e-7 an iteration: a finer tolerance is refused.
    proc = h.run_tg(tgb, "run", "pr", store.graph(name), "--precision", "float", "--tolerance", "1e-9")
    assert proc.returncode != 0 and "--tolerance 1e-09 cannot be reached with float" in proc.stderr


def test_pagerank_damping(store, tgb, tmp_path):
    g = store.ref("karate")
    r = run_algo(tgb, "pr", store.graph("karate"), tmp_path, "-i", 7, "--damping", 0.6)
    got, want = r.numbers(float), h.oracle_pagerank_iterations(g, 7, damping=0.6)
    assert max(abs(got[v] - want[v]) for v in want) < 1e-13


def test_self_loops_change_pagerank(store, tgb, tmp_path):
    """Kept self-loops are arcs (they count in the out-degree); removed ones are not."""
    a = run_algo(tgb, "pr", store.graph("eu-core"), tmp_path, "-i", 20).numbers(float)
    b = run_algo(tgb, "pr", store.graph("eu-core-loops"), tmp_path, "-i", 20).numbers(float)
    assert set(a) == set(b)
    assert max(abs(a[v] - b[v]) for v in a) > 1e-4


# ------------------------------------------------------------------------------------------------
# Radii

def test_radii_all_sources_on_karate(store, tgb, tmp_path):
    g = store.ref("karate")
    r = run_algo(tgb, "radii", store.graph("karate"), tmp_path, "-k", 64)
    assert int(r.last("sources")) == 34
    want = h.oracle_radii(g, g.vertices)
    assert_same(r.numbers(), want, "radii karate -k 64 (every vertex a source)")
    assert int(r.last("diameter_estimate")) == 5  # Zachary's karate club has diameter 5


@pytest.mark.parametrize("name,seed", [("eu-core", 1), ("eu-core", 2), ("power", 5), ("p2p", 9), ("lastfm", 4)])
def test_radii_single_source_equals_bfs(store, tgb, tmp_path, name, seed):
    """With -k 1 the one source is the only vertex at 0; everything else is its BFS depth."""
    g = store.ref(name)
    r = run_algo(tgb, "radii", store.graph(name), tmp_path, "-k", 1, "--seed", seed)
    assert int(r.last("sources")) == 1
    got = r.numbers()
    zeros = [v for v, x in got.items() if x == 0]
    assert len(zeros) == 1, f"radii -k 1: {len(zeros)} vertices at 0"
    assert g.out_degree()[zeros[0]] > 0, "sources must have out-edges"
    want = h.oracle_bfs(g, zeros[0])
    assert_same(got, want, f"radii -k 1 {name} (source {zeros[0]})")
    assert int(r.last("diameter_estimate")) == max(x for x in want.values() if x != INF)


@pytest.mark.parametrize("name", ["lesmis", "eu-core"])
def test_radii_sampled_estimates_are_bounded(store, tgb, tmp_path, name):
    """With 64 of more candidates: every estimate is at most the largest distance into the
    vertex from anywhere (its true in-eccentricity), the diameter estimate at most the diameter."""
    g = store.ref(name)
    dist = h.hop_distances_all(g)
    r = run_algo(tgb, "radii", store.graph(name), tmp_path, "-k", 64)
    assert int(r.last("sources")) == 64
    got = r.numbers()
    finite = np.where(np.isinf(dist), -1, dist)
    for i, v in enumerate(g.vertices):
        col = finite[:, i]
        if got[v] == INF:
            continue
        assert got[v] <= col.max(), f"vertex {v}: estimate {got[v]} > in-eccentricity {col.max()}"
    diameter = finite.max()
    est = int(r.last("diameter_estimate"))
    assert est == max(x for x in got.values() if x != INF)
    assert est <= diameter
    if not g.directed:  # estimates of neighbours differ by at most one hop
        for (u, v) in g.edges:
            assert abs(got[u] - got[v]) <= 1, f"edge {u}-{v}: estimates {got[u]}, {got[v]}"


def test_radii_power_grid_neighbours_within_one(store, tgb, tmp_path):
    g = store.ref("power")
    r = run_algo(tgb, "radii", store.graph("power"), tmp_path, "-k", 64, "--seed", 3)
    got = r.numbers()
    assert all(x != INF for x in got.values()), "the power grid is connected"
    for (u, v) in g.edges:
        assert abs(got[u] - got[v]) <= 1, f"edge {u}-{v}: estimates {got[u]}, {got[v]}"
    assert int(r.last("diameter_estimate")) <= 46


# ------------------------------------------------------------------------------------------------
# Every algorithm's verifier on every dataset (two trials each).

@pytest.mark.parametrize("name", sorted(DATASETS))
def test_verify_passes_for_every_algorithm(store, tgb, tmp_path, name):
    graph = store.graph(name)
    weighted = store.ref(name).weighted
    for algo, opts in [("bfs", ["--parents"]), ("sssp", [] if weighted else ["--unit-weights"]),
                       ("wcc", []), ("pr", []), ("radii", [])]:
        r = run_algo(tgb, algo, graph, tmp_path, *opts, trials=2)  # asserts 2 x 'Verification: PASS'
        assert len(r.values) == len(store.ref(name).vertices)


# ------------------------------------------------------------------------------------------------
# libgrape-lite reference answers on p2p-Gnutella31.

def _grape_reference(store, name) -> dict[int, str]:
    text = store.text(f"grape-p2p31/{name}.xz")
    ref = {}
    for line in text.splitlines():
        a, b = line.split()
        ref[int(a)] = b
    return ref


@pytest.mark.parametrize("graph,ref", [("p2p", "p2p-31-BFS-directed"), ("p2p-s", "p2p-31-BFS")])
def test_p2p_bfs_reference(store, tgb, tmp_path, graph, ref):
    want = {k: (INF if v == "9223372036854775807" else int(v)) for k, v in _grape_reference(store, ref).items()}
    r = run_algo(tgb, "bfs", store.graph(graph), tmp_path, "-r", 6)
    assert_same(r.numbers(), want, f"bfs {graph} from 6 vs {ref}")


@pytest.mark.parametrize("graph,ref", [("p2p", "p2p-31-SSSP-directed"), ("p2p-s", "p2p-31-SSSP")])
def test_p2p_sssp_reference(store, tgb, tmp_path, graph, ref):
    want = h.tsv_numbers(_grape_reference(store, ref), float)
    r = run_algo(tgb, "sssp", store.graph(graph), tmp_path, "-r", 6)
    assert_same(r.numbers(float), want, f"sssp {graph} from 6 vs {ref}")


def test_p2p_wcc_reference_partition(store, tgb, tmp_path):
    ref = _grape_reference(store, "p2p-31-WCC")
    r = run_algo(tgb, "wcc", store.graph("p2p"), tmp_path)
    got = r.numbers()
    assert int(r.last("components")) == 12
    assert set(got) == set(ref)
    # Same partition: the label maps are bijective between the two.
    pairs = {(got[v], ref[v]) for v in ref}
    assert len(pairs) == 12 == len({a for a, _ in pairs}) == len({b for _, b in pairs})
    # And tiergraph's labels are the least member ids.
    least = {}
    for v, lab in got.items():
        least[lab] = min(least.get(lab, v), v)
    assert all(lab == m for lab, m in least.items())


def test_p2p_pagerank_reference(store, tgb, tmp_path):
    want = h.tsv_numbers(_grape_reference(store, "p2p-31-PR"), float)
    r = run_algo(tgb, "pr", store.graph("p2p-s"), tmp_path, "-i", 10)
    got = r.numbers(float)
    assert_same(got, want, "pr p2p -s -i 10 vs p2p-31-PR", h.strictly_rel_close(1e-9))


# ------------------------------------------------------------------------------------------------
# Graphs written from Python.

def _random_edges(rng: random.Random, vertices: list[int], m: int, weight=None, loops=False):
    out = []
    while len(out) < m:
        u, v = rng.choice(vertices), rng.choice(vertices)
        if u == v and not loops:
            continue
        out.append((u, v, weight(rng) if weight else 1))
    return out


def _check_all(tgb, tmp, path, g: h.RefGraph, opts=(), sources=(), sssp=True, unit=False, real=False):
    """Runs every algorithm on PATH (+opts) and compares with the oracles for g."""
    opts = list(opts)
    src_list = list(sources) or [high_degree_vertex(g)]
    for s in src_list:
        r = run_algo(tgb, "bfs", path, tmp, *opts, "-r", s)
        assert_same(r.numbers(), h.oracle_bfs(g, s), f"bfs {path.name} from {s}")
        if sssp:
            extra = ["--unit-weights"] if unit else []
            r = run_algo(tgb, "sssp", path, tmp, *opts, "-r", s, *extra)
            want = h.oracle_bfs(g, s) if unit else h.oracle_sssp(g, s)
            assert_same(r.numbers(float), want, f"sssp {path.name} from {s}",
                        h.rel_close(1e-9) if real else None)
    r = run_algo(tgb, "wcc", path, tmp, *opts)
    assert_same(r.numbers(), h.oracle_wcc(g), f"wcc {path.name}")
    r = run_algo(tgb, "pr", path, tmp, *opts, "--tolerance", "1e-13")
    got, want = r.numbers(float), h.oracle_pagerank_nx(g)
    assert set(got) == set(want)
    assert max(abs(got[v] - want[v]) for v in want) < 1e-9, f"pr {path.name}"
    r = run_algo(tgb, "pr", path, tmp, *opts, "-i", 20)
    got, want = r.numbers(float), h.oracle_pagerank_iterations(g, 20)
    assert max(abs(got[v] - want[v]) for v in want) < 1e-12, f"pr -i 20 {path.name}"
    assert abs(sum(got.values()) - 1) < 1e-9
    r = run_algo(tgb, "radii", path, tmp, *opts, "-k", 64)
    candidates = [v for v, d in g.out_degree().items() if d > 0]
    assert int(r.last("sources")) == min(64, len(candidates))
    if len(candidates) <= 64:
        assert_same(r.numbers(), h.oracle_radii(g, candidates), f"radii {path.name} (all sources)")


def test_directed_unweighted_with_isolated_vertices(tgb, tmp_path):
    rng = random.Random(1)
    n = 300
    edges = _random_edges(rng, list(range(1, 251)), 700)  # 251..300 isolated
    edges += edges[:20]  # duplicates
    path = tmp_path / "dir.mtx"
    h.write_mtx(path, n, edges)
    g = h.build_ref(edges, directed=True, weighted=False, vertices=range(1, n + 1))
    _check_all(tgb, tmp_path, path, g, sources=[high_degree_vertex(g), 300], unit=True)
    # SSSP without weights is refused.
    proc = h.run_tg(tgb, "run", "sssp", path)
    assert proc.returncode == 1 and "--unit-weights" in proc.stderr, h.describe(proc)


def test_undirected_int_weights_disconnected(tgb, tmp_path):
    rng = random.Random(2)
    n = 240
    w = lambda r: r.randint(1, 20)  # noqa: E731
    edges = _random_edges(rng, list(range(1, 101)), 250, w) + _random_edges(rng, list(range(101, 201)), 180, w)
    # The same edge again (either orientation) with other weights: the least must win.
    edges += [(v, u, ww + 5) for u, v, ww in edges[:30]] + [(u, v, max(1, ww - 3)) for u, v, ww in edges[30:60]]
    path = tmp_path / "undirected.mtx"
    h.write_mtx(path, n, edges, "integer", "symmetric")
    g = h.build_ref(edges, directed=False, weighted=True, vertices=range(1, n + 1))
    _check_all(tgb, tmp_path, path, g, sources=[1, 150, 239])


def test_directed_real_weights_sparse_labels(tgb, tmp_path):
    """Edge list with large non-contiguous labels and float weights; duplicates keep the least."""
    rng = random.Random(3)
    labels = sorted(rng.sample(range(10**12, 10**12 + 10**9), 400)) + [2**62 + 5, 17]
    edges = _random_edges(rng, labels, 1500, lambda r: r.uniform(0.001, 10.0))
    edges += [(u, v, ww * 0.5) for u, v, ww in edges[:100]] + [(u, v, ww * 2) for u, v, ww in edges[100:200]]
    path = tmp_path / "real.txt"
    h.write_edge_list(path, edges, weighted=True)
    g = h.build_ref(edges, directed=True, weighted=True)
    _check_all(tgb, tmp_path, path, g, sources=[labels[0], high_degree_vertex(g)], real=True)
    # A source that is not a label in the file.
    out = tmp_path / "missing.tsv"
    proc = h.run_tg(tgb, "run", "bfs", path, "-r", 10**12 + 10**9 + 1, "-o", out)
    assert proc.returncode == 1 and "no vertex with id" in proc.stderr, h.describe(proc)
    assert not out.exists()


def test_int64_weights(tgb, tmp_path):
    """Weights beyond int32 (stored as int64): exact distances."""
    rng = random.Random(8)
    edges = _random_edges(rng, list(range(1, 301)), 1200, lambda r: r.randint(1, 2**40))
    path = tmp_path / "big.gr"
    with open(path, "w") as f:
        f.write(f"c big weights\np sp 300 {len(edges)}\n")
        f.writelines(f"a {u} {v} {w}\n" for u, v, w in edges)
    g = h.build_ref(edges, directed=True, weighted=True, vertices=range(1, 301))
    for s in (1, high_degree_vertex(g)):
        r = run_algo(tgb, "sssp", path, tmp_path, "-r", s)
        got = h.tsv_numbers(r.values, int)
        want = {v: (INF if d == INF else int(d)) for v, d in h.oracle_sssp(g, s).items()}
        assert_same(got, want, f"sssp int64 weights from {s}")


def test_zero_weights_and_any_delta(tgb, tmp_path):
    rng = random.Random(4)
    edges = _random_edges(rng, list(range(0, 500)), 2500, lambda r: r.choice([0, 0, 1, 2, 3, 50, 1000]))
    path = tmp_path / "zeros.txt"
    h.write_edge_list(path, edges, weighted=True)
    graph = tmp_path / "zeros.tg"
    h.check_ok(h.run_tg(tgb, "convert", path, "-o", graph))
    g = h.build_ref(edges, directed=True, weighted=True)
    s = high_degree_vertex(g)
    want = h.oracle_sssp(g, s)
    first = None
    for delta in [None, 1, 3, 64, 100000]:
        opts = ["-r", s] + (["-d", delta] if delta else [])
        r = run_algo(tgb, "sssp", graph, tmp_path, *opts)
        assert_same(r.numbers(), want, f"sssp with zero weights, delta {delta}")
        first = first or r.values
        assert r.values == first


@pytest.mark.parametrize("keep", [False, True])
def test_self_loops(tgb, tmp_path, keep):
    rng = random.Random(5)
    edges = _random_edges(rng, list(range(1, 41)), 120, loops=True)
    edges += [(v, v, 1) for v in range(1, 41, 3)] + [(99, 99, 1)]  # 99 has only a self-loop
    path = tmp_path / "loops.txt"
    h.write_edge_list(path, edges, weighted=False)
    opts = ["--keep-self-loops"] if keep else []
    g = h.build_ref(edges, directed=True, weighted=False, keep_self_loops=keep)
    assert 99 in g.vertices
    _check_all(tgb, tmp_path, path, g, opts=opts, sources=[1, 99], unit=True)
    # Undirected as well.
    gu = h.build_ref(edges, directed=False, weighted=False, keep_self_loops=keep)
    _check_all(tgb, tmp_path, path, gu, opts=opts + ["-s"], sources=[2, 99], unit=True)
    r = run_algo(tgb, "radii", path, tmp_path, *opts, "-k", 64)
    assert r.numbers()[99] == (0 if keep else INF)


@pytest.mark.parametrize("kind", ["metis", "mtx"])
def test_single_vertex(tgb, tmp_path, kind):
    path = tmp_path / ("one.graph" if kind == "metis" else "one.mtx")
    path.write_text("1 0\n\n" if kind == "metis" else "%%MatrixMarket matrix coordinate pattern general\n1 1 0\n")
    expect = {"bfs": "0", "wcc": "1", "pr": "1", "radii": "infinity"}
    for algo, value in expect.items():
        r = run_algo(tgb, algo, path, tmp_path)
        assert r.values == {1: value}, f"{algo} on one vertex: {r.values}"
    r = run_algo(tgb, "sssp", path, tmp_path, "--unit-weights", "-r", 1)
    assert r.values == {1: "0"}
    assert r.source == 1


def test_no_edges(tgb, tmp_path):
    path = tmp_path / "empty.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n5 5 0\n")
    r = run_algo(tgb, "bfs", path, tmp_path, "-r", 3)
    assert r.values == {1: "infinity", 2: "infinity", 3: "0", 4: "infinity", 5: "infinity"}
    r = run_algo(tgb, "sssp", path, tmp_path, "-r", 5, "--unit-weights")
    assert r.numbers() == {1: INF, 2: INF, 3: INF, 4: INF, 5: 0}
    assert run_algo(tgb, "wcc", path, tmp_path).numbers() == {v: v for v in range(1, 6)}
    pr = run_algo(tgb, "pr", path, tmp_path).numbers(float)
    assert all(abs(x - 0.2) < 1e-15 for x in pr.values()) and len(pr) == 5
    r = run_algo(tgb, "radii", path, tmp_path)
    assert int(r.last("sources")) == 0 and set(r.values.values()) == {"infinity"}
    # Weighted, but with no weights at all.
    wpath = tmp_path / "emptyw.mtx"
    wpath.write_text("%%MatrixMarket matrix coordinate integer general\n5 5 0\n")
    r = run_algo(tgb, "sssp", wpath, tmp_path, "-r", 2)
    assert r.numbers() == {1: INF, 2: 0, 3: INF, 4: INF, 5: INF}


@pytest.mark.parametrize("nhubs", [60, 64])
def test_radii_all_sources_directed_with_sinks(tgb, tmp_path, nhubs):
    """NHUBS vertices with out-edges (all sampled by -k 64), sinks, isolated vertices."""
    rng = random.Random(6 + nhubs)
    hubs = list(range(1, nhubs + 1))
    edges = _random_edges(rng, hubs, 90)
    edges += [(rng.choice(hubs), rng.randint(nhubs + 1, 460), 1) for _ in range(800)]
    edges += [(v, rng.randint(nhubs + 1, 460), 1) for v in hubs]  # every hub has an out-edge
    path = tmp_path / "sinks.mtx"
    h.write_mtx(path, 480, edges)
    g = h.build_ref(edges, directed=True, weighted=False, vertices=range(1, 481))
    candidates = [v for v, d in g.out_degree().items() if d > 0]
    assert len(candidates) == nhubs
    for seed in (1, 2):
        r = run_algo(tgb, "radii", path, tmp_path, "-k", 64, "--seed", seed)
        assert int(r.last("sources")) == len(candidates)
        want = h.oracle_radii(g, candidates)
        assert_same(r.numbers(), want, "radii with every candidate sampled")
        assert int(r.last("diameter_estimate")) == max(x for x in want.values() if x != INF)


def test_radii_all_sources_undirected_two_components(tgb, tmp_path):
    rng = random.Random(7)
    # A path (long eccentricities) plus random chords in one part, a star in the other.
    edges = [(i, i + 1, 1) for i in range(1, 30)] + _random_edges(rng, list(range(1, 31)), 6)
    edges += [(40, v, 1) for v in range(41, 55)]
    path = tmp_path / "two.txt"
    h.write_edge_list(path, edges, weighted=False)
    g = h.build_ref(edges, directed=False, weighted=False)
    r = run_algo(tgb, "radii", path, tmp_path, "-s", "-k", 64)
    assert int(r.last("sources")) == len(g.vertices)
    assert_same(r.numbers(), h.oracle_radii(g, g.vertices), "radii undirected, all sources")
    # Fewer samples: never above the true eccentricity.
    ecc = h.oracle_radii(g, g.vertices)
    for k in (1, 5, 20):
        got = run_algo(tgb, "radii", path, tmp_path, "-s", "-k", k).numbers()
        # (A component without a sampled source is unreached: infinity.)
        assert all(got[v] == INF or got[v] <= ecc[v] for v in g.vertices)
        assert int(run_algo(tgb, "radii", path, tmp_path, "-s", "-k", k, verify=False).last("sources")) == k


def test_kronecker_text_against_oracles(tgb, tmp_path):
    """`generate` to a text edge list, then run on it: BFS/SSSP/WCC/PR against the oracles."""
    wel = tmp_path / "k.wel"
    h.check_ok(h.run_tg(tgb, "generate", "-g", 10, "-k", 8, "--weights", "int", "--seed", 5, "-o", wel))
    edges = h.parse_edge_list(wel.read_text(), weight_column=2)
    g = h.build_ref(edges, directed=False, weighted=True)
    graph = tmp_path / "k.tg"
    h.check_ok(h.run_tg(tgb, "convert", wel, "-s", "-o", graph))
    s = high_degree_vertex(g)
    assert_same(run_algo(tgb, "bfs", graph, tmp_path, "-r", s).numbers(), h.oracle_bfs(g, s), "bfs kron")
    assert_same(run_algo(tgb, "sssp", graph, tmp_path, "-r", s).numbers(), h.oracle_sssp(g, s), "sssp kron")
    assert_same(run_algo(tgb, "wcc", graph, tmp_path).numbers(), h.oracle_wcc(g), "wcc kron")
    got = run_algo(tgb, "pr", graph, tmp_path, "-i", 20).numbers(float)
    want = h.oracle_pagerank_iterations(g, 20)
    assert max(abs(got[v] - want[v]) for v in want) < 1e-12


# ------------------------------------------------------------------------------------------------
# Consistency: threads, directions, block grids.

@pytest.fixture(scope="session")
def kron(tgb, gen_dir) -> dict[str, Path]:
    plain, weighted = gen_dir / "kron12.tg", gen_dir / "kron12w.tg"
    h.check_ok(h.run_tg(tgb, "generate", "-g", 12, "-s", "-o", plain, "--overwrite"))
    h.check_ok(h.run_tg(tgb, "generate", "-g", 12, "-s", "--weights", "int", "-o", weighted, "--overwrite"))
    return {"plain": plain, "weighted": weighted}


def _graph_for(store, kron, which: str, algo: str) -> Path:
    if which == "kron":
        return kron["weighted" if algo == "sssp" else "plain"]
    return store.graph(which)


def _l1(a: dict, b: dict) -> float:
    assert set(a) == set(b)
    return sum(abs(a[v] - b[v]) for v in a)


def _assert_equivalent(algo, base: Run, other: Run, what: str):
    if algo == "pr":
        d = _l1(base.numbers(float), other.numbers(float))
        assert d < 1e-9, f"{what}: pagerank differs by {d} (L1)"
    else:
        assert other.values == base.values, f"{what}: {algo} output differs"


@pytest.mark.parametrize("which", ["kron", "p2p"])
@pytest.mark.parametrize("algo", ALGOS)
def test_threads_and_directions_agree(store, kron, tgb, tmp_path, which, algo):
    graph = _graph_for(store, kron, which, algo)
    base = run_algo(tgb, algo, graph, tmp_path, "-t", 2, "--direction", "auto", "--seed", 5)
    for threads in (1, 2, 4):
        for direction in ("auto", "push", "pull"):
            if (threads, direction) == (2, "auto"):
                continue
            other = run_algo(tgb, algo, graph, tmp_path, "-t", threads, "--direction", direction, "--seed", 5)
            if "Source" in base.summary:
                assert other.summary["Source"] == base.summary["Source"]
            _assert_equivalent(algo, base, other, f"{which} -t {threads} --direction {direction}")


def test_auto_direction_uses_push_and_pull(kron, tgb):
    proc = h.check_ok(h.run_tg(tgb, "run", "bfs", kron["plain"], "--json", "--verify", "-n", 2))
    report = json.loads(proc.stdout)
    assert report["verification"] == "PASS"
    for trial in report["trials"]:
        assert trial["verified"] is True
        directions = [it["direction"] for it in trial["iterations"]]
        assert set(directions) == {"push", "pull"}, f"auto used {directions}"
        assert directions[0] == "push", "the first level (one vertex) should push"
    forced = json.loads(h.check_ok(h.run_tg(tgb, "run", "bfs", kron["plain"], "--json", "--direction", "pull")).stdout)
    assert {it["direction"] for t in forced["trials"] for it in t["iterations"]} == {"pull"}


@pytest.mark.parametrize("which,blocks", [("kron", 4), ("kron", 64), ("p2p", 4), ("p2p", 64), ("p2p", 3)])
def test_reblock_gives_same_results(store, kron, tgb, tmp_path, which, blocks):
    for algo in ALGOS:
        graph = _graph_for(store, kron, which, algo)
        reblocked = tmp_path / f"{graph.stem}-{blocks}.tg"
        if not reblocked.exists():
            h.check_ok(h.run_tg(tgb, "reblock", graph, "-o", reblocked, "--blocks", blocks))
            info = json.loads(h.check_ok(h.run_tg(tgb, "info", reblocked, "--json")).stdout)
            assert info["blocks"]["per_side"] == blocks, info["blocks"]
        base = run_algo(tgb, algo, graph, tmp_path, "--seed", 9)
        other = run_algo(tgb, algo, reblocked, tmp_path, "--seed", 9)
        if "Source" in base.summary:
            assert other.summary["Source"] == base.summary["Source"]
        _assert_equivalent(algo, base, other, f"{which} reblocked to {blocks}x{blocks}")
        for direction in ("push", "pull"):
            other = run_algo(tgb, algo, reblocked, tmp_path, "--seed", 9, "--direction", direction)
            _assert_equivalent(algo, base, other, f"{which} {blocks}x{blocks} --direction {direction}")


# ------------------------------------------------------------------------------------------------
# NumPy output.

@pytest.mark.parametrize("name,algo,opts", [
    ("eu-core", "bfs", ["-r", 0]),
    ("eu-core", "wcc", []),
    ("wiki-vote", "wcc", []),
    ("wiki-vote", "bfs", ["-r", 30]),
    ("bremen", "sssp", ["-r", 0]),
    ("cal", "sssp", ["-r", 0]),
    ("karate", "pr", []),
    ("eu-core", "radii", ["-k", 3]),
])
def test_npy_output_matches_tsv(store, tgb, tmp_path, name, algo, opts):
    graph = store.graph(name)
    tsv = run_algo(tgb, algo, graph, tmp_path, *opts)
    npy_path = tmp_path / "out.npy"
    h.check_ok(h.run_tg(tgb, "run", algo, graph, *opts, "-o", npy_path))
    arr = np.load(npy_path)
    assert arr.dtype.names == ("id", "value")
    assert arr.shape == (len(tsv.values),)
    assert arr["id"].dtype == np.dtype("<u8")
    assert list(arr["id"]) == sorted(tsv.values) == list(map(int, tsv.values))
    real = algo in ("pr",) or (algo == "sssp" and arr["value"].dtype.kind == "f")
    for vid, value in zip(arr["id"].tolist(), arr["value"].tolist()):
        text = tsv.values[vid]
        if text == "infinity":
            assert value == (math.inf if real else np.iinfo(np.int64).max), (vid, value)
        elif real:
            assert value == float(text), (vid, value, text)
        else:
            assert value == int(text), (vid, value, text)


# ------------------------------------------------------------------------------------------------
# Option errors: exit status, message, no output left behind.

def _bad(tgb, tmp_path, *args):
    outdir = tmp_path / "out"
    outdir.mkdir()
    out = outdir / "r.tsv"
    proc = h.run_tg(tgb, "run", *args, "-o", out)
    assert proc.returncode != 0, h.describe(proc)
    assert proc.returncode > 0, f"crashed: {h.describe(proc)}"
    assert list(outdir.iterdir()) == [], "an output (or temporary) file was left behind"
    return proc


@pytest.mark.parametrize("args,code,needle", [
    (["radii", "{g}", "--samples", "65"], 1, "--samples"),
    (["radii", "{g}", "-k", "0"], 1, "--samples"),
    (["bfs", "{g}", "--trials", "0"], 1, "--trials"),
    (["pr", "{g}", "-i", "0"], 1, "--iterations"),
    (["pr", "{g}", "--damping", "1"], 1, "--damping"),
    (["pr", "{g}", "--tolerance", "-1"], 1, "--tolerance"),
    (["bfs", "{g}", "--source", "35"], 1, "35"),
    (["sssp", "{g}", "--unit-weights", "-r", "0"], 1, "no vertex with id 0"),
    (["dfs", "{g}"], None, "dfs"),
    (["bfs", "{g}", "--direction", "sideways"], None, "sideways"),
    (["bfs", "{g}", "--far-ratio", "0.5", "--far", "cxl"], None,
     "--far: must be file, numa, rank or paging, got 'cxl'"),
])
def test_bad_options(store, tgb, tmp_path, args, code, needle):
    graph = str(store.graph("karate"))
    proc = _bad(tgb, tmp_path, *[a.replace("{g}", graph) for a in args])
    if code is not None:
        assert proc.returncode == code, h.describe(proc)
        assert proc.stderr.startswith("tiergraph: error:"), h.describe(proc)
    assert needle in proc.stderr, h.describe(proc)
    assert proc.stdout.strip() == "" or code is None, "nothing should be reported for a refused run"


def test_missing_graph_and_missing_output_directory(tgb, tmp_path):
    proc = h.run_tg(tgb, "run", "bfs", tmp_path / "nope.tg")
    assert proc.returncode == 1 and "nope.tg" in proc.stderr, h.describe(proc)
    g = tmp_path / "g.txt"
    g.write_text("1 2\n2 3\n")
    proc = h.run_tg(tgb, "run", "bfs", g, "-o", tmp_path / "no" / "dir" / "x.tsv")
    assert proc.returncode == 1 and "does not exist" in proc.stderr, h.describe(proc)


# ------------------------------------------------------------------------------------------------
# Labels at the ends of the 64-bit range.

def test_labels_at_both_ends_of_uint64_range(tgb, tmp_path):
    """Labels 1 and 2^64 - 1 (no 0): works."""
    top = 2**64 - 1
    edges = [(1, top, 1), (top, 5, 1), (7, 1, 1)]
    path = tmp_path / "ends.txt"
    h.write_edge_list(path, edges, weighted=False)
    g = h.build_ref(edges, directed=True, weighted=False)
    assert_same(run_algo(tgb, "bfs", path, tmp_path, "-r", 7).numbers(), h.oracle_bfs(g, 7), "bfs")
    assert_same(run_algo(tgb, "wcc", path, tmp_path).numbers(), h.oracle_wcc(g), "wcc")


def test_labels_zero_and_uint64_max(tgb, tmp_path):
    top = 2**64 - 1
    edges = [(0, top, 1), (0, 5, 1)]
    path = tmp_path / "full-range.txt"
    h.write_edge_list(path, edges, weighted=False)
    g = h.build_ref(edges, directed=True, weighted=False)
    proc = h.run_tg(tgb, "run", "bfs", path, "-r", 0, "-o", tmp_path / "out.tsv", "--verify")
    assert proc.returncode == 0, h.describe(proc)
    assert_same(h.tsv_numbers(h.read_tsv(tmp_path / "out.tsv")), h.oracle_bfs(g, 0), "bfs")


def test_json_report_matches_text_report(store, tgb):
    graph = store.graph("rome")
    text = h.summary_lines(h.check_ok(h.run_tg(tgb, "run", "sssp", graph, "--verify", "-n", 2, "--seed", 4)).stdout)
    report = json.loads(h.check_ok(h.run_tg(tgb, "run", "sssp", graph, "--verify", "-n", 2, "--seed", 4,
                                            "--json")).stdout)
    assert report["verification"] == "PASS"
    assert report["algorithm"] == "sssp" and report["directed"] is True
    assert report["vertices"] == 3353
    assert [str(t["source"]) for t in report["trials"]] == text["Source"]
    assert [str(t["summary"]["rounds"]) for t in report["trials"]] == text["rounds"]
    assert all(t["verified"] is True for t in report["trials"])
