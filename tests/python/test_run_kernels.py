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
    res = tg.run("run", "louvain", graph)
    assert res.returncode != 0
    assert "louvain" in res.stderr and "pagerank" in res.stderr  # names what is offered


def test_report_counts_vertex_state(tg, graph):
    report = tg.run("run", "bfs", graph, "--json", check=True).json()
    n = report["vertices"]
    # Without parents BFS holds only a depth (8 bytes) per vertex; with them a parent (4-byte
    # ids on this graph) beside it.
    assert report["trials"][0]["vertex_state_bytes"] == n * 8
    report = tg.run("run", "bfs", graph, "--parents", "--json", check=True).json()
    assert report["trials"][0]["vertex_state_bytes"] == n * (4 + 8)


@pytest.mark.parametrize("args, message", [
    (("bfs", "-t", "0"), "--threads"),
    (("pr", "--tolerance", "0"), "--tolerance: must be a finite number above 0, got '0'"),
    (("sssp", "--unit-weights", "-d", "-1"), "--delta: must be a finite number above 0, got '-1'"),
    (("sssp", "--unit-weights", "-d", "0"), "--delta: must be a finite number above 0, got '0'"),
    (("sssp", "--unit-weights", "-d", "nan"), "got 'nan'"),
    (("sssp", "--unit-weights", "-d", "inf"), "got 'inf'"),
    (("bfs", "-r", "-5"), "--source: must be a vertex id"),
])
def test_impossible_values_are_refused(tg, graph, args, message):
    res = tg.run("run", args[0], graph, *args[1:])
    assert res.returncode == 1
    assert message in res.stderr


@pytest.mark.parametrize("weight, bits", [(1_000_000, 32), (2_000_000_000, 64)])
def test_sssp_distances_are_exact_on_either_side_of_32_bits(tg, tmp_path, weight, bits):
    # Integer distances are kept in 32 bits when the largest weight times the vertex count stays
    # below 2^32 - 1, else in 64: a path of three heavy edges reaches 6e9 and must not wrap.
    edges = tmp_path / "path.txt"
    edges.write_text(f"0 1 {weight}\n1 2 {weight}\n2 3 {weight}\n5 4 7\n")
    graph, out = tmp_path / "path.tg", tmp_path / "dist.npy"
    tg.run("convert", edges, "-o", graph, check=True)
    report = tg.run("run", "sssp", graph, "-r", "0", "--json", "--verify", "-o", out, check=True).json()
    assert report["verification"] == "PASS"
    assert report["trials"][0]["summary"]["distance_bits"] == bits
    values = dict(zip(np.load(out)["id"].tolist(), np.load(out)["value"].tolist()))
    assert [values[v] for v in range(4)] == [0, weight, 2 * weight, 3 * weight]
    unreached = np.iinfo(np.int64).max  # what .npy holds for an unreached vertex, not a wrapped number
    assert values[4] == unreached and values[5] == unreached


@pytest.mark.parametrize("name, kind", [("r.tsv", "tsv"), ("r.TXT", "tsv"), ("r.csv", "csv"), ("r.NPY", "npy")])
def test_output_format_follows_the_extension(tg, graph, tmp_path, name, kind):
    out = tmp_path / name
    tg.run("run", "bfs", graph, "-r", "1", "-o", out, check=True)
    reference = tmp_path / "reference.npy"
    tg.run("run", "bfs", graph, "-r", "1", "-o", reference, check=True)
    expected = np.load(reference)
    if kind == "npy":
        got = np.load(out)
        assert np.array_equal(got, expected)
        return
    lines = out.read_text().splitlines()
    if kind == "csv":
        assert lines.pop(0) == "id,value"
    separator = "," if kind == "csv" else "\t"
    unreached = np.iinfo(np.int64).max
    for line, row in zip(lines, expected, strict=True):
        vertex, value = line.split(separator)
        assert int(vertex) == row["id"]
        assert value == ("infinity" if row["value"] == unreached else str(row["value"]))


