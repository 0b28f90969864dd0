"""tiergraph as a networkx backend: ``nx.pagerank(G, backend="tiergraph")``, or every call of the
functions below with ``NETWORKX_BACKEND_PRIORITY=tiergraph``.

Implemented, with networkx's semantics (node objects, dict results, its errors):
``pagerank``, ``connected_components``, ``number_connected_components``,
``weakly_connected_components``, ``number_weakly_connected_components``,
``single_source_shortest_path_length``, ``bfs_layers``, ``single_source_dijkstra_path_length``,
``eccentricity`` (exact: bit-parallel BFS from every vertex, 64 sources per pass) and
``betweenness_centrality`` (Brandes from every node, or from the k networkx's seed samples),
``triangles``, and from its counts ``clustering``, ``average_clustering`` and ``transitivity``.

What tiergraph does not do is declined, so networkx falls back to its own code (``can_run``
says why): multigraphs; weight functions; weighted PageRank, personalization, nstart and dangling
vectors; bfs_layers from several sources; eccentricity on directed graphs or with ``sp`` or a
weight; Dijkstra over negative weights (networkx's own code then reports them as it does);
weighted betweenness, and betweenness with ``endpoints``; clustering coefficients of directed or
weighted graphs. networkx's label propagation functions are not offered: each breaks ties or
orders its updates otherwise than Graphalytics' synchronous CDLP (``tiergraph.label_propagation``),
so their communities differ.
"""

from __future__ import annotations

import inspect
import random
from typing import Any, Optional

import numpy as np

from . import algorithms
from .graph import Graph, _networkx_arrays
from .result import UNREACHED

# Below this many edges, converting costs more than networkx's own loops (should_run).
SMALL_GRAPH_EDGES = 10_000


class TiergraphGraph:
    """A networkx graph as tiergraph holds it: the original graph (for fallbacks and node
    objects) and the tiergraph graphs built from it, one per edge weight attribute asked for."""

    __networkx_backend__ = "tiergraph"

    def __init__(self, G: Any, edge_attrs: Optional[dict] = None):
        self.nx_graph = G
        self.edge_attrs = dict(edge_attrs or {})
        self._graphs: dict = {}
        self._weights: dict = {}

    def is_directed(self) -> bool:
        return self.nx_graph.is_directed()

    def is_multigraph(self) -> bool:
        return self.nx_graph.is_multigraph()

    def __contains__(self, node: Any) -> bool:
        return node in self.nx_graph

    def __len__(self) -> int:
        return len(self.nx_graph)

    def __iter__(self):
        return iter(self.nx_graph)

    def graph(self, weight: Optional[str] = None, *, self_loops: bool = False) -> Graph:
        """The tiergraph graph with edge attribute `weight` (None: unweighted)."""
        key = (weight, self_loops)
        if key not in self._graphs:
            src, dst, w, nodes = _networkx_arrays(self.nx_graph, weight)
            g = Graph.from_edges(src, dst, w, directed=self.nx_graph.is_directed(), num_vertices=len(nodes),
                                 keep_self_loops=self_loops)
            g._nodes = nodes
            self._graphs[key] = g
            if w is not None:
                self._weights[weight] = (float(w.min()) if len(w) else 0.0, bool(len(w) and (w != 1).any()))
        return self._graphs[key]

    def weight_range(self, weight: str, *, self_loops: bool = False) -> tuple:
        """(least weight, whether any weight differs from 1) of edge attribute `weight`."""
        self.graph(weight, self_loops=self_loops)
        return self._weights[weight]


def _nx():
    import networkx as nx

    return nx


def _graph_of(G: Any) -> TiergraphGraph:
    return G if isinstance(G, TiergraphGraph) else TiergraphGraph(G)


def _vertex(tg: Graph, node: Any) -> Optional[int]:
    try:
        return tg.vertex(node)
    except KeyError:
        return None


