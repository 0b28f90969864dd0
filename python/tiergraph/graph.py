"""Graphs: opened graph files, or graphs built from numpy arrays, scipy matrices and networkx graphs.

A :class:`Graph` is always a graph file of tiergraph's block-grid format, mapped into memory:
``load`` opens one (or converts a text input first), and the ``from_*`` builders write one to a
scratch directory and unlink it at once, so nothing is left on disk and the mapping keeps the
data alive until the graph is dropped.
"""

from __future__ import annotations

import os
import tempfile
from itertools import chain
from operator import methodcaller
from typing import Any, Hashable, Iterable, Optional, Sequence

import numpy as np

from . import _core
from .errors import Error, InvalidInput, InvalidType, NodeNotFound

_MAGIC = b"TIERGRPH"  # a graph file's first bytes (src/graph/format.h)


def _scratch_dir() -> str:
    """Where builders write their graph files (``TIERGRAPH_SCRATCH``, else the system's temp dir)."""
    return os.environ.get("TIERGRAPH_SCRATCH") or tempfile.gettempdir()


def _id_array(name: str, values: Any) -> np.ndarray:
    """`values` as a 1-d array of non-negative integer ids (uint64, no copy when it already is)."""
    a = np.asarray(values)
    if a.ndim != 1:
        raise InvalidInput(f"{name} must be a 1-d array of vertex ids, got {a.ndim} dimensions")
    if a.size and a.dtype.kind not in "iu":
        raise InvalidType(f"{name} must hold integers (vertex ids), got dtype {a.dtype}")
    if a.dtype.kind == "i" and a.size:
        negative = np.flatnonzero(a < 0)
        if negative.size:
            k = int(negative[0])
            raise InvalidInput(f"{name}[{k}] is {int(a[k])}: vertex ids must not be negative")
    return np.ascontiguousarray(a, dtype=np.uint64)


def _weight_array(values: Any, m: int) -> np.ndarray:
    w = np.asarray(values)
    if w.ndim != 1:
        raise InvalidInput(f"weights must be a 1-d array, got {w.ndim} dimensions")
    if w.size and w.dtype.kind not in "iuf":
        raise InvalidType(f"weights must be numbers, got dtype {w.dtype}")
    if len(w) != m:
        raise InvalidInput(f"weights has {len(w)} values for {m} edges")
    w = np.ascontiguousarray(w, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(w))
    if bad.size:
        k = int(bad[0])
        raise InvalidInput(f"weights[{k}] is {w[k]}: weights must be finite numbers")
    return w


