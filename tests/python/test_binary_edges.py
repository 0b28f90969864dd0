"""Raw binary edge lists (`--format bin32|bin64`, `--weighted`): the same graph file as the text
edge list of the same edges, in memory and in bounded memory, compressed or not; a truncated file,
an id beyond --vertices and --weighted on text are refused, naming the place, with no output."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest


@pytest.fixture(scope="module")
def edges(tg, tmp_path_factory):
    folder = tmp_path_factory.mktemp("binary")
    text = folder / "k14.wel"
    tg.run("generate", "-g", "14", "--weights", "int", "-o", text, check=True)
    table = np.loadtxt(text, dtype=np.int64)
    table[::7, 2] *= -1  # negative weights too
    np.savetxt(text, table, fmt="%d")
    return folder, table


def write_records(path, table, id_type, weighted):
    fields = [("u", id_type), ("v", id_type)] + ([("w", "<i4")] if weighted else [])
    records = np.zeros(len(table), dtype=fields)
    records["u"], records["v"] = table[:, 0], table[:, 1]
    if weighted:
        records["w"] = table[:, 2]
    records.tofile(path)


@pytest.mark.parametrize("fmt,weighted,options", [
    ("bin32", True, []),
    ("bin64", False, ["--ids", "index"]),
    ("bin32", False, ["-s", "--memory-budget", "16M"]),
    ("bin64", True, ["--memory-budget", "16M", "--keep-duplicates"]),
])
def test_binary_edges_give_the_text_lists_file(tg, edges, tmp, fmt, weighted, options):
    folder, table = edges
    text = tmp / "edges.txt"
    np.savetxt(text, table if weighted else table[:, :2], fmt="%d")
    binary = tmp / f"edges.{fmt}"
    write_records(binary, table, "<u4" if fmt == "bin32" else "<u8", weighted)
    assert binary.stat().st_size == len(table) * ((8 if fmt == "bin32" else 16) + (4 if weighted else 0))
    text_options = [o for o in options if o != "--memory-budget" and o != "16M"]
    tg.convert(text, tmp / "text.tg", *text_options)
    tg.convert(binary, tmp / "binary.tg", "--format", fmt, *(["--weighted"] if weighted else []), *options)
    assert (tmp / "text.tg").read_bytes() == (tmp / "binary.tg").read_bytes()


def test_a_compressed_binary_list(tg, edges, tmp):
    if shutil.which("zstd") is None:
        pytest.skip("no zstd")
    folder, table = edges
    binary = tmp / "edges.bin64"
    write_records(binary, table, "<u8", False)
    subprocess.run(["zstd", "-q", str(binary)], check=True)
    tg.convert(binary, tmp / "plain.tg", "--format", "bin64")
    tg.convert(str(binary) + ".zst", tmp / "zst.tg", "--format", "bin64")
    assert (tmp / "plain.tg").read_bytes() == (tmp / "zst.tg").read_bytes()


def test_a_truncated_record_is_named_by_its_offset(tg, edges, tmp):
    folder, table = edges
    binary = tmp / "edges.bin64"
    write_records(binary, table, "<u8", False)
    data = binary.read_bytes()
    binary.write_bytes(data[:-3])
    res = tg.convert(binary, tmp / "out.tg", "--format", "bin64", check=False)
    assert res.returncode != 0
    assert f"ends 13 bytes into a record at offset {len(data) - 16}" in res.stderr, res.stderr
    assert not (tmp / "out.tg").exists()


def test_an_id_beyond_the_vertices_is_named_by_its_record(tg, tmp):
    binary = tmp / "edges.bin32"
    np.array([0, 1, 2, 3, 4, 99, 5, 6], dtype="<u4").tofile(binary)
    res = tg.convert(binary, tmp / "out.tg", "--format", "bin32", "--ids", "index", "--vertices", "10", check=False)
    assert res.returncode != 0
    assert "record 2 (offset 16): vertex id 99 is not below --vertices 10" in res.stderr, res.stderr
    assert not (tmp / "out.tg").exists()


@pytest.mark.parametrize("content,options,message", [
    (b"", ["--format", "bin32"], "no edges found"),
    (b"0 1\n", ["--weighted"], "--weighted describes the records of --format bin32 or bin64"),
    (b"\x00" * 8, ["--format", "bin32", "--vertices", "4"], "--vertices applies to index mode"),
])
def test_impossible_binary_inputs_are_refused(tg, tmp, content, options, message):
    source = tmp / "input"
    source.write_bytes(content)
    res = tg.convert(source, tmp / "out.tg", *options, check=False)
    assert res.returncode != 0 and message in res.stderr, res.stderr
    assert not (tmp / "out.tg").exists()


def write_gapbs(path, n, arcs, directed, weights=None):
    """A GAPBS serialized graph as its converter writes one: the 'directed' byte, the int64 arc
    and vertex counts, the out-CSR (int64 offsets, int32 ids or {int32 id, int32 weight}), and
    for a directed graph the in-CSR."""
    arcs = np.asarray(arcs, dtype=np.int64)
    def csr(major, minor, w):
        order = np.lexsort((minor, major))
        offsets = np.zeros(n + 1, dtype="<i8")
        np.add.at(offsets, major + 1, 1)
        offsets = np.cumsum(offsets).astype("<i8")
        if w is None:
            return offsets.tobytes() + minor[order].astype("<i4").tobytes()
        pairs = np.zeros(len(order), dtype=[("v", "<i4"), ("w", "<i4")])
        pairs["v"], pairs["w"] = minor[order], w[order]
        return offsets.tobytes() + pairs.tobytes()
    w = None if weights is None else np.asarray(weights, dtype=np.int64)
    body = csr(arcs[:, 0], arcs[:, 1], w)
    if directed:
        body += csr(arcs[:, 1], arcs[:, 0], w)
    path.write_bytes(bytes([1 if directed else 0]) + np.int64(len(arcs)).tobytes() + np.int64(n).tobytes() + body)


@pytest.mark.parametrize("directed,weighted", [(True, False), (False, False), (True, True)])
def test_gapbs_serialized_graphs_give_the_text_lists_file(tg, edges, tmp, directed, weighted):
    folder, table = edges
    n = int(table[:, :2].max()) + 1
    # The arcs GAPBS would store: no self-loops or duplicates, an undirected edge both ways.
    pairs = {(int(u), int(v)): int(w) for u, v, w in table if u != v}
    if not directed:
        pairs = {**pairs, **{(v, u): w for (u, v), w in pairs.items()}}
        pairs = {(u, v): w for (u, v), w in pairs.items() if (v, u) in pairs}
        pairs = {(u, v): pairs[(min(u, v), max(u, v))] for (u, v) in pairs}
    arcs = np.array(sorted(pairs), dtype=np.int64)
    ws = np.array([pairs[tuple(a)] for a in arcs], dtype=np.int64) if weighted else None
    graph = tmp / ("g.wsg" if weighted else "g.sg")
    write_gapbs(graph, n, arcs, directed, ws)
    text = tmp / "arcs.txt"
    np.savetxt(text, np.column_stack([arcs, ws]) if weighted else arcs, fmt="%d")
    tg.convert(text, tmp / "text.tg", "--ids", "index", "--vertices", n, *([] if directed else ["-s"]))
    tg.convert(graph, tmp / "gapbs.tg")
    assert (tmp / "text.tg").read_bytes() == (tmp / "gapbs.tg").read_bytes()
    tg.convert(graph, tmp / "bounded.tg", "--memory-budget", "16M")
    assert (tmp / "bounded.tg").read_bytes() == (tmp / "gapbs.tg").read_bytes()


@pytest.mark.parametrize("damage,message", [
    ("truncate", "120 bytes, but a directed GAPBS .sg of 4 vertices and 3 arcs takes 121"),
    ("id", "arc 1 (at byte 61) names vertex 9, outside [0, 4)"),
    ("offset", "offset of vertex 2 (at byte 33) is 7: offsets must grow and stay within the 3 arcs"),
    ("flag", "byte 0 must be 0 or 1"),
])
def test_a_damaged_gapbs_graph_is_named_by_its_byte(tg, tmp, damage, message):
    graph = tmp / "g.sg"
    write_gapbs(graph, 4, [[0, 1], [0, 2], [2, 3]], True)
    data = bytearray(graph.read_bytes())
    if damage == "truncate":
        data = data[:-1]
    elif damage == "id":
        data[61:65] = np.int32(9).tobytes()  # the second out-neighbour: 17 + 5 * 8 + 4
    elif damage == "offset":
        data[33:41] = np.int64(7).tobytes()
    else:
        data[0] = 7
    graph.write_bytes(bytes(data))
    res = tg.convert(graph, tmp / "out.tg", check=False)
    assert res.returncode != 0 and message in res.stderr, res.stderr
    assert not (tmp / "out.tg").exists()