# ---- the functions ------------------------------------------------------------------------
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight",
             dangling=None):
    nx = _nx()
    H = _graph_of(G)
    if personalization is not None or nstart is not None or dangling is not None:
        raise NotImplementedError("tiergraph's PageRank has no personalization, nstart or dangling vector")
    n = len(H)
    if n == 0:
        return {}
    # One conversion: the graph with the weight attribute read tells whether any weight is not 1
    # (PageRank's passes never read the weights, so a graph of ones serves unweighted).
    g = H.graph(weight, self_loops=True)  # networkx counts a self-loop as an out-edge
    if weight is not None and H.nx_graph.number_of_edges() and H.weight_range(weight, self_loops=True)[1]:
        raise NotImplementedError("tiergraph's PageRank is unweighted and this graph has weights other than 1")
    if max_iter < 1:
        raise nx.PowerIterationFailedConvergence(max_iter)
    # networkx stops when the L1 change is below n * tol, checking after every iteration.
    r = algorithms.pagerank(g, damping=alpha, tolerance=n * tol, max_iterations=max_iter)
    if r.summary["iterations"] >= max_iter and not r.summary["last_change"] < n * tol:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return dict(zip(g.labels, r.values.tolist()))


def _components(G) -> list:
    H = _graph_of(G)
    if len(H) == 0:
        return []
    g = H.graph(None)
    labels = algorithms.wcc(g).values  # a component's least vertex, per vertex
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    nodes = g.labels
    return [{nodes[i] for i in part.tolist()} for part in np.split(order, bounds)]


def connected_components(G):
    return iter(_components(G))


def weakly_connected_components(G):
    return iter(_components(G))


def number_connected_components(G):
    H = _graph_of(G)
    return 0 if len(H) == 0 else int(algorithms.wcc(H.graph(None)).summary["components"])


number_weakly_connected_components = number_connected_components


def _distances(result) -> dict:
    """{node: distance} for the reached vertices, nearest first (networkx's order by level)."""
    values = result.values
    reached = np.flatnonzero(result.reached())
    reached = reached[np.argsort(values[reached], kind="stable")]
    nodes = result.graph.labels
    return {nodes[i]: d for i, d in zip(reached.tolist(), values[reached].tolist())}


def single_source_shortest_path_length(G, source, cutoff=None):
    nx = _nx()
    H = _graph_of(G)
    if source not in H:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    g = H.graph(None)
    d = _distances(algorithms.bfs(g, source))
    if cutoff is not None:
        d = {k: v for k, v in d.items() if v <= cutoff}
    return d


def bfs_layers(G, sources):
    nx = _nx()
    H = _graph_of(G)
    if sources in H:
        sources = [sources]
    sources = list(dict.fromkeys(sources))
    for s in sources:
        if s not in H:
            raise nx.NetworkXError(f"The node {s} is not in the graph.")
    if len(sources) != 1:
        raise NotImplementedError("tiergraph's bfs_layers runs from one source")
    g = H.graph(None)
    depth = algorithms.bfs(g, sources[0]).values
    return _layers_in_discovery_order(H.nx_graph, g, depth, sources[0])


def _layers_in_discovery_order(G, g: Graph, depth: np.ndarray, source):
    """networkx's layers: each in the order its nodes are first met from the layer before, in
    the graph's adjacency order. tiergraph gives the depths; this pass only orders them."""
    index = g.node_index()
    layer = [source]
    level = 0
    adj = G._adj
    while layer:
        yield layer
        level += 1
        seen = set()
        nxt = []
        for u in layer:
            for v in adj[u]:
                if v not in seen and depth[index[v]] == level:
                    seen.add(v)
                    nxt.append(v)
        layer = nxt


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    nx = _nx()
    H = _graph_of(G)
    if callable(weight):
        raise NotImplementedError("tiergraph reads weights from an edge attribute, not a function")
    if source not in H:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if weight is None:
        g = H.graph(None)
        r = algorithms.sssp(g, source, unit_weights=True)
    else:
        if H.nx_graph.number_of_edges() and H.weight_range(weight)[0] < 0:
            raise NotImplementedError("negative weights: networkx's Dijkstra reports them as it does")
        g = H.graph(weight)
        r = algorithms.sssp(g, source) if g.weighted else algorithms.sssp(g, source, unit_weights=True)
    d = _distances(r)
    if cutoff is not None:
        d = {k: v for k, v in d.items() if v <= cutoff}
    return d