class Graph:
    """A graph tiergraph can run algorithms on.

    Build one with :meth:`from_edges`, :meth:`from_scipy` or :meth:`from_networkx`, or open a
    graph file with :func:`tiergraph.load`. Vertices are numbered ``0..num_vertices-1``; each has
    a *label*: its original id in the input, or the networkx node it came from. Results are
    indexed by vertex; :class:`tiergraph.Result` maps them back to labels.
    """

    def __init__(self, file: "_core.GraphFile", *, nodes: Optional[Sequence[Hashable]] = None, keep_path: bool = False):
        self._file = file
        self._nodes = list(nodes) if nodes is not None else None
        self._node_index: Optional[dict] = None
        self._labels: Optional[np.ndarray] = None
        self._keep_path = keep_path

    # ---- building -------------------------------------------------------------------------
    @classmethod
    def from_edges(cls, src: Any, dst: Any, weights: Any = None, *, directed: bool = True,
                   num_vertices: Optional[int] = None, keep_self_loops: bool = False,
                   keep_duplicates: bool = False, blocks: int = 0,
                   _name: str = "the graph built from edge arrays") -> "Graph":
        """A graph from parallel arrays of edge endpoints (vertex ids ``0..num_vertices-1``).

        ``src`` and ``dst`` may have any integer dtype; uint64 arrays are read without a copy.
        ``weights`` (optional) are finite numbers, one per edge. ``directed=False`` stores each
        edge both ways. ``num_vertices`` defaults to the largest id + 1 (vertices without edges
        count). Self-loops and duplicate edges are removed unless kept.
        """
        s = _id_array("src", src)
        d = _id_array("dst", dst)
        if len(s) != len(d):
            raise InvalidInput(f"src has {len(s)} ids and dst has {len(d)}: they must have the same length")
        w = _weight_array(weights, len(s)) if weights is not None else None
        largest = int(max(s.max(), d.max())) if len(s) else -1
        if num_vertices is None:
            num_vertices = largest + 1
        if num_vertices < 0:
            raise InvalidInput(f"num_vertices must not be negative, got {num_vertices}")
        if largest >= num_vertices:
            raise InvalidInput(f"vertex id {largest} is not below num_vertices={num_vertices}")
        if blocks < 0:
            raise InvalidInput(f"blocks must not be negative, got {blocks}")
        from .algorithms import default_threads

        f = _core.from_edges(s, d, w, int(num_vertices), bool(directed), bool(keep_self_loops),
                             bool(keep_duplicates), int(blocks), _scratch_dir(), default_threads(len(s)), _name)
        return cls(f)

    @classmethod
    def from_scipy(cls, matrix: Any, *, directed: bool = True, weighted: Optional[bool] = None) -> "Graph":
        """A graph from a scipy sparse matrix or array (any format): entry ``(i, j)`` is an edge
        from ``i`` to ``j``, its value the weight. ``weighted`` defaults to whether the values are
        numbers other than booleans. ``directed=False`` reads the matrix as symmetric."""
        try:
            import scipy.sparse as sp
        except ImportError as e:  # pragma: no cover - scipy is optional
            raise InvalidType("from_scipy needs scipy installed") from e
        if not sp.issparse(matrix):
            raise InvalidType(f"from_scipy takes a scipy sparse matrix or array, got {type(matrix).__name__}")
        rows, cols = matrix.shape
        if rows != cols:
            raise InvalidInput(f"an adjacency matrix must be square, got shape {matrix.shape}")
        coo = matrix.tocoo()
        if weighted is None:
            weighted = coo.data.dtype.kind in "iuf"
        return cls.from_edges(coo.row, coo.col, coo.data if weighted else None, directed=directed, num_vertices=rows,
                              _name="the graph built from a scipy matrix")

    @classmethod
    def from_networkx(cls, G: Any, weight: Optional[str] = None, *, keep_self_loops: bool = False) -> "Graph":
        """A graph from a networkx graph, its nodes kept as labels (results map back to them).

        ``weight`` names the edge attribute read as the weight (missing: 1). Directed graphs stay
        directed. A multigraph's parallel edges collapse into one (refused with ``weight``, as
        which weight to keep would be a guess)."""
        if not hasattr(G, "adj") or not hasattr(G, "is_directed"):
            raise InvalidType(f"from_networkx takes a networkx graph, got {type(G).__name__}")
        if G.is_multigraph() and weight is not None:
            raise InvalidInput("a weighted multigraph has several weights per edge; collapse it to a Graph first")
        src, dst, w, nodes = _networkx_arrays(G, weight)
        graph = cls.from_edges(src, dst, w, directed=G.is_directed(), num_vertices=len(nodes),
                               keep_self_loops=keep_self_loops, _name="the graph built from a networkx graph")
        graph._nodes = nodes
        return graph

    # ---- what it is -----------------------------------------------------------------------
    @property
    def num_vertices(self) -> int:
        """Vertices, isolated ones included."""
        return self._file.num_vertices

    @property
    def num_edges(self) -> int:
        """Edges (an undirected edge counts once)."""
        return self._file.num_edges

    @property
    def directed(self) -> bool:
        return self._file.directed

    @property
    def weighted(self) -> bool:
        return self._file.weighted

    @property
    def path(self) -> Optional[str]:
        """The graph file's path, or None for a graph built in memory (its file is unlinked)."""
        return self._file.path if self._keep_path else None

    @property
    def labels(self) -> Any:
        """Each vertex's label: a list of networkx nodes, or a uint64 array of original ids."""
        if self._nodes is not None:
            return self._nodes
        if self._labels is None:
            self._labels = self._file.original_ids()
        return self._labels

    def node_index(self) -> dict:
        """``{node: vertex}`` for a graph built from networkx (made once, on first use)."""
        if self._node_index is None:
            self._node_index = {n: i for i, n in enumerate(self._nodes or [])}
        return self._node_index

    def vertex(self, label: Any) -> int:
        """The vertex (0..num_vertices-1) of a label; :class:`NodeNotFound` if there is none."""
        if self._nodes is not None:
            try:
                return self.node_index()[label]
            except (KeyError, TypeError):
                raise NodeNotFound(f"{label!r} is not a node of the graph") from None
        if isinstance(label, (bool, np.bool_)) or not isinstance(label, (int, np.integer)) or label < 0:
            raise NodeNotFound(f"{label!r} is not a vertex of the graph (vertex ids are non-negative integers)")
        try:
            return self._file.dense_id(int(label))
        except Error:
            raise NodeNotFound(f"{label} is not a vertex of the graph") from None

    # ---- what a networkx user reaches for first ------------------------------------------
    def out_degree(self, v: Any = None) -> Any:
        """Out-degree: of label ``v`` (an int), or of every vertex (a uint64 array indexed by
        vertex, as ``values`` are). Arcs are counted as stored: without self-loops and duplicates
        unless the graph kept them, each undirected edge once at each end."""
        if v is not None:
            return self._file.out_degree(self.vertex(v))
        return self._file.out_degrees()

    def in_degree(self, v: Any = None) -> Any:
        """In-degree, as :meth:`out_degree` (the same numbers for an undirected graph)."""
        if v is not None:
            return self._file.in_degree(self.vertex(v))
        return self._file.in_degrees()

    def degree(self, v: Any = None) -> Any:
        """Degree in networkx's terms: an undirected graph's degree, a directed graph's in- plus
        out-degree (``G.degree``); of label ``v`` (an int), or of every vertex (a uint64 array
        indexed by vertex). :meth:`out_degree` gives out-degrees alone."""
        if v is not None:
            vertex = self.vertex(v)  # NodeNotFound unless v is one
            d = self._file.out_degree(vertex)
            return d + self._file.in_degree(vertex) if self.directed else d
        d = self._file.out_degrees()
        return d + self._file.in_degrees() if self.directed else d

    def neighbors(self, v: Any) -> list:
        """The labels (networkx nodes, or original ids) of ``v``'s out-neighbours (a directed
        graph's successors, as networkx's ``G.neighbors``), in vertex order."""
        ids = self._file.neighbors(self.vertex(v)).astype(np.int64)
        labels = self.labels
        if isinstance(labels, np.ndarray):
            return labels[ids].tolist()
        return [labels[i] for i in ids.tolist()]

    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> None:
        """Writes the graph file to ``path`` (open it again with :func:`tiergraph.load`, or run
        the CLI on it). An existing file is refused unless ``overwrite=True``; the file is written
        under a temporary name and renamed, so an error leaves no partial file. A graph built from
        networkx keeps its node objects only in Python: the file numbers them 0..n-1 in node order."""
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidType(f"save takes a path (str or os.PathLike), got {type(path).__name__}")
        target = os.fspath(path)
        if not target:
            raise InvalidInput("save needs a path, got ''")
        if not isinstance(overwrite, (bool, np.bool_)):
            raise InvalidType(f"overwrite must be True or False, got {overwrite!r}")
        self._file.save(target, bool(overwrite))

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        w = ", weighted" if self.weighted else ""
        return f"<tiergraph.Graph {self.num_vertices} vertices, {self.num_edges} {kind} edges{w}>"


