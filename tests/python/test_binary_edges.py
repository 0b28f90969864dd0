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