def eccentricity(G, v=None, sp=None, weight=None):
    nx = _nx()
    H = _graph_of(G)
    if sp is not None or weight is not None:
        raise NotImplementedError("tiergraph's eccentricity is by hops, from its own searches")
    if H.is_directed():
        raise NotImplementedError("tiergraph's eccentricity is for undirected graphs")
    Gnx = H.nx_graph
    wanted = list(Gnx.nbunch_iter(v))  # networkx's own check of v
    if not wanted:
        return {}
    g = H.graph(None)
    if number_connected_components(H) > 1:
        raise nx.NetworkXError("Found infinite path length because the graph is not connected")
    # In an undirected graph d(s, u) = d(u, s), so the most any source is from u is u's
    # eccentricity once every vertex has been a source: 64 sources per bit-parallel search.
    ecc = np.zeros(g.num_vertices, dtype=np.int64)
    for start in range(0, g.num_vertices, 64):
        batch = range(start, min(start + 64, g.num_vertices))
        values = algorithms.radii(g, [g.labels[i] for i in batch]).values
        np.maximum(ecc, np.where(values == UNREACHED, 0, values), out=ecc)
    index = g.node_index()
    e = {n: int(ecc[index[n]]) for n in wanted}
    if v in Gnx:
        return e[v]
    return e


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    from networkx.algorithms.centrality.betweenness import _rescale

    H = _graph_of(G)
    if weight is not None or endpoints:
        raise NotImplementedError("tiergraph's betweenness counts hops and leaves the endpoints out")
    Gnx = H.nx_graph
    if len(H) == 0:
        return {}
    if k == len(Gnx):
        k = None
    # The sources networkx itself would draw (it hands a backend its seed as a random.Random).
    rng = seed if hasattr(seed, "sample") else random.Random(seed)
    nodes = list(Gnx) if k is None else rng.sample(list(Gnx.nodes()), k)
    g = H.graph(None)
    # k=0 draws no source: every score is 0, and networkx's rescaling divides by k (as networkx).
    scores = algorithms.betweenness(g, nodes).values if nodes else np.zeros(g.num_vertices)
    # networkx's own rescaling (its unnormalized sum is the one tiergraph computes).
    return _rescale(dict(zip(g.labels, scores.tolist())), len(Gnx), normalized=normalized,
                    directed=H.is_directed(), endpoints=endpoints, sampled_nodes=None if k is None else nodes)


def _triangles_and_degrees(G, nodes=None):
    """(node, neighbours other than itself, 2 x the triangles through it) for the nodes networkx's
    nbunch_iter(nodes) gives, in its order: what networkx's clustering functions are made of,
    with the triangles counted once for the whole graph by tiergraph's tc."""
    H = _graph_of(G)
    Gnx = H.nx_graph
    wanted = list(Gnx) if nodes is None else list(Gnx.nbunch_iter(nodes))
    if not wanted:
        return []
    g = H.graph(None)
    through = algorithms.triangles(g).values
    index = g.node_index()
    adj = Gnx.adj
    return [(v, len(adj[v]) - (v in adj[v]), 2 * int(through[index[v]])) for v in wanted]


def triangles(G, nodes=None):
    H = _graph_of(G)
    Gnx = H.nx_graph
    if nodes is not None and nodes not in Gnx:  # a container of nodes (networkx's check of them)
        return {v: t // 2 for v, _, t in _triangles_and_degrees(G, nodes)}
    if len(Gnx) == 0:
        return {}
    g = H.graph(None)
    counts = dict(zip(g.labels, algorithms.triangles(g).values.tolist()))
    return counts if nodes is None else counts[nodes]


def clustering(G, nodes=None, weight=None):
    H = _graph_of(G)
    if weight is not None or H.is_directed():
        raise NotImplementedError("tiergraph's clustering is for unweighted undirected graphs")
    single = nodes is not None and nodes in H.nx_graph
    clusterc = {v: 0 if t == 0 else t / (d * (d - 1))
                for v, d, t in _triangles_and_degrees(G, [nodes] if single else nodes)}
    return clusterc[nodes] if single else clusterc


def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G):
    if _graph_of(G).is_directed():
        raise NotImplementedError("tiergraph's transitivity is for undirected graphs")
    triangles_contri = [(t, d * (d - 1)) for _, d, t in _triangles_and_degrees(G)]
    if len(triangles_contri) == 0:
        return 0
    found, contri = map(sum, zip(*triangles_contri))
    return 0 if found == 0 else found / contri