def test_an_unknown_extension_or_an_existing_output_is_refused(tg, graph, tmp_path):
    res = tg.run("run", "bfs", graph, "-o", tmp_path / "r.xlsx")
    assert res.returncode == 1 and ".tsv or .txt (tab-separated), .csv or .npy, not .xlsx" in res.stderr
    assert not (tmp_path / "r.xlsx").exists()
    res = tg.run("run", "bfs", graph, "-o", tmp_path / "r.Parquet")  # says where Parquet comes from
    assert res.returncode == 1 and "to_pandas().to_parquet(path)" in res.stderr
    assert not (tmp_path / "r.Parquet").exists()
    mine = tmp_path / "mine.tsv"
    mine.write_text("precious\n")
    res = tg.run("run", "bfs", graph, "-o", mine)
    assert res.returncode == 1 and "--overwrite" in res.stderr
    assert mine.read_text() == "precious\n"  # nothing a user gave is overwritten
    tg.run("run", "bfs", graph, "-o", mine, "--overwrite", check=True)
    assert mine.read_text() != "precious\n"


def test_a_grid_whose_index_exceeds_memory_is_refused_with_what_fits(tg, tmp_path):
    import os
    graph = tmp_path / "kron20.tg"
    tg.run("generate", "-g", "20", "-k", "1", "-o", graph, check=True)  # directed: two grids
    side = 16384  # 2^20 vertices make at most 2^14 ranges of 64
    index = side * side * 2 * 80
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGESIZE")
    if index <= memory / 2:
        pytest.skip(f"this machine's memory ({memory >> 30} GiB) holds a {side}x{side} index")
    out = tmp_path / "fine.tg"
    res = tg.run("reblock", graph, "--blocks", "100000", "-o", out)
    assert res.returncode == 1
    assert "index rows (80 bytes each) alone take 40.0 GiB" in res.stderr and "blocks per side fit" in res.stderr
    assert not out.exists()


@pytest.mark.parametrize("kind", ["tsv", "csv", "npy"])
def test_output_with_parents_writes_the_bfs_tree_as_original_ids(tg, tmp_path, kind):
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(34)
    ids = rng.choice(10**9, size=300, replace=False)  # labels, so a parent index would not pass as an id
    arcs = {(int(ids[u]), int(ids[v])) for u, v in rng.integers(0, 300, size=(700, 2)) if u != v}
    edges = tmp_path / "labels.el"
    edges.write_text("".join(f"{u} {v}\n" for u, v in sorted(arcs)))
    graph = tmp_path / "labels.tg"
    tg.convert(edges, graph)
    source = min(arcs)[0]
    out = tmp_path / f"r.{kind}"
    tg.run("run", "bfs", graph, "-r", source, "--parents", "-o", out, check=True)
    parents = {}  # id -> parent id, None where unreached
    if kind == "npy":
        rows = np.load(out)
        assert rows.dtype.names == ("id", "value", "parent") and rows.dtype["parent"] == np.int64
        parents = {int(r["id"]): (int(r["parent"]) if r["parent"] >= 0 else None) for r in rows}
    else:
        lines = out.read_text().splitlines()
        if kind == "csv":
            assert lines.pop(0) == "id,value,parent"
        for line in lines:
            vertex, _, parent = line.split("," if kind == "csv" else "\t")
            parents[int(vertex)] = int(parent) if parent else None
    G = nx.DiGraph(list(arcs))
    depth = nx.single_source_shortest_path_length(G, source)
    assert set(parents) == set(G) and parents[source] == source  # the source is its own parent
    for v, p in parents.items():  # a BFS tree: each parent one level up, along an arc
        assert (p is None) == (v not in depth)
        if p is not None and v != source:
            assert G.has_edge(p, v) and depth[p] == depth[v] - 1
