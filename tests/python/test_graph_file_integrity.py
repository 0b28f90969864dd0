"""The integrity of the graph files convert writes (a flipped byte in any section, a cut file, --no-
checksums) and `tiergraph reblock`."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import graphfile
from graphfile import read_graph
from convert_model import (LOOPS_DUPS, assert_fails, assert_same_arcs, fmt_w, label_edges)


# ================================================================================================
# 5. Graph file integrity
# ================================================================================================


def integrity_graph(tg, tmp, directed=True) -> Path:
    """A graph with every section: directed, weighted, an id map (label ids with gaps), a 3x3 grid."""
    rng = np.random.default_rng(11)
    pool = sorted(rng.choice(10**6, 300, replace=False))
    u, v, w = label_edges(rng, pool, 3000, "float")
    src = tmp / "integrity.txt"
    if not src.exists():
        src.write_text("".join(f"{a} {b} {fmt_w(c, 'float')}\n" for a, b, c in zip(u, v, w)))
    out = tmp / ("directed.tg" if directed else "undirected.tg")
    if not out.exists():
        tg.convert(src, out, "--blocks", "3", *([] if directed else ["-s"]))
    return out


@pytest.fixture(scope="module")
def integrity_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("integrity")


def flip(path: Path, offset: int, copy_to: Path) -> Path:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x5A
    copy_to.write_bytes(bytes(data))
    return copy_to


OUT_SECTIONS = ["ranges", "out-index", "out-blocks", "out-degrees"]
IN_SECTIONS = ["in-index", "in-blocks", "in-degrees"]
BLOCK_SECTIONS = {"out-blocks", "in-blocks"}  # hashed per block part: tests/python/test_graph_file_v2.py
RANGES_BUG = ("BUG: flipping a byte in the middle of section 'ranges' (a vertex range boundary) is reported as "
              "\"section 'out-index' is inconsistent at entry (1, 1)\": layout validation uses the ranges before "
              "their checksum is verified, so the message names the wrong section")
CORRUPTION_CASES = [
    pytest.param(directed, name, id=f"{'directed' if directed else 'undirected'}-{name}",
                 marks=[])
    for directed in (True, False)
    for name in OUT_SECTIONS + (IN_SECTIONS if directed else []) + ["id-map"]
    if name not in BLOCK_SECTIONS
]


def test_integrity_graph_has_every_section(tg, integrity_dir):
    for directed in (True, False):
        info = tg.info(integrity_graph(tg, integrity_dir, directed))
        expected = OUT_SECTIONS + (IN_SECTIONS if directed else []) + ["id-map"]
        assert sorted(s["name"] for s in info["sections"]) == sorted(expected)
        for s in info["sections"]:
            assert s["bytes"] > 0 and s["offset"] % 4096 == 0


@pytest.mark.parametrize("directed,section", CORRUPTION_CASES)
def test_corrupt_section(tg, tmp, integrity_dir, directed, section):
    """A flipped byte anywhere in a section's payload is caught and blamed on that section."""
    good = integrity_graph(tg, integrity_dir, directed)
    s = next(s for s in tg.info(good)["sections"] if s["name"] == section)
    for at in (s["offset"] + s["bytes"] // 2, s["offset"], s["offset"] + s["bytes"] - 1):
        bad = flip(good, at, tmp / f"bad-{at}.tg")
        res = tg.info(bad, check=False)
        msg = assert_fails(res, bad, None, contains=f"section '{section}'")
        assert re.search(r"checksum mismatch|inconsistent|does not cover|not increasing|counts", msg), msg


@pytest.mark.parametrize("offset,what", [
    (0, "magic"), (7, "magic"), (8, "version"), (16, "num_vertices"), (24, "num_arcs"), (64, "id_base"),
    (72, "flags"), (76, "blocks_per_side"), (80, "id_bytes"), (82, "weight_type"), (96, "max_weight"),
    (104, "section_count"), (112, "section table"), (120, "section offset"), (150, "section checksum"),
    (624, "header checksum"),
])
def test_corrupt_header(tg, tmp, integrity_dir, offset, what):
    good = integrity_graph(tg, integrity_dir)
    bad = flip(good, offset, tmp / "bad.tg")
    res = tg.info(bad, check=False)
    msg = assert_fails(res, bad, None)
    assert re.search(r"magic|version|header", msg), msg


def test_truncated_graph_file(tg, tmp, integrity_dir):
    good = integrity_graph(tg, integrity_dir)
    info = tg.info(good)
    last = max(info["sections"], key=lambda s: s["offset"])
    first = min(info["sections"], key=lambda s: s["offset"])
    lengths = [0, 1, 8, 100, 631, 4095, 4096, first["offset"] + first["bytes"] // 2,
               last["offset"], last["offset"] + last["bytes"] // 2, last["offset"] + last["bytes"] - 1]
    data = good.read_bytes()
    for n in lengths:
        bad = tmp / f"trunc-{n}.tg"
        bad.write_bytes(data[:n])
        res = tg.info(bad, check=False)
        msg = assert_fails(res, bad, None)  # exit code exactly 1: no crash, no signal
        assert re.search(r"truncated|shorter than the header|section '", msg), (n, msg)
        if n >= 4096:
            assert "truncated" in msg
    # Reblock reads the same way: a truncated input fails cleanly too.
    bad = tmp / "trunc-reblock.tg"
    bad.write_bytes(data[: last["offset"] + last["bytes"] // 2])
    res = tg.run("reblock", bad, "-o", tmp / "rb.tg", "--blocks", 2)
    assert_fails(res, bad, tmp / "rb.tg", contains="truncated")


def test_info_on_missing_file(tg, tmp):
    missing = tmp / "missing.tg"
    assert_fails(tg.info(missing, check=False), missing, None, contains="cannot open")
    assert_fails(tg.info(tmp, check=False), tmp, None, contains="not a regular file")


def test_info_on_non_graph_file(tg, tmp):
    src = tmp / "text.tg"
    src.write_bytes(b"1 2\n" * 2000)
    assert_fails(tg.info(src, check=False), src, None, contains="not a tiergraph graph file")


def test_corruption_is_ignored_only_with_no_checksums(tg, tmp, integrity_dir):
    """A flipped weight breaks no structure: only hashes see it, and --no-checksums skips them."""
    good = integrity_graph(tg, integrity_dir)
    info = tg.info(good)
    rows = graphfile.GraphFile(good).index("out")
    row = next(r for r in rows if r["edge_count"] > 0)
    parts = [int(x) for x in row["part_bytes"]]
    weights_at = int(row["offset"]) + (parts[0] + 7) // 8 * 8 + (parts[1] + 7) // 8 * 8
    bad = flip(good, weights_at + 3, tmp / "bad.tg")
    assert tg.info(bad, "--check", check=False).returncode == 1
    assert tg.info(bad)["edges"] == info["edges"]  # info without --check hashes no block
    assert tg.run("run", "bfs", bad, "-n", 1).returncode == 1  # opening hashes every part
    assert tg.run("run", "bfs", bad, "-n", 1, "--no-checksums").returncode == 0


# ================================================================================================
# 6. Reblock
# ================================================================================================


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_reblock(tg, tmp, integrity_dir, directed):
    good = integrity_graph(tg, integrity_dir, directed)
    g0 = read_graph(good)
    info0 = tg.info(good)
    for asked in (1, 2, 3, 7):
        out = tmp / f"p{asked}.tg"
        tg.run("reblock", good, "-o", out, "--blocks", asked, check=True)
        info = tg.info(out)
        p = min(asked, -(-info0["vertices"] // 64))  # 300 vertices make at most 5 ranges of 64
        assert info["blocks"]["per_side"] == p and info["blocks"]["count"] == p * p
        g = read_graph(out)
        assert g.num_vertices == g0.num_vertices and g.directed == g0.directed
        assert g.weight_type == g0.weight_type
        np.testing.assert_array_equal(g.original_ids, g0.original_ids)
        assert_same_arcs((g.src, g.dst, g.weight), (g0.src, g0.dst, g0.weight), f"P={p}")
        if g.in_arcs is not None:
            assert_same_arcs(g.in_arcs, (g0.src, g0.dst, g0.weight), f"P={p} in grid")
        # Ranges are whole 64-vertex words, none empty.
        sizes = np.diff(g.ranges.astype(np.int64))
        assert len(sizes) == p and sizes.min() > 0 and np.all(g.ranges[:-1] % 64 == 0)
        for key in ("vertices", "edges", "arcs", "input_edges", "self_loops_removed", "duplicates_removed",
                    "id_mode", "id_map", "id_base", "weight_type", "directed"):
            assert info[key] == info0[key], key
        # Each block is readable on its own (its local offsets start at 0): reading the grid block
        # by block, each from its own index entry, gives exactly the arcs.
        f = graphfile.GraphFile(out)
        bs, bd, bw = f.read_grid_by_blocks("out")
        ids = g.original_ids
        assert_same_arcs((ids[bs.astype(np.int64)], ids[bd.astype(np.int64)], bw), (g0.src, g0.dst, g0.weight),
                         f"P={p} block by block")
        if directed:
            bs, bd, bw = f.read_grid_by_blocks("in")
            assert_same_arcs((ids[bs.astype(np.int64)], ids[bd.astype(np.int64)], bw),
                             (g0.src, g0.dst, g0.weight), f"P={p} in blocks")
        # (read_block also checks that block (i, j) only holds arcs from range i to range j.)


def test_reblock_keeps_self_loops_and_duplicates(tg, tmp):
    src = tmp / "g.txt"
    src.write_text(LOOPS_DUPS)
    out = tmp / "g.tg"
    tg.convert(src, out, "--keep-self-loops", "--keep-duplicates")
    g0 = read_graph(out)
    rb = tmp / "rb.tg"
    tg.run("reblock", out, "-o", rb, "--blocks", 2, check=True)
    g = read_graph(rb)
    assert_same_arcs((g.src, g.dst, g.weight), (g0.src, g0.dst, g0.weight))
    assert len(g.src) == 8


def test_reblock_refuses_existing_output(tg, tmp, integrity_dir):
    good = integrity_graph(tg, integrity_dir)
    out = tmp / "rb.tg"
    out.write_bytes(b"keep me")
    res = tg.run("reblock", good, "-o", out, "--blocks", 2)
    assert_fails(res, out, None, contains="--overwrite")
    assert out.read_bytes() == b"keep me"


# ================================================================================================