def _networkx_arrays(G: Any, weight: Optional[str]):
    """Edge arrays (dense ids in node order) and the node list of a networkx graph."""
    nodes = list(G)
    n = len(nodes)
    adj = G._adj if hasattr(G, "_adj") else G.adj
    degrees = np.fromiter(map(len, adj.values()), dtype=np.int64, count=n)
    total = int(degrees.sum())
    src = np.repeat(np.arange(n, dtype=np.uint64), degrees)
    # chain and map run in C: no Python frame per arc (twice as fast as a generator expression).
    neighbours = chain.from_iterable(adj.values())  # iterating a dict of neighbours yields them
    if nodes == list(range(n)):  # nodes 0..n-1 in order: they are their own ids
        dst = np.fromiter(neighbours, dtype=np.uint64, count=total)
    else:
        index = {node: i for i, node in enumerate(nodes)}
        dst = np.fromiter(map(index.__getitem__, neighbours), dtype=np.uint64, count=total)
    w = None
    if weight is not None:
        if G.is_multigraph():  # pragma: no cover - refused by the caller
            raise InvalidInput("weighted multigraphs are not supported")
        attributes = chain.from_iterable(nbrs.values() for nbrs in adj.values())
        w = np.fromiter(map(methodcaller("get", weight, 1), attributes), dtype=np.float64, count=total)
    return src, dst, w, nodes


