"""`tiergraph generate`: Kronecker and uniform graphs, weights, and the file they make."""

from __future__ import annotations

import numpy as np
import pytest

from graphfile import read_graph
from convert_model import (assert_fails, assert_same_arcs, model)


# 7. Generate
# ================================================================================================


@pytest.mark.parametrize("flag", ["-g", "-u"])
def test_generate(tg, tmp, flag):
    out = tmp / "g.tg"
    tg.run("generate", flag, 10, "--seed", 5, "-o", out, check=True)
    g = read_graph(out)
    assert g.num_vertices == 1024
    info = tg.info(out)
    assert info["vertices"] == 1024 and info["input_edges"] == 16384
    el = tmp / "g.el"
    tg.run("generate", flag, 10, "--seed", 5, "-o", el, check=True)
    lines = el.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) - 1 == 16384
    a = np.array(b" ".join(lines).split(), dtype=np.int64).reshape(-1, 2)
    assert a.min() >= 0 and a.max() < 1024
    # The edge list and the graph file hold the same graph.
    s, d, _, stats = model(a[:, 0], a[:, 1], undirected=False)
    assert info["edges"] == stats["edges"] and info["self_loops_removed"] == stats["self_loops_removed"]
    assert_same_arcs((g.src, g.dst, None), (s, d, None))
    # Same seed: same bytes; any thread count: same bytes; another seed: different.
    el2 = tmp / "g2.el"
    tg.run("generate", flag, 10, "--seed", 5, "-o", el2, "-t", 1, check=True)
    el3 = tmp / "g3.el"
    tg.run("generate", flag, 10, "--seed", 5, "-o", el3, "-t", 2, check=True)
    assert el.read_bytes() == el2.read_bytes() == el3.read_bytes()
    out1 = tmp / "g1.tg"
    tg.run("generate", flag, 10, "--seed", 5, "-o", out1, "-t", 1, check=True)
    assert out1.read_bytes() == out.read_bytes()
    el4 = tmp / "g4.el"
    tg.run("generate", flag, 10, "--seed", 6, "-o", el4, check=True)
    assert el4.read_bytes() != el.read_bytes()


def test_generate_weighted_undirected(tg, tmp):
    out = tmp / "g.tg"
    tg.run("generate", "-g", 10, "--weights", "int", "-s", "-o", out, check=True)
    g = read_graph(out)
    assert g.num_vertices == 1024 and not g.directed and g.weight_type == "int32"
    assert g.weight.min() >= 1 and g.weight.max() <= 255
    wel = tmp / "g.wel"
    tg.run("generate", "-g", 10, "--weights", "real", "-o", wel, check=True)
    rows = [line.split() for line in wel.read_text().splitlines()]
    assert len(rows) == 16384 and all(len(r) == 3 for r in rows)
    ws = np.array([float(r[2]) for r in rows])
    assert ws.min() > 0 and ws.max() <= 1


@pytest.mark.parametrize("ext,id_type", [("bin32", "<u4"), ("bin64", "<u8")])
@pytest.mark.parametrize("weights", [None, "int"])
def test_generate_binary_edge_list(tg, tmp, ext, id_type, weights):
    """`-o x.bin32|bin64` writes the text list's edges as raw little-endian records (an int32
    weight last when weighted), which convert reads back into the same graph file."""
    extra = ["--weights", weights] if weights else []
    text = tmp / ("g.wel" if weights else "g.el")
    tg.run("generate", "-g", 11, "--seed", 3, *extra, "-o", text, check=True)
    binary = tmp / f"g.{ext}"
    tg.run("generate", "-g", 11, "--seed", 3, *extra, "-o", binary, "-t", 1, check=True)
    fields = [("u", id_type), ("v", id_type)] + ([("w", "<i4")] if weights else [])
    records = np.fromfile(binary, dtype=np.dtype(fields))
    rows = np.array(text.read_text().split(), dtype=np.float64).reshape(len(records), -1)
    assert len(records) == 16 << 11
    assert (records["u"] == rows[:, 0]).all() and (records["v"] == rows[:, 1]).all()
    if weights:
        assert (records["w"] == rows[:, 2]).all()
    from_text, from_binary = tmp / "t.tg", tmp / "b.tg"
    tg.run("convert", text, "-s", "-o", from_text, check=True)
    tg.run("convert", binary, "-s", *(["--weighted"] if weights else []), "-o", from_binary, check=True)
    assert from_text.read_bytes() == from_binary.read_bytes()


def test_generate_binary_refuses_real_weights(tg, tmp):
    out = tmp / "g.bin32"
    assert_fails(tg.run("generate", "-g", 8, "--weights", "real", "-o", out), out, out, contains="4-byte integer")


def test_index_mode_vertex_count_bounds_ids(tg, tmp):
    """--vertices gives index mode a count to check ids against, and keeps trailing isolated vertices."""
    src = tmp / "g.txt"
    src.write_text("0 1\n1 2\n")
    out = tmp / "g.tg"
    res = tg.run("convert", src, "-o", out, "--ids", "index", "--vertices", "10")
    assert res.returncode == 0, repr(res)
    info = tg.info(out)
    assert info["vertices"] == 10 and info["out_degree"]["zero"] == 8
    bad = tmp / "bad.tg"
    res = tg.run("convert", src, "-o", bad, "--ids", "index", "--vertices", "2")
    assert_fails(res, src, bad, line=2, col=3, contains="--vertices declares ids 0..1")
    res = tg.run("convert", src, "-o", bad, "--vertices", "5")
    assert res.returncode == 1 and "--ids index" in res.stderr