_FUNCTIONS = {
    f.__name__: f
    for f in (pagerank, connected_components, weakly_connected_components, number_connected_components,
              single_source_shortest_path_length, bfs_layers, single_source_dijkstra_path_length, eccentricity,
              betweenness_centrality, triangles, clustering, average_clustering, transitivity)
}
_FUNCTIONS["number_weakly_connected_components"] = number_connected_components


# ---- the backend interface ----------------------------------------------------------------
def _decline(name: str, a: dict) -> Optional[str]:
    """Why tiergraph cannot run this call (None: it can)."""
    G = a.get("G")
    if G is not None and G.is_multigraph():
        return "tiergraph does not take multigraphs"
    if callable(a.get("weight")):
        return "tiergraph reads weights from an edge attribute, not a function"
    if name == "pagerank" and any(a.get(k) is not None for k in ("personalization", "nstart", "dangling")):
        return "tiergraph's PageRank has no personalization, nstart or dangling vector"
    if name == "eccentricity" and (a.get("sp") is not None or a.get("weight") is not None or G.is_directed()):
        return "tiergraph's eccentricity is by hops on undirected graphs"
    if name == "betweenness_centrality" and (a.get("weight") is not None or a.get("endpoints")):
        return "tiergraph's betweenness counts hops and leaves the endpoints out"
    if name in ("clustering", "average_clustering", "transitivity") and (
            G.is_directed() or a.get("weight") is not None):
        return "tiergraph's clustering coefficients are for unweighted undirected graphs"
    if name == "bfs_layers":
        sources = a.get("sources")
        if not (sources in G) and not isinstance(sources, (list, tuple, set)):
            return None  # an iterator: checked when run
        if not (sources in G) and len(set(sources)) != 1:
            return "tiergraph's bfs_layers runs from one source"
    return None


class BackendInterface:
    """What networkx looks up: the functions, conversions, and can_run / should_run."""

    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                        preserve_graph_attrs=False, preserve_all_attrs=False, name=None, graph_name=None):
        if isinstance(G, TiergraphGraph):
            return G
        return TiergraphGraph(G, edge_attrs if isinstance(edge_attrs, dict) else None)

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        return obj.nx_graph if isinstance(obj, TiergraphGraph) else obj

    @staticmethod
    def can_run(name, args, kwargs):
        f = _FUNCTIONS.get(name)
        if f is None:
            return False
        try:
            bound = inspect.signature(f).bind(*args, **kwargs)
        except TypeError:
            return False
        bound.apply_defaults()
        reason = _decline(name, bound.arguments)
        return True if reason is None else reason

    @staticmethod
    def should_run(name, args, kwargs):
        G = args[0] if args else kwargs.get("G")
        graph = G.nx_graph if isinstance(G, TiergraphGraph) else G
        if graph is not None and graph.number_of_edges() < SMALL_GRAPH_EDGES:
            return f"fewer than {SMALL_GRAPH_EDGES} edges: networkx's own loops are faster than converting"
        return True


for _name, _f in _FUNCTIONS.items():
    setattr(BackendInterface, _name, staticmethod(_f))

backend_interface = BackendInterface()


def get_info():
    """networkx's backend_info entry point."""
    return {
        "backend_name": "tiergraph",
        "project": "tiergraph",
        "package": "tiergraph",
        "short_summary": "Graph analytics across memory tiers (C++ engine)",
        "functions": {name: {} for name in _FUNCTIONS},
    }


# networkx's own test modules for the functions above; scripts/test.sh runs them on this backend.
NETWORKX_TEST_MODULES = [
    "networkx.algorithms.link_analysis.tests.test_pagerank",
    "networkx.algorithms.components.tests.test_connected",
    "networkx.algorithms.components.tests.test_weakly_connected",
    "networkx.algorithms.shortest_paths.tests.test_unweighted",
    "networkx.algorithms.shortest_paths.tests.test_weighted",
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.tests.test_distance_measures",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
    "networkx.algorithms.tests.test_cluster",
]
