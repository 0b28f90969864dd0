"""Bad input to `tiergraph convert`: each error names the file, line and column, exits non-zero and
leaves no output; nothing a user gave is overwritten."""

from __future__ import annotations

import re

import pytest

from graphfile import read_graph
from convert_model import (assert_fails, build_case, compress, no_temp_files, write_case)


# ================================================================================================
# 4. Bad input
# ================================================================================================




# name -> (file name, content, options, line, column, message part); line None: whole-file error
BAD_INPUTS = {
    "non-numeric-token": ("g.txt", "1 2\n3 x4\n", (), 2, 3, "expected a vertex id"),
    "missing-column": ("g.txt", "1 2\n2 3\n3\n", (), 3, 1, "expected 2 fields"),
    "extra-column": ("g.txt", "1 2 5\n2 3 4 9\n", (), 2, 1, "found 4"),
    "negative-id": ("g.txt", "1 2\n-3 4\n", (), 2, 1, "negative"),
    "id-too-big": ("g.txt", "1 2\n2 18446744073709551616\n", (), 2, 3, "64 bits"),
    "weight-not-a-number": ("g.txt", "1 2 0.5\n2 3 abc\n", (), 2, 5, "expected a weight"),
    "weight-nan": ("g.txt", "1 2 0.5\n2 3 nan\n", (), 2, 5, "not a finite number"),
    "weight-inf": ("g.txt", "1 2 0.5\n2 3 inf\n", (), 2, 5, "not a finite number"),
    "weight-minus-inf": ("g.txt", "1 2 0.5\n2 3 -inf\n", (), 2, 5, "not a finite number"),
    "weight-overflow": ("g.txt", "1 2 0.5\n2 3 1e999\n", (), 2, 5, "not a finite number"),
    "weight-underflow": ("g.txt", "1 2 0.5\n2 3 1e-400\n", (), 2, 5, "too close to 0"),
    "weight-plus-minus": ("g.txt", "1 2 0.5\n2 3 +-3\n", (), 2, 5, "expected a weight"),
    "index-no-vertices": ("g.txt", "0 1\n", ("--ids", "index", "--vertices", "0"), 1, 1, "declares no vertices"),
    "csv-missing-column": ("g.csv", "a,b,w\n1,2,3\n4,5\n", (), 3, 1, "expected 3 fields"),
    "csv-empty-id": ("g.csv", "1,2\n,5\n", (), 2, 1, "empty field"),
    "csv-unknown-column-name": ("g.csv", "src,dst\n1,2\n", ("--columns", "src,target"), 2, None, "target"),
    "csv-column-out-of-range": ("g.csv", "1,2,3\n", ("--columns", "0,5"), 1, None, "out of range"),
    "too-many-fields-without-columns": ("g.txt", "1 2 3 4\n", (), 1, None, "--columns"),
    "mtx-bad-banner": ("g.mtx", "%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 2 1 0\n", (), 1, None, "complex"),
    "mtx-array-format": ("g.mtx", "%%MatrixMarket matrix array real general\n3 3\n1\n", (), 1, None, "coordinate"),
    "mtx-no-banner": ("g.mtx", "3 3 1\n1 2\n", (), 1, None, "banner"),
    "mtx-bad-size-line": ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3\n1 2\n", (), 2, None, "size line"),
    "mtx-more-entries": ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n3 1\n", (), None, None, "declares 2 entries, the file holds 3"),
    "mtx-fewer-entries": ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n2 3\n3 1\n", (), None, None, "declares 4 entries, the file holds 3"),
    "mtx-row-beyond-rows": ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 5 2\n1 2\n4 1\n", (), 4, 1, "row 4 is out of range"),
    "mtx-index-beyond-size": ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 4\n", (), 4, 3, "out of range"),
    "mtx-zero-index": ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n0 1\n", (), 4, 1, "out of range"),
    "mtx-missing-value": ("g.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0.5\n2 3\n", (), 4, 1, "expected 3 fields"),
    "dimacs-arc-count-more": ("g.gr", "p sp 3 2\na 1 2 1\na 2 3 1\na 3 1 1\n", (), None, None, "declares 2 arcs, the file holds 3"),
    "dimacs-arc-count-fewer": ("g.gr", "c x\np sp 3 4\na 1 2 1\na 2 3 1\n", (), None, None, "declares 4 arcs, the file holds 2"),
    "dimacs-bad-p-line": ("g.gr", "c x\np sp 3\na 1 2 1\n", (), 2, None, "problem line"),
    "dimacs-wrong-problem": ("g.gr", "p max 3 1\na 1 2 1\n", ("--format", "dimacs"), 1, None, "problem line"),
    "dimacs-second-p-line": ("g.gr", "p sp 3 2\na 1 2 1\np sp 3 2\na 2 3 1\n", (), 3, 1, "second problem line"),
    "dimacs-vertex-out-of-range": ("g.gr", "p sp 3 2\na 1 2 1\na 2 4 1\n", (), 3, 5, "out of range"),
    "dimacs-bad-line": ("g.gr", "p sp 3 2\na 1 2 1\ne 2 3 1\n", (), 3, 1, "expected an arc line"),
    "dimacs-missing-weight": ("g.gr", "p sp 3 2\na 1 2 1\na 2 3\n", (), 3, 1, "4 fields"),
    "pace-count-mismatch": ("g.gr", "p tw 4 3\n1 2\n2 3\n", (), None, None, "declares 3 edges, the file holds 2"),
    "pace-count-more": ("g.gr", "p tw 4 1\n1 2\n2 3\n", (), None, None, "declares 1 edges, the file holds 2"),
    "pace-vertex-out-of-range": ("g.gr", "p tw 4 2\n1 2\n2 5\n", (), 3, 3, "out of range"),
    "metis-degree-mismatch": ("g.graph", "3 3\n2\n1 3\n2\n", (), None, None, "degree mismatch"),
    "metis-too-few-vertex-lines": ("g.graph", "4 2\n2\n1 3\n2\n", (), None, None, "4 vertices, the file has 3 vertex lines"),
    "metis-too-many-vertex-lines": ("g.graph", "2 1\n2\n1\n1\n", (), 4, 1, "more vertex lines"),
    "metis-neighbour-out-of-range": ("g.graph", "3 2\n2\n1 4\n2\n", (), 3, 3, "out of range"),
    "metis-missing-edge-weight": ("g.graph", "3 2 1\n2 5\n1 5 3\n2 7\n", (), 3, 5, "no edge weight"),
    "metis-bad-header": ("g.graph", "three 2\n2\n1\n", (), 1, None, "METIS header"),
    # 2^64 - 1 vertex weights per line: adding the size field wrapped the count to none skipped.
    "metis-constraint-count-wraps": ("g.graph", "2 1 110 18446744073709551615\n9 2\n9 1\n", (), 2, 1, "size/weight fields"),
    "empty-file": ("g.txt", "", (), None, None, "no edges"),
    "only-comments": ("g.txt", "# nothing\n% here\n\n", (), None, None, "no edges"),
    "csv-header-only": ("g.csv", "src,dst\n", (), None, None, "no edges"),
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_input(tg, tmp, name):
    filename, content, opts, line, col, part = BAD_INPUTS[name]
    src = tmp / filename
    src.write_text(content)
    out = tmp / "out.tg"
    res = tg.convert(src, out, *opts, check=False)
    msg = assert_fails(res, src, out, line=line, col=col, contains=part)
    if line is None:
        assert f"{src}:" in msg or f"'{src}'" in msg


@pytest.mark.parametrize("name", ["non-numeric-token", "weight-nan", "mtx-row-beyond-rows"])
@pytest.mark.parametrize("compression", ["gz", "xz", "zst"])
def test_bad_input_compressed_keeps_line_numbers(tg, tmp, name, compression):
    filename, content, opts, line, col, part = BAD_INPUTS[name]
    src = tmp / (filename + "." + compression)
    src.write_bytes(compress(content.encode(), compression))
    out = tmp / "out.tg"
    assert_fails(tg.convert(src, out, *opts, check=False), src, out, line=line, col=col, contains=part)


def test_bad_input_crlf_column(tg, tmp):
    src = tmp / "g.txt"
    src.write_bytes(b"1\t2\r\n3\t4\r\n5\tq\r\n")
    out = tmp / "out.tg"
    assert_fails(tg.convert(src, out, check=False), src, out, line=3, col=3, contains="'q'")


@pytest.mark.parametrize("compression", ["gz", "xz", "zst"])
@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_truncated_compressed_input(tg, tmp, compression, cut):
    case = build_case("edgelist-tab-float")
    data = case.data * 40  # big enough that the cut is well inside the stream
    packed = compress(data, compression)
    src = tmp / f"g.txt.{compression}"
    src.write_bytes(packed[: int(len(packed) * cut)])
    out = tmp / "out.tg"
    res = tg.convert(src, out, check=False)
    msg = assert_fails(res, src, out)
    assert re.search(r"truncated|corrupt", msg), msg


def test_output_in_missing_directory(tg, tmp):
    src = write_case(build_case("csv-no-header"), tmp)
    out = tmp / "no" / "such" / "dir" / "out.tg"
    res = tg.convert(src, out, check=False)
    msg = assert_fails(res, out, None, contains="does not exist")
    assert not out.parent.exists()
    no_temp_files(tmp)
    assert str(out) in msg


@pytest.mark.parametrize("overwrite", [False, True])
def test_output_equal_to_input(tg, tmp, overwrite):
    src = write_case(build_case("csv-no-header"), tmp)
    before = src.read_bytes()
    res = tg.convert(src, src, *(["--overwrite"] if overwrite else []), check=False)
    assert_fails(res, src, None, contains="is the input file" if overwrite else "already exists")
    assert src.read_bytes() == before
    no_temp_files(tmp)


def test_output_equal_to_input_other_spelling(tg, tmp):
    src = write_case(build_case("csv-no-header"), tmp)
    before = src.read_bytes()
    other = tmp / "." / src.name
    res = tg.convert(src, other, "--overwrite", check=False)
    assert_fails(res, other, None, contains="is the input file")
    assert src.read_bytes() == before


def test_output_exists_without_overwrite(tg, tmp):
    src = write_case(build_case("csv-no-header"), tmp)
    out = tmp / "out.tg"
    out.write_bytes(b"precious")
    res = tg.convert(src, out, check=False)
    assert_fails(res, out, None, contains="--overwrite")
    assert out.read_bytes() == b"precious"
    no_temp_files(tmp)
    # With --overwrite it is replaced by a valid graph.
    tg.convert(src, out, "--overwrite")
    assert read_graph(out).num_vertices == build_case("csv-no-header").n


def test_failed_overwrite_keeps_old_output(tg, tmp):
    """A conversion that fails does not destroy the file it would have replaced."""
    good = write_case(build_case("csv-no-header"), tmp)
    out = tmp / "out.tg"
    tg.convert(good, out)
    before = out.read_bytes()
    bad = tmp / "bad.txt"
    bad.write_text("1 2\n3 x\n")
    assert_fails(tg.convert(bad, out, "--overwrite", check=False), bad, None, line=2, contains="vertex id")
    assert out.read_bytes() == before
    no_temp_files(tmp)


def test_first_error_is_reported(tg, tmp):
    """With several bad lines (parsed by several threads), the first one in the file is reported."""
    lines = [f"{i} {i + 1}" for i in range(60000)]
    lines[99], lines[30000], lines[59000] = "1 x", "3 z", "2 y"
    src = tmp / "g.txt"
    src.write_text("\n".join(lines) + "\n")
    for threads in (1, 2, 4):
        out = tmp / "out.tg"
        assert_fails(tg.convert(src, out, "-t", threads, check=False), src, out, line=100, col=3, contains="'x'")


@pytest.mark.parametrize("filename,content,n,arcs", [
    ("g.txt", "1 2\n2 3", 3, 2),
    ("g.csv", "src,dst\n1,2\n2,3", 3, 2),
    ("g.txt", "1 2\r\n2 3\r", 3, 2),
    ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n4 4 2\n1 2\n2 3", 4, 2),
    ("g.gr", "p sp 4 2\na 1 2 7\na 2 3 9", 4, 2),
    ("g.graph", "3 2\n2\n1 3\n2", 3, 4),
])
def test_no_trailing_newline(tg, tmp, filename, content, n, arcs):
    src = tmp / filename
    src.write_bytes(content.encode())
    out = tmp / "g.tg"
    tg.convert(src, out)
    g = read_graph(out)
    assert g.num_vertices == n and len(g.src) == arcs
    assert (2, 3) in set(zip(g.src.tolist(), g.dst.tolist()))


@pytest.mark.parametrize("filename,content,n,directed", [
    ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 0\n", 3, True),
    ("g.graph", "3 0\n\n\n\n", 3, False),
    ("g.gr", "p sp 4 0\n", 4, True),
    ("g.gr", "p tw 5 0\n", 5, False),
], ids=["mtx", "metis", "dimacs", "pace"])
def test_declared_formats_without_edges(tg, tmp, filename, content, n, directed):
    """A declared vertex count with no edges is a valid graph of isolated vertices."""
    src = tmp / filename
    src.write_text(content)
    out = tmp / "g.tg"
    tg.convert(src, out)
    g = read_graph(out)
    assert g.num_vertices == n and len(g.src) == 0 and g.directed == directed
    info = tg.info(out)
    assert info["vertices"] == n and info["edges"] == 0
    assert info["out_degree" if directed else "degree"]["zero"] == n


@pytest.mark.parametrize("text", ["3 1\n2\n3\n\n", "3 2 1\n2 5\n1 5 3 4\n2 7\n"],
                         ids=["neighbour-not-listed-back", "weight-differs-by-end"])
def test_metis_asymmetric_lists_rejected(tg, tmp, text):
    """Each METIS edge is listed by both ends; lists that disagree (a neighbour or a weight not
    listed back) are refused rather than silently giving a graph the header does not describe."""
    src = tmp / "g.graph"
    src.write_text(text)
    out = tmp / "g.tg"
    res = tg.convert(src, out, check=False)
    assert_fails(res, src, out)
    assert "not symmetric" in res.stderr


@pytest.mark.parametrize("args", [
    ("convert", "{src}"),
    ("convert", "{src}", "-o", "{out}", "--format", "foo"),
    ("convert", "{src}", "-o", "{out}", "--bogus"),
    ("reblock", "{src}", "-o", "{out}", "--blocks", "0"),
], ids=["missing-output", "bad-format", "unknown-option", "reblock-zero-blocks"])
def test_usage_errors_follow_error_contract(tg, tmp, args):
    src = write_case(build_case("csv-no-header"), tmp)
    out = tmp / "out.tg"
    res = tg.run(*[a.format(src=src, out=out) for a in args])
    assert res.returncode == 1, repr(res)
    assert len(res.stderr.strip().splitlines()) == 1 and res.error_lines(), repr(res)


def test_missing_input(tg, tmp):
    src = tmp / "nope.txt"
    out = tmp / "out.tg"
    assert_fails(tg.convert(src, out, check=False), src, out, contains="cannot open")
