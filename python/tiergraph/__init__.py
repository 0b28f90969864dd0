"""tiergraph: graph analytics across memory tiers, from Python.

Build or open a graph, run an algorithm, get numpy arrays indexed by vertex::

    import numpy as np, tiergraph as tg
    g = tg.Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), directed=False)
    r = tg.bfs(g, source=0)
    r.values            # hop distances, one per vertex
    r.to_dict()         # {label: distance} for the reached vertices

The same engine runs ``tiergraph run`` on the command line; results and ``stats`` (the run report,
as ``run --json`` prints it) are the same. networkx users can also call
``nx.pagerank(G, backend="tiergraph")`` (see :mod:`tiergraph.nx_backend`).
"""

from .algorithms import (UNREACHED, betweenness, bfs, clustering, label_propagation, pagerank, radii, sssp,
                         triangles, wcc)
from .errors import Error, InvalidInput, InvalidType, NodeNotFound
from .graph import Graph, convert, generate, load
from .result import Result, Stats

__version__ = "0.1.0"

__all__ = [
    "UNREACHED",
    "Error",
    "Graph",
    "InvalidInput",
    "InvalidType",
    "NodeNotFound",
    "Result",
    "Stats",
    "betweenness",
    "bfs",
    "clustering",
    "convert",
    "generate",
    "label_propagation",
    "load",
    "pagerank",
    "radii",
    "sssp",
    "triangles",
    "wcc",
]
