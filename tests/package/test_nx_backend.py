"""The networkx backend: dispatch finds it, answers equal networkx's own, errors are networkx's,
and what it cannot do falls back. (networkx's own test modules run with the backend from
scripts/test.sh.)"""

from __future__ import annotations

import networkx as nx
import pytest

import tiergraph
from tiergraph import nx_backend


def graphs():
    G = nx.les_miserables_graph()  # string nodes, weighted
    D = nx.gnp_random_graph(300, 0.02, seed=5, directed=True)
    D.add_nodes_from(["isolated", 9999])
    return G, D


def test_networkx_finds_the_backend():
    assert "tiergraph" in nx.utils.backends.backends
    assert nx.utils.backends.backend_info["tiergraph"]["package"] == "tiergraph"


def test_answers_equal_networkx():
    G, D = graphs()
    for H in (G, D):
        a = nx.pagerank(H, backend="tiergraph", weight=None)
        b = nx.pagerank(H, weight=None)
        assert a.keys() == b.keys() and sum(abs(a[v] - b[v]) for v in H) < 1e-5
        s = next(iter(H))
        assert nx.single_source_shortest_path_length(H, s, backend="tiergraph") == \
            nx.single_source_shortest_path_length(H, s)
        assert nx.single_source_shortest_path_length(H, s, cutoff=2, backend="tiergraph") == \
            nx.single_source_shortest_path_length(H, s, cutoff=2)
        assert list(nx.bfs_layers(H, s, backend="tiergraph")) == list(nx.bfs_layers(H, s))
    assert nx.single_source_dijkstra_path_length(G, "Valjean", backend="tiergraph") == \
        nx.single_source_dijkstra_path_length(G, "Valjean")
    assert sorted(map(sorted, nx.connected_components(G, backend="tiergraph"))) == \
        sorted(map(sorted, nx.connected_components(G)))
    assert sorted(map(sorted, map(list, nx.weakly_connected_components(D, backend="tiergraph"))), key=str) == \
        sorted(map(sorted, map(list, nx.weakly_connected_components(D))), key=str)
    assert nx.number_weakly_connected_components(D, backend="tiergraph") == nx.number_weakly_connected_components(D)
    assert nx.eccentricity(G, backend="tiergraph") == nx.eccentricity(G)
    big = nx.connected_watts_strogatz_graph(200, 4, 0.1, seed=1)  # more than one batch of 64 sources
    assert nx.eccentricity(big, backend="tiergraph") == nx.eccentricity(big)
    assert nx.eccentricity(big, v=7, backend="tiergraph") == nx.eccentricity(big, v=7)


def test_betweenness_equals_networkx():
    G, D = graphs()
    for H in (G, D, nx.path_graph(2)):
        for k, seed in ((None, None), (min(20, len(H)), 7), (1, 3)):
            for normalized in (True, False):
                a = nx.betweenness_centrality(H, k=k, seed=seed, normalized=normalized, backend="tiergraph")
                b = nx.betweenness_centrality(H, k=k, seed=seed, normalized=normalized)
                assert list(a) == list(b)
                for v in H:
                    assert a[v] == pytest.approx(b[v], rel=1e-9, abs=1e-12, nan_ok=True), (H, k, normalized, v)
    assert nx.betweenness_centrality(nx.Graph(), backend="tiergraph") == {}


def test_triangles_and_clustering_equal_networkx():
    G, D = graphs()
    U = nx.gnm_random_graph(400, 3000, seed=2)
    U.add_edge(5, 5)  # a self-loop: not a neighbour of itself, in either
    for H in (G, U, nx.Graph(), nx.complete_graph(4)):
        assert nx.triangles(H, backend="tiergraph") == nx.triangles(H)
        assert nx.clustering(H, backend="tiergraph") == nx.clustering(H)
        assert nx.transitivity(H, backend="tiergraph") == nx.transitivity(H)
        if len(H):
            assert nx.average_clustering(H, backend="tiergraph") == nx.average_clustering(H)
            assert nx.average_clustering(H, count_zeros=False, backend="tiergraph") == \
                nx.average_clustering(H, count_zeros=False)
    some = [5, 7, 11]
    assert nx.triangles(U, 5, backend="tiergraph") == nx.triangles(U, 5)
    assert nx.triangles(U, some, backend="tiergraph") == nx.triangles(U, some)
    assert nx.clustering(U, 7, backend="tiergraph") == nx.clustering(U, 7)
    assert nx.clustering(U, some, backend="tiergraph") == nx.clustering(U, some)
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.triangles(D, backend="tiergraph")


