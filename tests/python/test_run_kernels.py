"""`tiergraph run` dispatches through one kernel table: aliases reach the same kernel and give the
same answer, the report names the kernel by its canonical name, and unknown names are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest


@pytest.fixture(scope="module")
def graph(tg, tmp_path_factory):
    out = tmp_path_factory.mktemp("kernels") / "kron10.tg"
    tg.run("generate", "-g", "10", "-k", "8", "-s", "-o", out, check=True)
    return out


@pytest.mark.parametrize("alias, name", [("pagerank", "pr"), ("cc", "wcc"), ("components", "wcc")])
def test_alias_runs_the_same_kernel(tg, graph, tmp_path, alias, name):
    by_alias, by_name = tmp_path / "alias.npy", tmp_path / "name.npy"
    report = tg.run("run", alias, graph, "--json", "--verify", "-o", by_alias, check=True).json()
    tg.run("run", name, graph, "-o", by_name, check=True)
    assert report["algorithm"] == name
    assert report["verification"] == "PASS"
    a, b = np.load(by_alias), np.load(by_name)
    assert np.array_equal(a["id"], b["id"])
    assert np.allclose(a["value"], b["value"], rtol=0, atol=1e-12)


def test_unknown_algorithm_is_refused(tg, graph):
    res = tg.run("run", "betweenness", graph)
    assert res.returncode != 0
    assert "betweenness" in res.stderr and "pagerank" in res.stderr  # names what is offered


def test_report_counts_vertex_state(tg, graph):
    report = tg.run("run", "bfs", graph, "--json", check=True).json()
    n = report["vertices"]
    # BFS holds a parent (4-byte ids on this graph) and a depth (8 bytes) per vertex.
    assert report["trials"][0]["vertex_state_bytes"] == n * (4 + 8)
