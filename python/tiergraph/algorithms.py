"""The algorithms, as functions of a :class:`tiergraph.Graph` returning a :class:`tiergraph.Result`.

Every function takes the options of ``tiergraph run`` as keywords, with the same meaning and the
same checks: ``threads`` (default: every core this process may use, one per 65,536 arcs at
most, so small graphs run on one thread), ``direction`` ('auto',
'push', 'pull'), ``schedule`` ('auto', 'vertex', 'block'), ``verify`` (check the answer with the
algorithm's serial verifier; a failure raises :class:`tiergraph.Error`), and the memory tiers:
``memory_budget`` (bytes, or a size such as '512M') or ``far_ratio``, with ``far`` ('file', 'numa'
or 'paging'; the far-memory rank needs ``mpirun``, so it is the CLI's) and ``profile``. The GIL is
released while the engine runs; Ctrl-C ends a run with KeyboardInterrupt after the current pass.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Union

import numpy as np

from .errors import InvalidInput, InvalidType
from .graph import Graph
from .result import UNREACHED, Result

_COMMON = {"threads", "direction", "schedule", "verify", "memory_budget", "far_ratio", "far", "far_node", "profile",
           "store", "pass_stats"}


# Arcs per thread below which more threads cost more than they give: a pass over a small graph
# is a few microseconds, and each OpenMP region's barrier costs about that much (far more when
# the cores are busy with other work, where spinning threads wait for each other's time slices).
ARCS_PER_THREAD = 1 << 16


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def default_threads(arcs: int) -> int:
    """The threads a run uses unless told: every core this process may use, but no more than
    one per ``ARCS_PER_THREAD`` arcs (so a small graph runs on one thread)."""
    return max(1, min(_cores(), arcs // ARCS_PER_THREAD))


def _run(graph: Graph, algorithm: str, options: dict) -> Result:
    opts = {k: v for k, v in options.items() if v is not None}
    threads = opts.get("threads", default_threads(graph._file.num_arcs))
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise InvalidInput(f"threads must be a positive integer, got {threads!r}")
    opts["threads"] = threads
    opts.setdefault("pass_stats", True)
    if "memory_budget" in opts:
        opts["memory_budget"] = _memory_budget(opts["memory_budget"])
    if "far_ratio" in opts:
        opts["far_ratio"] = _far_ratio(opts["far_ratio"])
    if ("memory_budget" in opts or "far_ratio" in opts) and opts.get("far", "file") == "file" and graph.path is None:
        raise InvalidInput(f"the file tier reads the graph's file from disk, and {graph._file.name} was built in "
                           "memory: write it with graph.save(path) and tiergraph.load(path), or use "
                           "far='numa' or far='paging'")
    if opts.get("far") == "rank":
        raise InvalidInput("far='rank' reads from a far-memory rank started by mpirun: use the CLI "
                           "(mpirun -np 2 tiergraph run ... --far rank)")
    raw = graph._file.run(algorithm, opts)
    result = Result(algorithm, graph, raw)
    if opts.get("verify") and not raw["verified"]:
        from .errors import Error
        trial = result.stats["trials"][-1]
        raise Error(f"verification failed: {trial.get('verification_error', '')}")
    return result


def _memory_budget(budget: Any) -> str:
    """``memory_budget`` as the size text the engine parses (the engine checks its value, as the
    CLI's): bytes as an int, or a size such as '512M'. A bool or a float is refused by type: 1.5
    bytes is no size, and True is not a budget."""
    if isinstance(budget, (bool, np.bool_)) or not isinstance(budget, (int, np.integer, str)):
        raise InvalidType(f"memory_budget must be a size in bytes (an int) or a str such as '512M', "
                          f"got {budget!r} ({type(budget).__name__})")
    if isinstance(budget, str):
        return budget
    if not 0 < budget < 2**64:
        raise InvalidInput(f"memory_budget must be a size above 0 and below 2**64 bytes, got {int(budget)}")
    return str(int(budget))


def _far_ratio(ratio: Any) -> float:
    """``far_ratio`` as a float (its range is the engine's check); a str or a bool is refused by
    type, as numpy would not take 'abc' for a share either."""
    if isinstance(ratio, (bool, np.bool_)) or not isinstance(ratio, (int, float, np.integer, np.floating)):
        raise InvalidType(f"far_ratio must be a number between 0 and 1, got {ratio!r} ({type(ratio).__name__})")
    return float(ratio)


def _source(graph: Graph, source: Any) -> Optional[int]:
    """A source label as the original id the engine takes (None: sampled as GAPBS does)."""
    if source is None:
        return None
    vertex = graph.vertex(source)  # NodeNotFound unless it is one
    # A graph built from networkx numbers its nodes 0..n-1 in its file; other labels are ids.
    return vertex if graph._nodes is not None else int(source)


def bfs(graph: Graph, source: Any = None, *, parents: bool = False, seed: Optional[int] = None,
        **options: Any) -> Result:
    """Breadth-first search: ``values[v]`` is the hop distance from ``source`` (a label; default
    a random vertex with out-edges, as GAPBS picks), ``UNREACHED`` where none; with
    ``parents=True``, ``result.parents`` is a BFS tree as ``{label: parent label}`` (as
    ``dict(networkx.bfs_predecessors(G, source))``), ``result.parent_vertices`` the same as vertex
    indices (the source its own parent, -1 where unreached)."""
    _check(graph, "bfs", options)
    return _run(graph, "bfs", dict(options, source=_source(graph, source), parents=parents, seed=seed))


def sssp(graph: Graph, source: Any = None, *, delta: Optional[float] = None, unit_weights: bool = False,
         seed: Optional[int] = None, **options: Any) -> Result:
    """Single-source shortest paths (delta-stepping) over non-negative weights: ``values[v]`` is
    the distance from ``source``; int64 for integer weights, float64 otherwise (``UNREACHED`` or
    ``inf`` where none). ``unit_weights=True`` counts hops (and works on unweighted graphs);
    ``delta`` is the bucket width (default: mean weight / mean degree)."""
    _check(graph, "sssp", options)
    if delta is not None and not delta > 0:
        raise InvalidInput(f"delta must be positive, got {delta}")
    return _run(graph, "sssp", dict(options, source=_source(graph, source), delta=delta,
                                    unit_weights=unit_weights, seed=seed))


def wcc(graph: Graph, **options: Any) -> Result:
    """Weakly connected components: ``values[v]`` is the least label (original id) of ``v``'s
    component (for networkx nodes: the least vertex id, the first of its nodes in node order)."""
    _check(graph, "wcc", options)
    return _run(graph, "wcc", options)


def pagerank(graph: Graph, *, damping: float = 0.85, tolerance: Optional[float] = None,
             max_iterations: Optional[int] = None, iterations: Optional[int] = None, precision: str = "double",
             **options: Any) -> Result:
    """PageRank (dangling vertices' rank spread uniformly, as networkx does): ``values[v]`` is the
    rank, summing to 1. Stops when the L1 change between iterations is below ``tolerance``
    (default 1e-7, at most 1000 iterations, or ``max_iterations``), or after exactly
    ``iterations`` when only that is given. ``precision="float"`` holds each vertex's
    contribution between iterations in a float: faster on large graphs, ranks within about 2e-7
    (relative) of the default's."""
    _check(graph, "pagerank", options)
    if tolerance is not None and not tolerance > 0:
        raise InvalidInput(f"tolerance must be positive, got {tolerance}")
    if max_iterations is not None and iterations is not None:
        raise InvalidInput("give iterations (an exact count) or max_iterations (a cap on tolerance), not both")
    if max_iterations is not None and tolerance is None:
        tolerance = 1e-7
    opts = dict(options, damping=damping, tolerance=tolerance, iterations=iterations, precision=precision)
    if max_iterations is not None:
        opts["max_iterations"] = max_iterations
    return _run(graph, "pr", opts)


def radii(graph: Graph, sources: Optional[Iterable[Any]] = None, *, samples: int = 64, seed: Optional[int] = None,
          **options: Any) -> Result:
    """Eccentricity estimates by bit-parallel BFS from up to 64 sources at once: ``values[v]`` is
    the largest hop distance from any source to ``v``. ``sources`` are labels (at most 64);
    default ``samples`` random vertices with out-edges."""
    _check(graph, "radii", options)
    opts = dict(options, samples=samples, seed=seed)
    if sources is not None:
        vertices = [graph.vertex(s) for s in sources]
        if not 1 <= len(vertices) <= 64:
            raise InvalidInput(f"radii takes 1 to 64 sources, got {len(vertices)}")
        opts["sources"] = vertices
    return _run(graph, "radii", opts)


def betweenness(graph: Graph, sources: Optional[Iterable[Any]] = None, *, samples: Union[int, str, None] = None,
                seed: Optional[int] = None, **options: Any) -> Result:
    """Betweenness centrality by Brandes' algorithm: ``values[v]`` is the sum, over the sources
    s, of the share of shortest paths from s to every other vertex that pass through ``v``
    (unnormalized; on an undirected graph each pair's paths are counted from both ends when both
    are sources). ``sources`` are labels; else ``samples`` random vertices with out-edges
    (default 4, the GAP benchmark's), or ``samples="all"`` for the exact centrality."""
    _check(graph, "betweenness", options)
    opts = dict(options, seed=seed)
    if samples == "all":
        opts["samples"] = 0
    elif samples is not None:
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise InvalidInput(f"samples must be a positive number of sources or 'all', got {samples!r}")
        opts["samples"] = samples
    if sources is not None:
        vertices = [graph.vertex(s) for s in sources]
        if not vertices:
            raise InvalidInput("betweenness takes at least one source")
        opts["sources"] = vertices
    return _run(graph, "bc", opts)


def triangles(graph: Graph, **options: Any) -> Result:
    """Triangles: ``values[v]`` is the number of triangles through ``v`` in the graph's undirected
    view (a directed graph's arcs taken as edges, self-loops dropped), as ``networkx.triangles``
    counts them; ``stats["trials"][-1]["triangles"]`` is the total (GAPBS's tc)."""
    _check(graph, "triangles", options)
    return _run(graph, "tc", options)


def clustering(graph: Graph, **options: Any) -> Result:
    """Local clustering coefficient as LDBC Graphalytics defines it: ``values[v]`` is the number
    of arcs among ``v``'s in- and out-neighbours (``v`` excluded) over the ordered pairs of them,
    0 below two neighbours; on an undirected graph, ``networkx.clustering``.
    ``stats["trials"][-1]["summary"]["average"]`` is their mean over every vertex."""
    _check(graph, "clustering", options)
    return _run(graph, "lcc", options)


def label_propagation(graph: Graph, *, rounds: int = 10, **options: Any) -> Result:
    """Community detection by label propagation as LDBC Graphalytics defines it (CDLP): every
    vertex starts labelled with its own id; in each of ``rounds`` synchronous rounds it takes the
    label most frequent among its neighbours', the smallest of those tied, and keeps its own
    without neighbours. A directed graph's in- and out-neighbours both count (one joined both ways
    twice). ``values[v]`` is ``v``'s final label, an original id; vertices that share a label form
    a community. networkx's label propagation functions break ties otherwise (at random, or
    semi-synchronously), so their communities differ."""
    _check(graph, "label_propagation", options)
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise InvalidInput(f"rounds must be a positive integer, got {rounds!r}")
    return _run(graph, "cdlp", dict(options, iterations=int(rounds)))


def _check(graph: Graph, algorithm: str, options: dict) -> None:
    if not isinstance(graph, Graph):
        raise InvalidInput(f"{algorithm} takes a tiergraph.Graph, got {type(graph).__name__} "
                           "(build one with Graph.from_edges, from_scipy or from_networkx)")
    unknown = set(options) - _COMMON
    if unknown:
        raise InvalidInput(f"unknown option(s): {', '.join(sorted(unknown))}; the options every algorithm "
                           f"takes: {', '.join(sorted(_COMMON))}")


__all__ = ["UNREACHED", "betweenness", "bfs", "clustering", "pagerank", "radii", "sssp", "triangles", "wcc"]