def test_errors_are_networkxs():
    G, D = graphs()
    with pytest.raises(nx.NodeNotFound, match="Source nope is not in G"):
        nx.single_source_shortest_path_length(G, "nope", backend="tiergraph")
    with pytest.raises(nx.NodeNotFound, match="Node nope not found in graph"):
        nx.single_source_dijkstra_path_length(G, "nope", backend="tiergraph")
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        next(nx.bfs_layers(G, ["nope"], backend="tiergraph"))
    with pytest.raises(nx.NetworkXError, match="not connected"):
        nx.eccentricity(nx.Graph([(0, 1), (2, 3)]), backend="tiergraph")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(D, max_iter=2, backend="tiergraph")
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.connected_components(D, backend="tiergraph")


def test_what_it_cannot_do_it_declines():
    G, D = graphs()
    can = nx_backend.backend_interface.can_run
    assert can("pagerank", (G,), {}) is True
    assert "personalization" in can("pagerank", (G,), {"personalization": {"Valjean": 1}})
    assert "multigraph" in can("pagerank", (nx.MultiGraph([(0, 1)]),), {})
    assert "function" in can("single_source_dijkstra_path_length", (G, "Valjean"), {"weight": lambda u, v, d: 1})
    assert "undirected" in can("eccentricity", (D,), {})
    assert "one source" in can("bfs_layers", (G, ["Valjean", "Myriel"]), {})
    assert can("betweenness_centrality", (G,), {}) is True
    assert "hops" in can("betweenness_centrality", (G,), {"weight": "weight"})
    assert "endpoints" in can("betweenness_centrality", (G,), {"endpoints": True})
    assert can("edge_betweenness_centrality", (G,), {}) is False
    assert can("clustering", (G,), {}) is True
    assert "unweighted undirected" in can("clustering", (D,), {})
    assert "unweighted undirected" in can("average_clustering", (G,), {"weight": "weight"})
    assert "unweighted undirected" in can("transitivity", (D,), {})
    # Weighted PageRank and negative weights raise NotImplementedError, which networkx turns into
    # a fallback when allowed to (and reports when backend= was demanded).
    with pytest.raises(NotImplementedError):
        nx.pagerank(G, backend="tiergraph")  # les_miserables has weights
    N = nx.DiGraph([(0, 1, {"weight": -1}), (1, 2, {"weight": 2})])
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path_length(N, 0, backend="tiergraph")
    with nx.config.backend_priority(algos=["tiergraph"]), nx.config(fallback_to_nx=True):
        assert nx.pagerank(G) == pytest.approx(nx.pagerank(G, backend="networkx"))


def test_should_run_leaves_small_graphs_to_networkx():
    small, _ = graphs()
    assert isinstance(nx_backend.backend_interface.should_run("pagerank", (small,), {}), str)
    big = nx.gnm_random_graph(3000, 20000, seed=1)
    assert nx_backend.backend_interface.should_run("pagerank", (big,), {}) is True


def test_converted_graph_is_reused_and_maps_back():
    G = nx.karate_club_graph()
    H = nx_backend.backend_interface.convert_from_nx(G)
    assert nx_backend.backend_interface.convert_to_nx(H) is G
    assert nx_backend.backend_interface.convert_from_nx(H) is H
    assert nx_backend.pagerank(H, weight=None) == pytest.approx(nx.pagerank(G, weight=None))
    assert isinstance(H.graph(None), tiergraph.Graph) and H.graph(None) is H.graph(None)
