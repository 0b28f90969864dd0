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
            _, ax = plt.subplots(figsize=(7, 3.5))
        x = np.arange(1, len(passes) + 1)
        ax.bar(x, [1e3 * p["seconds"] for p in passes], color="tab:blue", label="pass time (ms)")
        ax.set_xlabel("pass")
        ax.set_ylabel("milliseconds")
        twin = ax.twinx()
        twin.plot(x, [p["frontier"] for p in passes], color="tab:orange", marker=".", label="frontier (vertices)")
        twin.set_ylabel("frontier vertices")
        if passes and max(p["frontier"] for p in passes) > 100 * max(1, min(p["frontier"] for p in passes)):
            twin.set_yscale("log")
        ax.set_title(f"{self['algorithm']} on {self['vertices']} vertices: {len(passes)} passes, "
                     f"{self['trials'][-1]['seconds']:.3g} s")
        return ax


class Result:
    """One run's answer: ``values[v]`` for every vertex ``v`` (0..n-1).

    - bfs: hop distance from the source (``UNREACHED`` if none); ``parents`` with ``parents=True``
      (-1 for the source and unreached vertices);
    - sssp: distance (int64 for integer weights, float64 otherwise; ``UNREACHED`` / ``inf``);
    - wcc: the component's label, the least label (original id) in it;
    - pagerank: the rank (they sum to 1);
    - radii: the eccentricity estimate from the sampled sources (``UNREACHED`` if none reached it).
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
        self.parents: Optional[np.ndarray] = raw.get("parents")
        self.source: Optional[int] = raw.get("source")  # the source vertex (bfs, sssp)
        self._report = raw["report"]
        self._stats: Optional[Stats] = None

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
        """A pandas DataFrame (pandas is optional): columns ``label`` and ``value`` (and ``parent``
        for BFS with parents), one row per vertex, unreached values as missing (NA)."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Result.to_pandas needs pandas: pip install pandas") from e
        labels = self.graph.labels
        values = self.values
        if values.dtype.kind == "f":
            column = pd.array(values, dtype="Float64")
            column[~np.isfinite(values)] = pd.NA
        else:
            column = pd.array(values, dtype="Int64")
            column[values == UNREACHED] = pd.NA
        frame = {"label": labels if isinstance(labels, np.ndarray) else pd.array(labels, dtype=object),
                 "value": column}
        if self.parents is not None:
            parents = pd.array(self.parents, dtype="Int64")
            parents[self.parents < 0] = pd.NA
            frame["parent"] = parents
        return pd.DataFrame(frame)

    def __repr__(self) -> str:
        return f"<tiergraph.Result {self.algorithm}: {len(self.values)} values, {self.seconds:.4g} s, {self.summary}>"
