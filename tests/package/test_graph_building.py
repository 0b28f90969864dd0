"""Graphs in: from_edges, from_scipy, from_networkx, load, convert, generate, and what each refuses."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import tiergraph as tg


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_from_edges_takes_any_integer_dtype(dtype):
    g = tg.Graph.from_edges(np.array([0, 1, 2], dtype=dtype), np.array([1, 2, 3], dtype=dtype))
    assert (g.num_vertices, g.num_edges, g.directed, g.weighted) == (4, 3, True, False)
    assert tg.bfs(g, 0).values.tolist() == [0, 1, 2, 3]


def test_from_edges_counts_isolated_vertices_and_removes_loops_and_duplicates():
    g = tg.Graph.from_edges([0, 0, 1, 3], [1, 1, 1, 0], num_vertices=6, directed=False)
    assert (g.num_vertices, g.num_edges) == (6, 2)  # 0-1 (twice), 1-1 (a loop), 3-0
    r = tg.bfs(g, 1)
    assert r.values[[0, 1, 3]].tolist() == [1, 0, 2]
    assert (r.values[[2, 4, 5]] == tg.UNREACHED).all()
    assert r.to_dict() == {0: 1, 1: 0, 3: 2}


@pytest.mark.parametrize("src,dst,weights,error,text", [
    ([0, 1], [1], None, tg.InvalidInput, "same length"),
    ([0, -1], [1, 0], None, tg.InvalidInput, "src[1] is -1"),
    ([0.0, 1.0], [1, 0], None, tg.InvalidType, "integers"),
    ([0, 1], [1, 0], [1.0, float("nan")], tg.InvalidInput, "weights[1] is nan"),
    ([0, 1], [1, 0], [1.0], tg.InvalidInput, "1 values for 2 edges"),
    ([0, 1], [1, 0], ["a", "b"], tg.InvalidType, "numbers"),
    ([[0, 1]], [[1, 0]], None, tg.InvalidInput, "1-d"),
])
def test_from_edges_refuses_bad_arrays(src, dst, weights, error, text):
    with pytest.raises(error) as e:
        tg.Graph.from_edges(np.array(src), np.array(dst), None if weights is None else np.array(weights))
    assert text in str(e.value)
    assert isinstance(e.value, tg.Error)


def test_from_edges_refuses_ids_past_num_vertices():
    with pytest.raises(tg.InvalidInput, match="vertex id 7 is not below num_vertices=5"):
        tg.Graph.from_edges([0, 7], [1, 2], num_vertices=5)


def test_an_empty_graph_is_refused_by_algorithms_with_a_clear_error():
    g = tg.Graph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert g.num_vertices == 0
    with pytest.raises(tg.Error, match="has no vertices"):
        tg.wcc(g)


def test_from_scipy_reads_any_format_and_weights(rng):
    n = 200
    m = sp.random(n, n, density=0.03, format="csr", random_state=7, data_rvs=lambda k: rng.integers(1, 9, k))
    m.setdiag(0)
    m.eliminate_zeros()
    for matrix in (m, m.tocoo(), m.tocsc(), sp.csr_array(m)):
        g = tg.Graph.from_scipy(matrix)
        assert (g.num_vertices, g.num_edges, g.weighted) == (n, m.nnz, True)
    expected = sp.csgraph.dijkstra(m, indices=3)
    got = tg.sssp(tg.Graph.from_scipy(m), 3).values.astype(float)
    got[got == tg.UNREACHED] = np.inf
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(tg.InvalidInput, match="square"):
        tg.Graph.from_scipy(sp.csr_matrix((3, 4)))
    with pytest.raises(tg.InvalidType, match="sparse"):
        tg.Graph.from_scipy(np.eye(3))


def test_from_networkx_keeps_node_objects():
    G = nx.Graph([("a", "b"), ("b", ("c", 1)), ("x", "y")])
    G.add_node(frozenset({2}))
    g = tg.Graph.from_networkx(G)
    assert g.labels == list(G)
    assert tg.bfs(g, "a").to_dict() == {"a": 0, "b": 1, ("c", 1): 2}
    comps = tg.wcc(g).to_dict()
    assert comps["a"] == comps[("c", 1)] == "a" and comps["y"] == "x" and comps[frozenset({2})] == frozenset({2})
    with pytest.raises(tg.NodeNotFound, match="'zzz' is not a node"):
        tg.bfs(g, "zzz")
    with pytest.raises(KeyError):  # NodeNotFound is a KeyError too
        tg.sssp(g, "zzz", unit_weights=True)


def test_from_networkx_weights_and_multigraphs():
    G = nx.DiGraph()
    G.add_edge(0, 1, w=2.5)
    G.add_edge(1, 2)  # missing: 1
    g = tg.Graph.from_networkx(G, weight="w")
    assert tg.sssp(g, 0).to_dict() == {0: 0.0, 1: 2.5, 2: 3.5}
    with pytest.raises(tg.InvalidInput, match="multigraph"):
        tg.Graph.from_networkx(nx.MultiGraph([(0, 1), (0, 1)]), weight="weight")
    with pytest.raises(tg.InvalidType):
        tg.Graph.from_networkx({0: [1]})


def test_load_convert_and_generate(tmp_path, datasets):
    out = tmp_path / "rome.tg"
    report = tg.convert(datasets / "road-rome99.gr.xz", out)
    assert report["build"]["vertices"] == 3353 if "build" in report else True
    g = tg.load(out)
    assert (g.num_vertices, g.directed, g.weighted, g.path) == (3353, True, True, str(out))
    assert g.labels[0] == 1  # DIMACS ids are 1-based: labels are the file's ids
    # An existing output is never replaced without overwrite=True.
    with pytest.raises(tg.Error, match="exists"):
        tg.convert(datasets / "road-rome99.gr.xz", out)
    # Text inputs are converted on the fly, with convert's options.
    karate = tg.load(datasets / "tiny-karate.graph.xz")
    assert (karate.num_vertices, karate.num_edges, karate.directed) == (34, 78, False)
    with pytest.raises(tg.InvalidInput, match="unknown convert option"):
        tg.convert(datasets / "tiny-karate.graph.xz", tmp_path / "k.tg", colour="red")
    k = tg.generate("kronecker", 10, weights="int")
    assert (k.num_vertices, k.weighted, k.path) == (1024, True, None)
    kept = tg.generate("uniform", 8, tmp_path / "u.tg", undirected=True)
    assert os.path.exists(tmp_path / "u.tg") and not kept.directed


def test_builds_keep_a_memory_budget_and_write_the_same_file(tmp_path, datasets):
    """convert and generate take memory_budget and scratch as the commands do: the edges are
    sorted in runs on the scratch disk and merged, into the very file the in-memory build writes."""
    whole = tg.convert(datasets / "soc-Slashdot0902.txt.xz", tmp_path / "whole.tg", undirected=True)
    assert whole["memory_budget"] is None
    bounded = tg.convert(datasets / "soc-Slashdot0902.txt.xz", tmp_path / "bounded.tg", undirected=True,
                         memory_budget="16M", scratch=tmp_path)
    assert bounded["memory_budget"] == 16 << 20 and bounded["runs"] > 1, bounded
    assert (tmp_path / "whole.tg").read_bytes() == (tmp_path / "bounded.tg").read_bytes()
    tg.generate("kronecker", 14, tmp_path / "k.tg", weights="int", undirected=True)
    tg.generate("kronecker", 14, tmp_path / "kb.tg", weights="int", undirected=True, memory_budget=16 << 20)
    assert (tmp_path / "k.tg").read_bytes() == (tmp_path / "kb.tg").read_bytes()
    with pytest.raises(tg.Error, match="memory_budget must be a size"):  # the engine's check, as the CLI's
        tg.generate("kronecker", 10, memory_budget="lots")
    with pytest.raises(tg.InvalidType, match="memory_budget"):
        tg.generate("kronecker", 10, memory_budget=1.5)
    with pytest.raises(tg.Error, match="scratch"):
        tg.convert(datasets / "tiny-karate.graph.xz", tmp_path / "k2.tg", memory_budget="16M", scratch=tmp_path / "none")
    assert not (tmp_path / "k2.tg").exists()


def test_corrupted_and_missing_files_are_errors(tmp_path):
    with pytest.raises(tg.InvalidInput, match="no such file"):
        tg.load(tmp_path / "nope.tg")
    g = tmp_path / "g.tg"
    tg.generate("kronecker", 8, g)
    data = bytearray(g.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "bad.tg"
    bad.write_bytes(bytes(data))
    with pytest.raises(tg.Error):
        tg.wcc(tg.load(bad))
    truncated = tmp_path / "short.tg"
    truncated.write_bytes(g.read_bytes()[:1000])
    with pytest.raises(tg.Error, match="short.tg"):
        tg.load(truncated)
