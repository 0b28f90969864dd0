"""Round trips of `tiergraph convert` over every input format, plain and compressed, from files and
standard input."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from convert_model import (
    CASES, assert_fails, build_case, check_graph, compress, convert_and_check, model,
    no_temp_files, write_case,
)


# ================================================================================================
# 1. Round trip of every format, plain and compressed
# ================================================================================================


# Compressed copies of one input per text format family (every case is run uncompressed).
COMPRESSED_CASES = ["edgelist-space-label64", "csv-columns-by-name", "tsv-header", "cedge", "mtx-real-symmetric",
                    "dimacs", "pace", "metis-weighted"]
ROUNDTRIPS = [(name, "none") for name in CASES] + \
             [(name, c) for name in COMPRESSED_CASES for c in ("gz", "xz", "zst")]


@pytest.mark.parametrize("name,compression", ROUNDTRIPS, ids=[f"{n}-{c}" for n, c in ROUNDTRIPS])
def test_roundtrip(tg, tmp, name, compression):
    case = build_case(name)
    src = write_case(case, tmp, compression)
    g, _ = convert_and_check(tg, case, src, tmp / "out.tg")
    no_temp_files(tmp)
    if case.id_mode == "index":
        assert g.header.id_base == 1 and g.num_vertices == case.n  # isolated vertices are kept


@pytest.mark.parametrize("compression", ["gz", "xz", "zst"])
def test_roundtrip_concatenated_streams(tg, tmp, compression):
    """`cat a.gz b.gz` (pigz, bgzip, multi-frame zstd) is one stream."""
    case = build_case("edgelist-crlf")
    half = case.data.index(b"\r\n", len(case.data) // 2) + 2
    src = tmp / f"g.txt.{compression}"
    src.write_bytes(compress(case.data[:half], compression) + compress(case.data[half:], compression))
    convert_and_check(tg, case, src, tmp / "out.tg")


def test_compressed_file_with_misleading_name(tg, tmp):
    """Compression is recognised by magic bytes: a gzip file named .txt still reads."""
    case = build_case("edgelist-space-label64")
    src = tmp / "g.txt"
    src.write_bytes(gzip.compress(case.data))
    convert_and_check(tg, case, src, tmp / "out.tg")


@pytest.mark.parametrize("name", ["edgelist-tab-float", "csv-columns-by-name", "mtx-integer-general", "dimacs"])
def test_roundtrip_blocks(tg, tmp, name):
    """--blocks P gives the same graph on a P x P grid."""
    case = build_case(name)
    src = write_case(case, tmp)
    g, info = convert_and_check(tg, case, src, tmp / "out.tg", extra=("--blocks", "4"))
    # At most ceil(n / 64) ranges of 64 vertices fit: smaller graphs get a smaller grid, and say so.
    expected = min(4, max(1, -(-info["vertices"] // 64)))
    assert info["blocks"]["per_side"] == expected and g.header.blocks_per_side == expected
    assert info["blocks"]["requested_per_side"] == 4 and g.header.requested_blocks == 4


def test_stdin_needs_explicit_format(tg, tmp):
    """Standard input cannot be read twice, so it is not sniffed: without --format it is refused
    (before anything is read) rather than losing the bytes a sniff would consume."""
    case = build_case("edgelist-crlf")
    out = tmp / "out.tg"
    res = tg.run("convert", "-", "-o", out, stdin=case.data)
    assert res.returncode == 1, repr(res)
    assert "--format" in res.stderr and "standard input" in res.stderr
    assert not out.exists()


def test_stdin_large_input_explicit_format(tg, tmp):
    k = np.arange(400_000)
    data = "".join(f"{a} {b}\n" for a, b in zip(k, k + 1)).encode()  # ~5 MiB: spans read chunks
    out = tmp / "out.tg"
    res = tg.run("convert", "-", "-o", out, "--format", "edgelist", stdin=data)
    assert res.returncode == 0, repr(res)
    info = tg.info(out)
    assert info["input_edges"] == 400_000, f"read {info['input_edges']} of 400000 edges"
    assert info["vertices"] == 400_001


def test_stdin_input_explicit_format(tg, tmp):
    case = build_case("edgelist-crlf")
    out = tmp / "out.tg"
    res = tg.run("convert", "-", "-o", out, "--format", "edgelist", stdin=case.data)
    assert res.returncode == 0, repr(res)
    src_a, dst_a, _, stats = model(case.u, case.v, None, undirected=False)
    check_graph(tg, out, n=case.n, ids=case.ids, src=src_a, dst=dst_a, w=None, stats=stats, undirected=False)


def test_error_line_after_first_chunk(tg, tmp):
    """Line numbers stay right past the parser's 32 MiB chunk boundary."""
    block = "".join(f"{(k * 7919) % 1_000_003} {(k * 104729 + 1) % 1_000_003}\n" for k in range(1000)).encode()
    repeats = 3000
    rows = 1000 * repeats
    lines = block * repeats
    assert len(lines) > 36 << 20  # more than one 32 MiB chunk
    bad_line = rows + 1
    src = tmp / "big.txt"
    src.write_bytes(lines + b"12 x3\n" + b"1 2\n")
    out = tmp / "out.tg"
    res = tg.convert(src, out, check=False)
    assert_fails(res, src, out, line=bad_line, col=4, contains="expected a vertex id")
