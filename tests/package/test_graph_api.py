"""What a networkx user reaches for first on a Graph: degrees, neighbours, saving it; and BFS
parents as labels. Each is checked against networkx on the same edges."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest

import tiergraph as tg


def random_graph(rng, n: int, m: int, directed: bool) -> nx.Graph:
    """A random simple graph on nodes 0..n-1 (no self-loops: tiergraph drops them by default)."""
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    for u, v in rng.integers(0, n, size=(m, 2)).tolist():
        if u != v:
            G.add_edge(u, v)
    return G


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("blocks", [1, 4])
def test_degrees_and_neighbors_match_networkx(rng, directed, blocks):
    G = random_graph(rng, 300, 1500, directed)
    e = np.array(G.edges(), dtype=np.int64)
    g = tg.Graph.from_edges(e[:, 0], e[:, 1], directed=directed, num_vertices=300, blocks=blocks)
    # Original ids are 0..n-1 here, so vertex v is node v.
    expected_out = [G.out_degree(v) if directed else G.degree(v) for v in range(300)]
    np.testing.assert_array_equal(g.out_degree(), expected_out)
    np.testing.assert_array_equal(g.degree(), [G.degree(v) for v in range(300)])  # directed: in + out
    if directed:
        np.testing.assert_array_equal(g.in_degree(), [G.in_degree(v) for v in range(300)])
    for v in (0, 17, 299):
        assert g.degree(v) == G.degree(v) and g.out_degree(v) == expected_out[v]
        assert sorted(g.neighbors(v)) == sorted(G.neighbors(v))
    with pytest.raises(tg.NodeNotFound):
        g.neighbors(300)


def test_neighbors_and_degree_take_labels_of_networkx_nodes_and_original_ids(tmp_path):
    G = nx.DiGraph([("a", "b"), ("a", "c"), ("c", "a"), ("b", "d")])
    g = tg.Graph.from_networkx(G)
    assert sorted(g.neighbors("a")) == ["b", "c"] and g.neighbors("d") == []
    assert g.degree("a") == G.degree("a") == 3 and g.out_degree("a") == 2 and g.in_degree("d") == 1
    with pytest.raises(tg.NodeNotFound, match="'z' is not a node"):
        g.degree("z")
    edges = tmp_path / "ids.el"  # original ids that are not 0..n-1
    edges.write_text("100 7\n100 55\n7 55\n")
    h = tg.load(edges)
    assert sorted(h.neighbors(100)) == [7, 55] and h.out_degree(7) == 1 and h.degree(55) == 2


def test_save_writes_the_graph_and_refuses_to_overwrite(tmp_path, rng):
    G = random_graph(rng, 200, 800, directed=True)
    e = np.array(G.edges(), dtype=np.int64)
    w = rng.integers(1, 10, size=len(e))
    g = tg.Graph.from_edges(e[:, 0], e[:, 1], w, num_vertices=200)
    target = tmp_path / "saved.tg"
    g.save(target)
    h = tg.load(target)  # a checked graph file, the same graph
    assert (h.num_vertices, h.num_edges, h.weighted, h.path) == (200, g.num_edges, True, str(target))
    np.testing.assert_array_equal(tg.sssp(h, 0).values, tg.sssp(g, 0).values)
    # A graph file saved on disk serves the file tier, which a graph built in memory cannot.
    with pytest.raises(tg.InvalidInput, match=r"graph.save\(path\)"):
        tg.bfs(g, 0, far_ratio=0.5)
    assert tg.bfs(h, 0, far_ratio=0.5).to_dict() == tg.bfs(g, 0).to_dict()
    del h  # the file tier reads the path: h must not outlive the file it was loaded from
    before = target.read_bytes()
    with pytest.raises(tg.Error, match="already exists; pass overwrite=True to replace it"):
        g.save(target)
    tg.Graph.from_edges([0], [1]).save(target, overwrite=True)
    assert tg.load(target).num_vertices == 2 and target.read_bytes() != before


def test_save_leaves_nothing_behind_when_it_fails(tmp_path):
    g = tg.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(tg.Error, match="no/such/dir"):
        g.save(tmp_path / "no" / "such" / "dir" / "g.tg")
    (tmp_path / "a_dir.tg").mkdir()
    with pytest.raises(tg.Error):
        g.save(tmp_path / "a_dir.tg", overwrite=True)
    assert sorted(os.listdir(tmp_path)) == ["a_dir.tg"] and os.listdir(tmp_path / "a_dir.tg") == []
    with pytest.raises(tg.InvalidType):
        g.save(tmp_path / "x.tg", overwrite="yes")
    with pytest.raises(tg.InvalidType):
        g.save(42)


@pytest.mark.parametrize("directed", [True, False])
def test_bfs_parents_are_labels_forming_a_bfs_tree_of_networkx_graph(rng, directed):
    G = random_graph(rng, 400, 900, directed)
    G = nx.relabel_nodes(G, {v: f"n{v}" for v in G})  # nodes that are not vertex indices
    g = tg.Graph.from_networkx(G)
    source = "n3"
    r = tg.bfs(g, source, parents=True)
    depth = nx.single_source_shortest_path_length(G, source)
    expected = dict(nx.bfs_predecessors(G, source))
    # Any BFS tree is right: the same vertices have parents as networkx's, each one level up, along an edge.
    assert set(r.parents) == set(expected) == set(depth) - {source}
    for child, parent in r.parents.items():
        assert G.has_edge(parent, child) and depth[parent] == depth[child] - 1
    # The raw tree stays reachable: vertex indices, the source its own parent, -1 where unreached.
    p = r.parent_vertices
    s = g.vertex(source)
    assert p[s] == s and all((p[v] < 0) == (g.labels[v] not in depth) for v in range(len(p)))
    assert tg.bfs(g, source).parents is None


def test_to_pandas_columns_agree_with_the_cli_csv():
    pd = pytest.importorskip("pandas")
    g = tg.Graph.from_edges([0, 1, 3], [1, 2, 4], num_vertices=6)
    r = tg.bfs(g, 0, parents=True)
    df = r.to_pandas()
    assert list(df.columns) == ["id", "value", "parent"]  # the CLI's csv header: id,value,parent
    assert df["value"].tolist()[:3] == [0, 1, 2] and df["value"].isna().tolist() == [False] * 3 + [True] * 3
    assert df["parent"].tolist()[:3] == [0, 0, 1] and df["parent"].isna().tolist() == [False] * 3 + [True] * 3
    pr = tg.pagerank(g).to_pandas()
    assert pr["value"].dtype == np.float64  # numpy's float64, not pandas' nullable Float64
    assert pr["value"].sum() == pytest.approx(1.0)
    nx_pr = nx.pagerank(_digraph(g), tol=1e-10)
    np.testing.assert_allclose(pr["value"].to_numpy(), [nx_pr[v] for v in range(6)], atol=1e-6)
    w = tg.Graph.from_edges([0, 1], [1, 2], [0.5, 0.25], num_vertices=4)
    s = tg.sssp(w, 0).to_pandas()
    assert s["value"].dtype == np.float64 and s["value"].tolist()[:3] == [0.0, 0.5, 0.75] and np.isinf(s["value"][3])
    G = nx.DiGraph([("a", "b")])
    labelled = tg.bfs(tg.Graph.from_networkx(G), "a", parents=True).to_pandas()
    assert labelled["id"].tolist() == ["a", "b"] and labelled["parent"].tolist() == ["a", "a"]


def _digraph(g: tg.Graph) -> nx.DiGraph:
    G = nx.DiGraph()
    G.add_nodes_from(range(g.num_vertices))
    for v in range(g.num_vertices):
        G.add_edges_from((v, u) for u in g.neighbors(v))
    return G


def test_stats_plot_has_a_legend_a_zero_based_frontier_axis_and_fits_its_labels(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    g = tg.generate("kronecker", 10)
    stats = tg.pagerank(g, iterations=5).stats
    ax = stats.plot()
    assert len(ax.patches) == len(stats.passes)
    twin = [a for a in ax.figure.axes if a is not ax][0]
    assert twin.get_ylim()[0] == 0 and ax.get_ylim()[0] == 0  # PageRank's constant frontier from 0
    legend = twin.get_legend()
    assert legend is not None and [t.get_text() for t in legend.get_texts()] == ["pass time (ms)", "frontier (vertices)"]
    fig = ax.figure
    path = tmp_path / "plot.png"
    fig.savefig(path)
    # Every label lies inside the figure (a clipped x label was the fault).
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    for text in (ax.xaxis.label, ax.yaxis.label, twin.yaxis.label, ax.title):
        extent = text.get_window_extent(renderer)
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1 and box.y0 <= extent.y0 and extent.y1 <= box.y1, text
