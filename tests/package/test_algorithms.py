"""Results out: every algorithm against networkx / scipy on shared datasets and generated graphs,
directed and undirected, weighted and not, with isolated vertices and non-integer labels."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import tiergraph as tg

from conftest import edges_of, read_dimacs, read_snap


def unreached_as_inf(values):
    v = values.astype(float)
    v[values == tg.UNREACHED] = np.inf
    return v


@pytest.fixture(scope="module")
def email(datasets):
    G = read_snap(datasets / "email-Eu-core.txt.xz", directed=True)
    G.add_nodes_from(range(max(G) + 3))  # isolated vertices at the end
    return G


@pytest.fixture(scope="module")
def rome(datasets):
    return read_dimacs(datasets / "road-rome99.gr.xz")


def test_bfs_matches_networkx_directed_and_undirected(email):
    for G in (email, email.to_undirected()):
        g = tg.Graph.from_networkx(G)
        for source in (0, 5, 1004):
            assert tg.bfs(g, source).to_dict() == nx.single_source_shortest_path_length(G, source)
        r = tg.bfs(g, 0, parents=True)
        depth = r.to_dict()
        assert set(r.parents) == set(depth) - {0}
        for child, parent in r.parents.items():  # every parent (a node) is one level up, along an edge
            assert depth[parent] == depth[child] - 1 and G.has_edge(parent, child)


def test_sssp_matches_scipy_dijkstra_on_a_road_graph(rome):
    g = tg.Graph.from_networkx(rome, weight="weight")
    assert g.weighted
    nodes = list(rome)
    matrix = nx.to_scipy_sparse_array(rome, nodelist=nodes, weight="weight")
    for source in (1, 1000, 3353):
        expected = sp.csgraph.dijkstra(matrix, indices=nodes.index(source))
        r = tg.sssp(g, source)
        assert r.values.dtype == np.int64  # integer weights, integer distances
        np.testing.assert_array_equal(unreached_as_inf(r.values), expected)


def test_sssp_real_weights_and_unit_weights(rng):
    n = 500
    pairs = {(min(u, v), max(u, v)) for u, v in rng.integers(0, n, (3000, 2)).tolist() if u != v}
    src, dst = np.array(sorted(pairs)).T
    w = rng.random(len(src)) + 0.01
    g = tg.Graph.from_edges(src, dst, w, num_vertices=n, directed=False)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    got = tg.sssp(g, 0).values
    assert got.dtype == np.float64
    expected = nx.single_source_dijkstra_path_length(G, 0)
    assert set(np.flatnonzero(np.isfinite(got)).tolist()) == set(expected)
    for v, d in expected.items():
        assert got[v] == pytest.approx(d, rel=1e-12)
    hops = tg.sssp(g, 0, unit_weights=True)
    assert hops.to_dict() == nx.single_source_shortest_path_length(G, 0)


def test_negative_weights_are_refused_for_sssp():
    g = tg.Graph.from_edges([0, 1], [1, 2], [1.0, -2.0])
    with pytest.raises(tg.Error, match="non-negative"):
        tg.sssp(g, 0)


def test_wcc_matches_networkx(email, datasets):
    for G in (email, nx.Graph(read_snap(datasets / "soc-wiki-Vote.txt.xz", directed=True))):
        g = tg.Graph.from_networkx(G)
        r = tg.wcc(g)
        comps = nx.weakly_connected_components(G) if G.is_directed() else nx.connected_components(G)
        labels = r.to_dict()
        for comp in comps:
            assert {labels[v] for v in comp} == {min(comp, key=list(G).index)}
        assert r.summary["components"] == len(set(r.values.tolist()))


def test_wcc_labels_are_original_ids_for_a_file(tmp_path, datasets):
    g = tg.load(datasets / "road-rome99.gr.xz")
    r = tg.wcc(g)
    assert r.values.min() >= 1  # 1-based DIMACS ids, not dense vertices


def test_pagerank_matches_networkx(email):
    for G in (email, email.to_undirected()):
        g = tg.Graph.from_networkx(G)
        r = tg.pagerank(g)
        expected = nx.pagerank(G, tol=1e-12, max_iter=1000)
        got = r.to_dict()
        assert sum(abs(got[v] - expected[v]) for v in G) < 1e-6
        assert r.values.sum() == pytest.approx(1.0)
    fixed = tg.pagerank(tg.Graph.from_networkx(email), iterations=3)
    assert fixed.summary["iterations"] == 3


def test_pagerank_in_float_precision(email):
    g = tg.Graph.from_networkx(email)
    single = tg.pagerank(g, precision="float")  # converges to an L1 change below 1e-6
    expected = nx.pagerank(email, tol=1e-12, max_iter=1000)
    got = single.to_dict()
    assert sum(abs(got[v] - expected[v]) for v in email) < 1e-5
    assert got != tg.pagerank(g, tolerance=1e-6).to_dict()  # float is what ran
    with pytest.raises(tg.InvalidInput, match="precision must be double or float, got 'half'"):
        tg.pagerank(g, precision="half")
    with pytest.raises(tg.InvalidInput, match="tolerance 1e-09 cannot be reached with float"):
        tg.pagerank(g, precision="float", tolerance=1e-9)


def test_radii_matches_eccentricities_from_its_sources(rng):
    G = nx.connected_watts_strogatz_graph(300, 4, 0.05, seed=3)
    g = tg.Graph.from_networkx(G)
    sources = [0, 17, 299]
    r = tg.radii(g, sources)
    for v in G:
        assert r.values[v] == max(nx.shortest_path_length(G, s, v) for s in sources)
    assert r.summary["diameter_estimate"] == r.values.max()
    with pytest.raises(tg.InvalidInput, match="1 to 64 sources"):
        tg.radii(g, list(range(65)))


def test_triangles_match_networkx(email):
    g = tg.Graph.from_networkx(email)  # directed: counted on the undirected view, as networkx's of it
    U = email.to_undirected()
    U.remove_edges_from(nx.selfloop_edges(U))
    r = tg.triangles(g)
    assert r.to_dict() == nx.triangles(U)
    assert r.summary["triangles"] == sum(nx.triangles(U).values()) // 3
    L = nx.les_miserables_graph()  # string labels
    assert tg.triangles(tg.Graph.from_networkx(L)).to_dict() == nx.triangles(L)
    with pytest.raises(tg.InvalidInput, match="unknown option"):
        tg.triangles(g, source=3)


def test_clustering_matches_networkx_and_graphalytics(email):
    L = nx.les_miserables_graph()  # undirected: networkx's clustering, the same doubles
    assert tg.clustering(tg.Graph.from_networkx(L)).to_dict() == nx.clustering(L)
    r = tg.clustering(tg.Graph.from_networkx(email))  # directed: arcs among in- and out-neighbours
    for v in list(email)[:200]:
        near = (set(email.successors(v)) | set(email.predecessors(v))) - {v}
        arcs = sum(1 for a in near for b in email.successors(a) if b in near and b != a)
        k = len(near)
        assert r.to_dict()[v] == (arcs / (k * (k - 1)) if k >= 2 else 0.0), v
    assert r.summary["average"] == pytest.approx(float(np.mean(r.values)), rel=1e-12)


def graphalytics_cdlp(G, rounds):
    """CDLP over networkx nodes: labels are node positions (the engine's vertex ids), the smallest
    of the most frequent neighbours' labels taken each round; a DiGraph's arcs count at both ends."""
    nodes = list(G)
    near = {v: [] for v in nodes}
    for u, v in G.edges():
        if u != v:
            near[u].append(v)
            near[v].append(u)
    label = {v: i for i, v in enumerate(nodes)}
    for _ in range(rounds):
        counts = {v: Counter(label[u] for u in near[v]) for v in nodes}
        label = {v: min(x for x, k in c.items() if k == max(c.values())) if c else label[v]
                 for v, c in counts.items()}
    return {v: nodes[x] for v, x in label.items()}


def test_label_propagation_is_graphalytics_cdlp(email):
    assert tg.label_propagation(tg.Graph.from_networkx(email)).to_dict() == graphalytics_cdlp(email, 10)
    L = nx.les_miserables_graph()  # string labels: a community is named by one of its nodes
    r = tg.label_propagation(tg.Graph.from_networkx(L), rounds=3)
    assert r.to_dict() == graphalytics_cdlp(L, 3)
    assert r.summary["rounds"] == 3
    for bad in (0, -1, 2.5, True):
        with pytest.raises(tg.InvalidInput, match="rounds"):
            tg.label_propagation(tg.Graph.from_networkx(L), rounds=bad)


def test_betweenness_matches_networkx(email):
    g = tg.Graph.from_networkx(email)
    exact = tg.betweenness(g, samples="all")  # every node with out-edges is a source
    want = nx.betweenness_centrality(email, normalized=False)  # directed: the same unhalved sum
    got = exact.to_dict()
    assert got.keys() == want.keys()
    assert all(got[v] == pytest.approx(want[v], rel=1e-9, abs=1e-9) for v in email)
    sources = [0, 5, 160]
    some = tg.betweenness(g, sources)
    subset = nx.betweenness_centrality_subset(email, sources, list(email), normalized=False)
    assert all(some.to_dict()[v] == pytest.approx(subset[v], rel=1e-9, abs=1e-9) for v in email)
    assert tg.betweenness(g, samples=3, seed=7).summary["sources"] == 3
    U = nx.les_miserables_graph()  # string labels; undirected: networkx halves, tiergraph does not
    half = nx.betweenness_centrality(U, normalized=False)
    full = tg.betweenness(tg.Graph.from_networkx(U), samples="all").to_dict()
    assert all(full[v] == pytest.approx(2 * half[v], rel=1e-9, abs=1e-9) for v in U)
    for bad, text in ((0, "samples must be"), ("some", "samples must be"), (True, "samples must be")):
        with pytest.raises(tg.InvalidInput, match=text):
            tg.betweenness(g, samples=bad)
    with pytest.raises(tg.InvalidInput, match="at least one source"):
        tg.betweenness(g, [])
    with pytest.raises(tg.NodeNotFound):
        tg.betweenness(g, ["nope"])


@pytest.mark.parametrize("options,text", [
    ({"threads": 0}, "threads must be a positive integer"),
    ({"direction": "sideways"}, "^direction must be auto, push or pull, got 'sideways'"),
    ({"schedule": "never"}, "^schedule"),
    ({"colour": "red"}, "unknown option"),
    ({"far_ratio": 1.5}, "far"),
])
def test_bad_options_are_errors_naming_the_keyword(options, text):
    g = tg.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(tg.Error, match=text):
        tg.bfs(g, 0, **options)


def test_bad_algorithm_arguments():
    g = tg.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(tg.InvalidInput, match="tolerance must be positive"):
        tg.pagerank(g, tolerance=0)
    with pytest.raises(tg.InvalidInput, match="delta must be positive"):
        tg.sssp(g, 0, delta=-1, unit_weights=True)
    with pytest.raises(tg.NodeNotFound):
        tg.bfs(g, -5)
    with pytest.raises(tg.InvalidInput, match="tiergraph.Graph"):
        tg.bfs(nx.path_graph(3), 0)


def test_stats_are_the_clis_report(tmp_path):
    path = tmp_path / "k.tg"
    tg.generate("kronecker", 10, path)
    r = tg.bfs(tg.load(path), 3, verify=True)
    cli = subprocess.run([sys.executable, "-c", "import tiergraph"], capture_output=True)  # the package imports cleanly
    assert cli.returncode == 0
    s = r.stats
    assert s["algorithm"] == "bfs" and s["verification"] == "PASS" and s["trials"][-1]["source"] == 3
    assert {"store", "peak_rss_bytes", "threads", "schedule"} <= set(s)
    passes = s.passes
    assert passes and sum(p["activated"] for p in passes) + 1 == r.summary.get("reached", r.reached().sum())
    json.dumps(s)  # plain JSON data


def test_memory_budget_runs_on_the_file_tier(tmp_path):
    path = tmp_path / "k.tg"
    tg.generate("kronecker", 14, path)
    g = tg.load(path)
    full = tg.bfs(g)  # the seeded source, a vertex with out-edges
    tiered = tg.bfs(g, far_ratio=0.5, far="file")
    np.testing.assert_array_equal(full.values, tiered.values)
    s = tiered.stats
    assert s["plan"]["far"] == "file" and s["tiers"][1]["name"] == "file" and s["tiers"][1]["bytes_fetched"] > 0
    with pytest.raises(tg.InvalidInput, match="mpirun"):
        tg.bfs(g, far_ratio=0.5, far="rank")
    in_memory = tg.generate("kronecker", 10)
    with pytest.raises(tg.InvalidInput, match="built in memory"):
        tg.bfs(in_memory, far_ratio=0.5)
    paged = tg.wcc(in_memory, memory_budget="64M", far="paging")  # a far ratio: the kernel places blocks
    np.testing.assert_array_equal(paged.values, tg.wcc(in_memory).values)
