"""What an algorithm run returns: per-vertex values as numpy arrays, and the run's statistics."""

from __future__ import annotations

import json
from typing import Any, Optional

import numpy as np

UNREACHED = np.iinfo(np.int64).max
"""The integer value of a vertex a traversal did not reach (real values use ``inf``), as in the
CLI's .npy output."""


class Stats(dict):
    """The run report, the same document ``tiergraph run --json`` prints (graph, threads, store,
    memory, and per trial its time, summary and per-pass statistics)."""

    @property
    def passes(self) -> list:
        """The last trial's edge passes: direction, schedule, frontier size, activated vertices,
        seconds, blocks and bytes fetched (under a budget)."""
        return self["trials"][-1].get("iterations") or []

    def plot(self, ax: Any = None):
        """Draws each pass's time and frontier size (matplotlib, an optional dependency); returns
        the axes (time on the left, frontier on a twin axis on the right)."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:
            raise ImportError("Stats.plot needs matplotlib: pip install matplotlib") from e
        passes = self.passes
        if ax is None:
            # constrained layout: the axis labels of both sides and the title fit inside the figure
            _, ax = plt.subplots(figsize=(7, 3.5), constrained_layout=True)
        x = np.arange(1, len(passes) + 1)
        ax.bar(x, [1e3 * p["seconds"] for p in passes], color="tab:blue", label="pass time (ms)")
        ax.set_xlabel("pass")
        ax.set_ylabel("milliseconds")
        ax.set_ylim(bottom=0)
        twin = ax.twinx()
        frontier = [p["frontier"] for p in passes]
        twin.plot(x, frontier, color="tab:orange", marker=".", label="frontier (vertices)")
        twin.set_ylabel("frontier vertices")
        if passes and max(frontier) > 100 * max(1, min(frontier)):
            twin.set_yscale("log")  # BFS's frontier spans orders of magnitude
        else:
            # From 0: matplotlib would zoom a constant frontier (PageRank's: every vertex) onto a
            # narrow band such as 3200-3500, which reads as a change where there is none.
            twin.set_ylim(bottom=0, top=max(frontier, default=0) * 1.1 or 1)
        bars, bar_labels = ax.get_legend_handles_labels()
        lines, line_labels = twin.get_legend_handles_labels()
        twin.legend(bars + lines, bar_labels + line_labels, loc="best", fontsize="small")
        ax.set_title(f"{self['algorithm']} on {self['vertices']} vertices: {len(passes)} passes, "
                     f"{self['trials'][-1]['seconds']:.3g} s")
        return ax


class Result:
    """One run's answer: ``values[v]`` for every vertex ``v`` (0..n-1).

    - bfs: hop distance from the source (``UNREACHED`` if none); with ``parents=True``,
      ``parents`` (``{label: parent label}``, as ``dict(nx.bfs_predecessors(G, source))``) and
      ``parent_vertices`` (the tree as vertex indices: the source its own parent, -1 where none);
    - sssp: distance (int64 for integer weights, float64 otherwise; ``UNREACHED`` / ``inf``);
    - wcc: the component's label, the least label (original id) in it;
    - pagerank: the rank (they sum to 1);
    - radii: the eccentricity estimate from the sampled sources (``UNREACHED`` if none reached it);
    - betweenness: the sum over the sources of each one's dependency on the vertex (Brandes);
    - triangles: the triangles through the vertex in the undirected view;
    - clustering: the local clustering coefficient (Graphalytics' definition).
    """

    def __init__(self, algorithm: str, graph: Any, raw: dict):
        self.algorithm = algorithm
        self.graph = graph
        values = raw["values"]
        if raw.get("values_are_vertices"):  # WCC: component labels are vertices; show their labels
            labels = graph.labels
            values = np.asarray(labels)[values] if isinstance(labels, np.ndarray) else values
            self._vertex_values = raw["values"]
        else:
            self._vertex_values = None
        self.values: np.ndarray = values
        # The BFS tree as the engine gives it: vertex indices, the source its own parent, -1 for
        # unreached vertices. `parents` turns it into labels (or networkx nodes).
        self.parent_vertices: Optional[np.ndarray] = raw.get("parents")
        self._parents: Optional[dict] = None
        self.source: Optional[int] = raw.get("source")  # the source vertex (bfs, sssp)
        self._report = raw["report"]
        self._stats: Optional[Stats] = None

    @property
    def parents(self) -> Optional[dict]:
        """BFS with ``parents=True``: ``{label: parent's label}`` for every reached vertex but the
        source, what ``dict(networkx.bfs_predecessors(G, source))`` gives (any BFS tree; networkx
        may pick other parents of the same level). None without ``parents=True``."""
        if self.parent_vertices is None:
            return None
        if self._parents is None:
            p = self.parent_vertices
            children = np.flatnonzero((p >= 0) & (p != np.arange(len(p))))  # not unreached, not the source
            labels = self.graph.labels
            if isinstance(labels, np.ndarray):
                self._parents = dict(zip(labels[children].tolist(), labels[p[children]].tolist()))
            else:
                self._parents = {labels[c]: labels[q] for c, q in zip(children.tolist(), p[children].tolist())}
        return self._parents

    @property
    def stats(self) -> Stats:
        """The run report as a dict (parsed on first use)."""
        if self._stats is None:
            self._stats = Stats(json.loads(self._report))
        return self._stats

    @property
    def summary(self) -> dict:
        """The algorithm's summary (reached vertices, iterations, components, diameter estimate)."""
        return self.stats["trials"][-1]["summary"]

    @property
    def seconds(self) -> float:
        """The kernel's time (as the CLI's Trial Time)."""
        return self.stats["trials"][-1]["seconds"]

    def reached(self) -> np.ndarray:
        """A boolean mask of the vertices with a value (all of them for wcc and pagerank)."""
        v = self.values
        if v.dtype.kind == "f":
            return np.isfinite(v)
        return v != UNREACHED

    def to_dict(self) -> dict:
        """``{label: value}`` for every reached vertex (networkx nodes for a graph built from
        networkx; WCC's values are then the component's representative node)."""
        labels = self.graph.labels
        mask = self.reached()
        idx = np.flatnonzero(mask)
        if self._vertex_values is not None and not isinstance(labels, np.ndarray):
            vals = [labels[i] for i in self._vertex_values[idx].tolist()]
        else:
            vals = self.values[idx].tolist()
        if isinstance(labels, np.ndarray):
            keys = labels[idx].tolist()
        else:
            keys = [labels[i] for i in idx.tolist()]
        return dict(zip(keys, vals))

    def to_pandas(self):
        """A pandas DataFrame (pandas is optional), one row per vertex, with the columns of the
        CLI's ``-o out.csv``: ``id`` (the label: original id, or networkx node), ``value``, and
        ``parent`` (BFS with parents: the parent's label, the source its own). Real values are
        float64 (``inf`` where unreached, as in ``values``); integer values are pandas' Int64,
        unreached ones missing (NA), as are unreached vertices' parents."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Result.to_pandas needs pandas: pip install pandas") from e
        labels = self.graph.labels
        values = self.values
        if values.dtype.kind == "f":
            column = values.astype(np.float64, copy=False)
        else:
            column = pd.array(values, dtype="Int64")
            column[values == UNREACHED] = pd.NA
        ids = labels if isinstance(labels, np.ndarray) else pd.array(labels, dtype=object)
        frame = {"id": ids, "value": column}
        p = self.parent_vertices
        if p is not None:
            if isinstance(labels, np.ndarray):
                parents = pd.array(labels[np.maximum(p, 0)], dtype="UInt64")
                parents[p < 0] = pd.NA
            else:
                parents = pd.array([labels[q] if q >= 0 else None for q in p.tolist()], dtype=object)
            frame["parent"] = parents
        return pd.DataFrame(frame)

    def __repr__(self) -> str:
        return f"<tiergraph.Result {self.algorithm}: {len(self.values)} values, {self.seconds:.4g} s, {self.summary}>"
