"""Fixtures for the Python package's tests: the installed tiergraph package, the shared datasets
read independently (in Python, into networkx graphs) as oracles."""

from __future__ import annotations

import lzma
import os
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def datasets_dir() -> Path | None:
    env = os.environ.get("TG_DATASETS_DIR")
    for d in ([Path(env)] if env else []) + [REPO.parent / "shared" / "datasets", Path("/work/shared/datasets")]:
        if d.is_dir():
            return d
    return None


@pytest.fixture(scope="session")
def datasets() -> Path:
    d = datasets_dir()
    if d is None:
        pytest.skip("the shared datasets are not here (TG_DATASETS_DIR)")
    return d


def read_snap(path: Path, directed: bool) -> nx.Graph:
    """A SNAP edge list ('#' comments, 'u v' lines), read without tiergraph."""
    G = nx.DiGraph() if directed else nx.Graph()
    with lzma.open(path, "rt") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            u, v = line.split()[:2]
            if u != v:
                G.add_edge(int(u), int(v))
    return G


def read_dimacs(path: Path) -> nx.DiGraph:
    """A 9th-DIMACS .gr file ('p sp N M', 'a u v w' arcs, 1-based), keeping the least weight of
    parallel arcs (as shortest paths see them)."""
    G = nx.DiGraph()
    with lzma.open(path, "rt") as f:
        for line in f:
            if line.startswith("p"):
                G.add_nodes_from(range(1, int(line.split()[2]) + 1))
            elif line.startswith("a"):
                _, u, v, w = line.split()
                u, v, w = int(u), int(v), int(w)
                if u != v and (not G.has_edge(u, v) or G[u][v]["weight"] > w):
                    G.add_edge(u, v, weight=w)
    return G


def edges_of(G: nx.Graph, weight: str | None = None):
    """Edge arrays of a graph whose nodes are integers, in its own ids."""
    e = np.array([(u, v) for u, v in G.edges()], dtype=np.int64).reshape(-1, 2)
    w = np.array([d.get(weight, 1) for _, _, d in G.edges(data=True)], dtype=np.float64) if weight else None
    return e[:, 0], e[:, 1], w


@pytest.fixture
def rng():
    return np.random.default_rng(20261124)


# networkx warns on every reuse of a cached backend graph; the tests reuse them on purpose.
nx.config.warnings_to_ignore.add("cache")