def _is_graph_file(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(len(_MAGIC)) == _MAGIC


def load(path: str | os.PathLike, *, verify_checksums: bool = True, **convert_options: Any) -> Graph:
    """Opens a graph file (checked as ``tiergraph run`` checks it), or reads any input ``convert``
    reads, converted to a scratch file first with ``convert_options`` as for :func:`convert`."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise InvalidInput(f"cannot open '{path}': no such file")
    if _is_graph_file(path):
        if convert_options:
            raise InvalidInput(f"'{path}' is a graph file already; convert options apply to text inputs")
        return Graph(_core.open(path, verify_checksums), keep_path=True)
    fd, temp = tempfile.mkstemp(prefix="tiergraph-load-", suffix=".tg", dir=_scratch_dir())
    os.close(fd)
    try:
        convert(path, temp, overwrite=True, **convert_options)
        # Messages name the input, not the scratch file (unlinked below) the user never saw.
        return Graph(_core.open(temp, verify_checksums, f"the graph read from '{path}'"))
    finally:
        os.unlink(temp)


_CONVERT_OPTIONS = {"format", "ids", "columns", "header", "no_header", "undirected", "keep_self_loops",
                    "keep_duplicates", "weights", "weight_seed", "blocks", "vertices", "overwrite", "memory_budget",
                    "scratch"}


def _build_budget(memory_budget: Any, scratch: Any) -> tuple[str, str]:
    """``memory_budget`` and ``scratch`` of a build as the engine takes them ('' for neither)."""
    from .algorithms import _memory_budget

    budget = "" if memory_budget is None else _memory_budget(memory_budget)
    return budget, "" if scratch is None else os.fspath(scratch)


def convert(input: str | os.PathLike, output: str | os.PathLike, **options: Any) -> dict:
    """Converts any input the CLI reads (edge lists, CSV/TSV, Matrix Market, DIMACS, PACE, METIS,
    compressed or not) into a graph file, with the options of ``tiergraph convert`` as keywords:
    ``format``, ``ids`` ('label' or 'index'), ``columns`` ('0,1,2' or header names), ``header``,
    ``no_header``, ``undirected``, ``keep_self_loops``, ``keep_duplicates``, ``weights`` ('int' or
    'real', generated), ``weight_seed``, ``blocks``, ``vertices``, ``overwrite``, ``memory_budget``
    (bytes or a size such as '2G': the build keeps to it, sorting runs of edges on the disk in
    ``scratch``, by default the output's folder; without it the build is in memory unless that would
    take more than half of the memory this process may use). Returns the conversion report (as
    ``convert --json``)."""
    import json

    unknown = set(options) - _CONVERT_OPTIONS
    if unknown:
        raise InvalidInput(f"unknown convert option(s): {', '.join(sorted(unknown))}; "
                           f"known: {', '.join(sorted(_CONVERT_OPTIONS))}")
    if options.get("vertices") is None:
        options.pop("vertices", None)
    if "memory_budget" in options or "scratch" in options:
        options["memory_budget"], options["scratch"] = _build_budget(options.pop("memory_budget", None),
                                                                     options.pop("scratch", None))
    return json.loads(_core.convert(os.fspath(input), os.fspath(output), options))


def generate(kind: str, scale: int, output: str | os.PathLike | None = None, *, edge_factor: int = 16,
             seed: int = 27491095, weights: Optional[str] = None, undirected: bool = False, blocks: int = 0,
             overwrite: bool = False, memory_budget: Any = None, scratch: Optional[str | os.PathLike] = None) -> Graph:
    """A generated graph: ``kind`` 'kronecker' (Graph500 RMAT parameters) or 'uniform' random, with
    ``2**scale`` vertices and ``edge_factor * 2**scale`` edges, seeded; ``weights`` None, 'int'
    ([1, 255]) or 'real' ((0, 1]). Written to ``output`` when given (kept there), else to a scratch
    file that is unlinked at once. ``memory_budget`` and ``scratch`` as for :func:`convert`: the
    edges are drawn straight into the bounded build, never held."""
    if kind in ("kron", "rmat"):
        kind = "kronecker"
    budget, scratch_dir = _build_budget(memory_budget, scratch)
    keep = output is not None
    if keep:
        target = os.fspath(output)
    else:
        fd, target = tempfile.mkstemp(prefix="tiergraph-gen-", suffix=".tg", dir=_scratch_dir())
        os.close(fd)
        overwrite = True
    try:
        _core.generate(target, kind, int(scale), int(edge_factor), int(seed), weights or "", bool(undirected),
                       int(blocks), bool(overwrite), budget, scratch_dir)
        return Graph(_core.open(target, True, "" if keep else "the generated graph"), keep_path=keep)
    finally:
        if not keep and os.path.exists(target):
            os.unlink(target)
