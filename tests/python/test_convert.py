"""End-to-end tests of `tiergraph convert / info / reblock / generate`.

Every expectation is computed here, in Python, from the input we wrote (or from the shared
datasets, parsed here), and the graph file is read back with graphfile.py, an independent reader
of the file format. Nothing trusts the tool's own report without checking it against our model.

The model of a conversion (src/graph/builder.cc, as documented):
  * ids: label mode (plain edge lists, CSV/TSV, cedge, DIMACS without a `p` line) numbers the
    distinct ids that occur, in increasing order; index mode / declared-count formats (Matrix
    Market, DIMACS/PACE with a `p` line, METIS, --ids index) keep vertices base..base+n-1, so
    vertices that no edge mentions still exist.
  * undirected (PACE, METIS, symmetric Matrix Market, -s): every edge is oriented (min, max).
  * self-loops removed unless --keep-self-loops; duplicate (u, v) removed unless
    --keep-duplicates, keeping the least weight.
  * an undirected graph stores both arcs of every edge (a kept self-loop once).
"""

from __future__ import annotations

import gzip
import hashlib
import lzma
import math
import re
import shutil
import subprocess
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import graphfile
from graphfile import read_graph

try:
    import zstandard
except ImportError:  # pragma: no cover - depends on the environment
    zstandard = None

U64 = np.uint64
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


# ================================================================================================
# The model
# ================================================================================================


def model(u, v, w=None, *, undirected, keep_loops=False, keep_dups=False):
    """Expected stored arcs (src, dst, weight) and counts for edges (u, v, w) read from a file."""
    u = np.asarray(u, dtype=U64)
    v = np.asarray(v, dtype=U64)
    w = None if w is None else np.asarray(w, dtype=np.float64)
    stats = {"input_edges": len(u)}
    a, b = (np.minimum(u, v), np.maximum(u, v)) if undirected else (u, v)
    loops = 0
    if not keep_loops:
        keep = a != b
        loops = int((~keep).sum())
        a, b = a[keep], b[keep]
        w = None if w is None else w[keep]
    dups = 0
    if not keep_dups and len(a):
        keys = _pair_keys(a, b)
        order = np.argsort(keys[0], kind="stable") if w is None and len(keys) == 1 else \
            np.lexsort(keys if w is None else (w, *keys))
        a, b = a[order], b[order]
        w = None if w is None else w[order]
        first = np.ones(len(a), dtype=bool)
        first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
        dups = int((~first).sum())
        a, b = a[first], b[first]
        w = None if w is None else w[first]
    stats.update(self_loops_removed=loops, duplicates_removed=dups, edges=len(a))
    if undirected:
        nl = a != b
        src, dst = np.concatenate([a, b[nl]]), np.concatenate([b, a[nl]])
        w = None if w is None else np.concatenate([w, w[nl]])
    else:
        src, dst = a, b
    stats["arcs"] = len(src)
    return src, dst, w, stats


def expected_weight_type(w) -> str:
    if w is None:
        return "none"
    w = np.asarray(w, dtype=np.float64)
    if len(w) == 0 or np.all(w == np.trunc(w)):
        if len(w) == 0 or (w.min() >= INT32_MIN and w.max() <= INT32_MAX):
            return "int32"
        return "int64"
    return "float64"


def _pair_keys(a, b):
    """Sort keys for pairs (a, b): one packed uint64 key when both fit in 32 bits."""
    if len(a) and max(int(a.max()), int(b.max())) >= 2**32:
        return (b, a)
    return ((a << U64(32)) | b,)


def sorted_arcs(src, dst, w=None):
    src = np.asarray(src, dtype=U64)
    dst = np.asarray(dst, dtype=U64)
    wf = None if w is None else np.asarray(w).astype(np.float64)
    keys = _pair_keys(src, dst)
    if wf is None and len(keys) == 1:
        order = np.argsort(keys[0], kind="stable")
    else:
        order = np.lexsort(keys if wf is None else (wf, *keys))
    return src[order], dst[order], (None if wf is None else wf[order])


def assert_same_arcs(got, want, what="arcs"):
    gs, gd, gw = sorted_arcs(*got)
    ws, wd, ww = sorted_arcs(*want)
    assert len(gs) == len(ws), f"{what}: {len(gs)} stored, expected {len(ws)}"
    bad = np.nonzero((gs != ws) | (gd != wd))[0]
    assert len(bad) == 0, (f"{what}: first difference at {bad[0]}: got ({gs[bad[0]]}, {gd[bad[0]]}), "
                           f"expected ({ws[bad[0]]}, {wd[bad[0]]})")
    assert (gw is None) == (ww is None), f"{what}: weighted {gw is not None}, expected {ww is not None}"
    if gw is not None:
        bad = np.nonzero(gw != ww)[0]
        assert len(bad) == 0, (f"{what}: weight of ({gs[bad[0]]}, {gd[bad[0]]}) is {gw[bad[0]]!r}, "
                               f"expected {ww[bad[0]]!r}")


def degree_stats(deg: np.ndarray) -> dict:
    n = len(deg)
    return {"max": int(deg.max()) if n else 0, "zero": int((deg == 0).sum()), "mean": float(deg.sum()) / n if n else 0.0}


def check_info_matches_file(info: dict, g: graphfile.Graph):
    """`info --json` must describe what the file (read independently) holds."""
    assert info["vertices"] == g.num_vertices
    assert info["arcs"] == len(g.src)
    assert info["directed"] == g.directed
    assert info["weight_type"] == g.weight_type
    assert info["weighted"] == (g.weight_type != "none")
    assert info["blocks"]["per_side"] == g.header.blocks_per_side
    assert info["blocks"]["count"] == g.header.blocks_per_side ** 2
    assert info["id_bytes"] == g.header.id_bytes
    if g.directed:
        out_deg = np.bincount(g.dense_src.astype(np.int64), minlength=g.num_vertices)
        in_deg = np.bincount(g.dense_dst.astype(np.int64), minlength=g.num_vertices)
        for key, deg in (("out_degree", out_deg), ("in_degree", in_deg)):
            s = degree_stats(deg)
            assert info[key]["max"] == s["max"] and info[key]["zero"] == s["zero"], key
            assert math.isclose(info[key]["mean"], s["mean"], rel_tol=1e-12), key
    else:
        s = degree_stats(np.bincount(g.dense_src.astype(np.int64), minlength=g.num_vertices))
        assert info["degree"]["max"] == s["max"] and info["degree"]["zero"] == s["zero"]
        assert math.isclose(info["degree"]["mean"], s["mean"], rel_tol=1e-12)
    names = [s["name"] for s in info["sections"]]
    assert names == [s.name for s in g.header.sections]
    assert info["file_bytes"] >= max(s["offset"] + s["bytes"] for s in info["sections"])


def check_graph(tg, out: Path, *, n, ids, src, dst, w, stats, undirected, weight_type=None, id_mode=None):
    """Reads `out` back and compares it with the model."""
    g = read_graph(out)
    assert g.num_vertices == n, f"vertices: {g.num_vertices}, expected {n}"
    assert g.directed == (not undirected)
    np.testing.assert_array_equal(g.original_ids, np.asarray(ids, dtype=U64))
    assert_same_arcs((g.src, g.dst, g.weight), (src, dst, w))
    if g.in_arcs is not None:
        assert_same_arcs(g.in_arcs, (g.src, g.dst, g.weight), "in grid vs out grid")
    if weight_type is not None:
        assert g.weight_type == weight_type
    h = g.header
    assert h.num_edges == stats["edges"]
    assert h.num_arcs == stats["arcs"]
    assert h.input_edges == stats["input_edges"]
    assert h.self_loops_removed == stats["self_loops_removed"]
    assert h.duplicates_removed == stats["duplicates_removed"]
    info = tg.info(out)
    check_info_matches_file(info, g)
    for key in ("edges", "input_edges", "self_loops_removed", "duplicates_removed"):
        assert info[key] == stats[key], key
    if id_mode is not None:
        assert info["id_mode"] == id_mode
    return g, info


# ================================================================================================
# Writing inputs
# ================================================================================================


def fmt_w(x, kind) -> str:
    if kind == "int":
        return str(int(x))
    return repr(float(x))


def compress(data: bytes, kind: str) -> bytes:
    if kind == "none":
        return data
    if kind == "gz":
        return gzip.compress(data)
    if kind == "xz":
        return lzma.compress(data)
    if kind == "zst":
        if zstandard is not None:
            return zstandard.ZstdCompressor().compress(data)
        if shutil.which("zstd"):
            return subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True, check=True).stdout
        pytest.skip("no zstd compressor (pip install zstandard, or the zstd tool)")
    raise ValueError(kind)


@dataclass
class Case:
    filename: str
    data: bytes
    u: np.ndarray  # edges as the file states them (original ids), before any cleaning
    v: np.ndarray
    w: np.ndarray | None
    undirected: bool
    n: int
    ids: np.ndarray  # original id of each dense vertex
    opts: tuple = ()
    id_mode: str | None = None
    all_weights: np.ndarray | None = None  # every weight read (for the weight type)


def with_loops_and_dups(rng, u, v, w, n_loops=3, n_dups=5, wkind=None):
    """Adds self-loops and repeated (u, v) pairs (with other weights) to an edge list."""
    u, v = list(u), list(v)
    w = None if w is None else list(w)
    for _ in range(n_loops):
        x = u[rng.integers(len(u))]
        u.append(x)
        v.append(x)
        if w is not None:
            w.append(rand_weight(rng, wkind))
    for _ in range(n_dups):
        k = rng.integers(len(u))
        u.append(u[k])
        v.append(v[k])
        if w is not None:
            w.append(rand_weight(rng, wkind))
    order = rng.permutation(len(u))
    u = [u[i] for i in order]
    v = [v[i] for i in order]
    w = None if w is None else [w[i] for i in order]
    return u, v, w


def rand_weight(rng, kind):
    if kind == "int":
        return int(rng.integers(-40, 1000))
    return float(rng.uniform(-1.0, 50.0)) * (10.0 ** int(rng.integers(-6, 6)))


def label_edges(rng, pool, m, wkind):
    """Random edges over the ids in `pool`, every id used at least once."""
    pool = [int(x) for x in pool]
    perm = rng.permutation(len(pool))
    u = [pool[perm[i]] for i in range(0, len(pool) - 1)]
    v = [pool[perm[i + 1]] for i in range(0, len(pool) - 1)]
    for _ in range(m - len(u)):
        u.append(pool[rng.integers(len(pool))])
        v.append(pool[rng.integers(len(pool))])
    w = None if wkind is None else [rand_weight(rng, wkind) for _ in u]
    return with_loops_and_dups(rng, u, v, w, wkind=wkind)


def label_case(filename, lines, u, v, w, opts=(), undirected=False, eol="\n"):
    data = (eol.join(lines) + eol).encode()
    ids = np.unique(np.concatenate([np.asarray(u, dtype=U64), np.asarray(v, dtype=U64)]))
    return Case(filename, data, np.asarray(u, U64), np.asarray(v, U64),
                None if w is None else np.asarray(w, np.float64), undirected, len(ids), ids, tuple(opts), "label")


SPARSE_POOL = [7, 10, 5_000_000_000, 2**63 + 12345, 99, 123_456_789_012, 2**40, 3, 2**32, 2**32 - 1,
               17, 2**64 - 2, 4_000_000_000, 512, 1]


def case_edgelist_space(rng):
    u, v, w = label_edges(rng, SPARSE_POOL, 60, "int")
    lines = ["# a SNAP-like header", "% and a percent comment", ""]
    for i, (a, b, c) in enumerate(zip(u, v, w)):
        if i == 20:
            lines.append("# a comment in the middle")
            lines.append("")
        lines.append(f"{a} {b} {c}")
    return label_case("g.txt", lines, u, v, w)


def case_edgelist_tab(rng):
    pool = sorted(rng.choice(200, 70, replace=False) * 3 + 1)  # dense ids with gaps: an id map
    u, v, w = label_edges(rng, pool, 150, "float")
    lines = ["# FromNodeId\tToNodeId\tWeight"] + [f"{a}\t{b}\t{fmt_w(c, 'float')}" for a, b, c in zip(u, v, w)]
    lines.insert(50, "%\tcomment")
    return label_case("g.tsvlike.txt", lines, u, v, w)


def case_edgelist_crlf(rng):
    pool = range(1000, 1060)  # contiguous from 1000: offset ids, no map
    u, v, _ = label_edges(rng, pool, 200, None)
    lines = ["# Directed graph: g.txt", "# Nodes: 60 Edges: 208", "# FromNodeId\tToNodeId"]
    lines += [f"{a}\t{b}" for a, b in zip(u, v)]
    return label_case("g.txt", lines, u, v, None, eol="\r\n")


def case_edgelist_ws(rng):
    u, v, w = label_edges(rng, range(0, 40), 100, "int")
    lines = [f"  {a} \t  {b}\t {c}  " for a, b, c in zip(u, v, w)]
    return label_case("g.el", lines, u, v, w)


def case_csv_header(rng):
    u, v, w = label_edges(rng, SPARSE_POOL, 50, "float")
    lines = ["source,target,weight"] + [f"{a},{b},{fmt_w(c, 'float')}" for a, b, c in zip(u, v, w)]
    return label_case("g.csv", lines, u, v, w)


def case_csv_names(rng):
    # Extra columns (a timestamp, a text label); columns picked by name, not in file order.
    u, v, w = label_edges(rng, range(5, 80), 120, "int")
    lines = ["timestamp,to,note,from,rating"]
    for a, b, c in zip(u, v, w):
        lines.append(f"{1_600_000_000 + int(rng.integers(10**6))},{b},n{int(rng.integers(99))},{a},{c}")
    return label_case("g.csv", lines, u, v, w, opts=("--columns", "from,to,rating"))


def case_csv_index(rng):
    # No header, CRLF, 4 columns like soc-sign-bitcoinotc; columns by index, swapped: 1 -> 0.
    u, v, w = label_edges(rng, range(1, 300, 7), 100, "int")
    lines = [f"{b},{a},{c},{1_300_000_000 + i}" for i, (a, b, c) in enumerate(zip(u, v, w))]
    return label_case("g.csv", lines, u, v, w, opts=("--columns", "1,0,2"), eol="\r\n")


def case_csv_noheader(rng):
    u, v, _ = label_edges(rng, range(0, 30), 60, None)
    lines = [f"{a}, {b}" for a, b in zip(u, v)]
    return label_case("g.csv", lines, u, v, None, opts=("--no-header",))


def case_tsv(rng):
    u, v, w = label_edges(rng, SPARSE_POOL, 40, "int")
    lines = ["from\tto\tw"] + [f"{a}\t{b}\t{c}" for a, b, c in zip(u, v, w)]
    return label_case("g.tsv", lines, u, v, w)


def case_cedge(rng):
    u, v, w = label_edges(rng, range(0, 90), 120, "float")
    w = [abs(x) for x in w]
    lines = [f"{i} {a} {b} {fmt_w(c, 'float')}" for i, (a, b, c) in enumerate(zip(u, v, w))]
    return label_case("g.cedge", lines, u, v, w)


def index_edges(rng, n, m, wkind, base=1, loops=True):
    """Random edges over ids base..base+n-1; a few ids are left unused (isolated vertices)."""
    used = rng.choice(n, size=max(2, n * 3 // 4), replace=False) + base
    u = [int(used[rng.integers(len(used))]) for _ in range(m)]
    v = [int(used[rng.integers(len(used))]) for _ in range(m)]
    w = None if wkind is None else [rand_weight(rng, wkind) for _ in range(m)]
    if loops:
        return with_loops_and_dups(rng, u, v, w, wkind=wkind)
    return u, v, w


def declared_case(filename, text, u, v, w, n, base, undirected, opts=()):
    return Case(filename, text.encode(), np.asarray(u, U64), np.asarray(v, U64),
                None if w is None else np.asarray(w, np.float64), undirected, n,
                np.arange(base, base + n, dtype=U64), tuple(opts), "index")


def case_mtx(field_kind, symmetry):
    def make(rng):
        n = 45
        wkind = {"pattern": None, "integer": "int", "real": "float"}[field_kind]
        u, v, w = index_edges(rng, n, 80, wkind)
        if symmetry == "symmetric":  # lower triangle, as Matrix Market stores it
            u, v = [max(a, b) for a, b in zip(u, v)], [min(a, b) for a, b in zip(u, v)]
        lines = [f"%%MatrixMarket matrix coordinate {field_kind} {symmetry}", "% a comment", "%"]
        lines.append(f"{n} {n} {len(u)}")
        for i in range(len(u)):
            lines.append(f"{u[i]} {v[i]}" + ("" if w is None else f" {fmt_w(w[i], wkind)}"))
        return declared_case("g.mtx", "\n".join(lines) + "\n", u, v, w, n, 1, symmetry == "symmetric")

    return make


def case_mtx_rect(rng):
    rows, cols = 20, 50
    u = [int(rng.integers(1, rows + 1)) for _ in range(60)]
    v = [int(rng.integers(1, cols + 1)) for _ in range(60)]
    w = [int(rng.integers(1, 9)) for _ in range(60)]
    lines = ["%%MatrixMarket matrix coordinate integer general", f"{rows} {cols} {len(u)}"]
    lines += [f"{a} {b} {c}" for a, b, c in zip(u, v, w)]
    return declared_case("g.mtx", "\n".join(lines) + "\n", u, v, w, cols, 1, False)


def case_dimacs(rng):
    n = 70
    u, v, w = index_edges(rng, n, 150, "int")
    w = [abs(x) for x in w]
    lines = ["c 9th DIMACS Implementation Challenge style", "c", f"p sp {n} {len(u)}", "c arcs follow"]
    for i in range(len(u)):
        if i == 30:
            lines.append("c a comment among the arcs")
        lines.append(f"a {u[i]} {v[i]} {w[i]}")
    return declared_case("g.gr", "\n".join(lines) + "\n", u, v, w, n, 1, False)


def case_dimacs_no_p(rng):
    # ARCS: `a u v w` without c/p lines, 0-based: ids are labels.
    u, v, w = label_edges(rng, range(0, 60), 100, "int")
    w = [abs(x) for x in w]
    return label_case("g.gr", [f"a {a} {b} {c}" for a, b, c in zip(u, v, w)], u, v, w)


def case_pace(rng):
    n = 80
    u, v, _ = index_edges(rng, n, 120, None, loops=False)
    pairs = sorted({(min(a, b), max(a, b)) for a, b in zip(u, v) if a != b})
    u, v = [p[0] for p in pairs], [p[1] for p in pairs]
    lines = ["c PACE 2016", f"p tw {n} {len(u)}"] + [f"{a} {b}" for a, b in zip(u, v)]
    return declared_case("g.gr", "\n".join(lines) + "\n", u, v, None, n, 1, True)


def case_metis(weighted, vertex_weights=False):
    def make(rng):
        n = 50
        pairs = set()
        while len(pairs) < 90:
            a, b = (int(x) for x in rng.integers(2, n, size=2))  # vertices 1 and n stay isolated
            if a != b:
                pairs.add((min(a, b), max(a, b)))
        pairs = sorted(pairs)
        wt = {p: int(rng.integers(1, 100)) for p in pairs}
        adj = {i: [] for i in range(1, n + 1)}
        for a, b in pairs:
            adj[a].append(b)
            adj[b].append(a)
        fmt = ("1" if vertex_weights else "0") + ("1" if weighted else "0")
        head = f"{n} {len(pairs)}" + (f" {fmt}" if fmt != "00" else "")
        lines = ["% METIS graph", head]
        for i in range(1, n + 1):
            if i == 10:
                lines.append("% a comment between vertex lines")
            items = [str(int(rng.integers(1, 9)))] if vertex_weights else []
            for j in sorted(adj[i]):
                items.append(str(j))
                if weighted:
                    items.append(str(wt[(min(i, j), max(i, j))]))
            lines.append(" ".join(items))
        u = [p[0] for p in pairs]
        v = [p[1] for p in pairs]
        w = [wt[p] for p in pairs] if weighted else None
        return declared_case("g.graph", "\n".join(lines) + "\n", u, v, w, n, 1, True)

    return make


CASES = {
    "edgelist-space-label64": case_edgelist_space,
    "edgelist-tab-float": case_edgelist_tab,
    "edgelist-crlf": case_edgelist_crlf,
    "edgelist-whitespace": case_edgelist_ws,
    "csv-header": case_csv_header,
    "csv-columns-by-name": case_csv_names,
    "csv-columns-by-index": case_csv_index,
    "csv-no-header": case_csv_noheader,
    "tsv-header": case_tsv,
    "cedge": case_cedge,
    "mtx-pattern-general": case_mtx("pattern", "general"),
    "mtx-integer-general": case_mtx("integer", "general"),
    "mtx-real-symmetric": case_mtx("real", "symmetric"),
    "mtx-pattern-symmetric": case_mtx("pattern", "symmetric"),
    "mtx-rectangular": case_mtx_rect,
    "dimacs": case_dimacs,
    "dimacs-no-p-line": case_dimacs_no_p,
    "pace": case_pace,
    "metis": case_metis(False),
    "metis-weighted": case_metis(True),
    "metis-vertex-and-edge-weights": case_metis(True, vertex_weights=True),
}


def build_case(name) -> Case:
    seed = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")
    return CASES[name](np.random.default_rng(seed))


def write_case(case: Case, directory: Path, compression="none") -> Path:
    name = case.filename + ("" if compression == "none" else "." + compression)
    path = directory / name
    path.write_bytes(compress(case.data, compression))
    return path


def no_temp_files(directory: Path):
    leftovers = [p.name for p in directory.iterdir() if ".tmp-" in p.name]
    assert not leftovers, f"temporary files left behind: {leftovers}"


def convert_and_check(tg, case: Case, src: Path, out: Path, extra=(), undirected=None, keep_loops=False, keep_dups=False):
    undirected = case.undirected if undirected is None else undirected
    tg.convert(src, out, *case.opts, *extra)
    src_a, dst_a, w_a, stats = model(case.u, case.v, case.w, undirected=undirected,
                                     keep_loops=keep_loops, keep_dups=keep_dups)
    return check_graph(tg, out, n=case.n, ids=case.ids, src=src_a, dst=dst_a, w=w_a, stats=stats,
                       undirected=undirected, weight_type=expected_weight_type(case.w), id_mode=case.id_mode)


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


# ================================================================================================
# 2. The shared datasets
# ================================================================================================

# file, parser, README "V counted", README "E counted (lines)", README self-loops, extra options
DATASETS = [
    ("road-rome99.gr.xz", "dimacs", 3353, 8870, 0, ()),
    ("road-cal.cedge.xz", "cedge", 21048, 21693, 0, ()),
    ("road-osm-bremen-dist.gr.xz", "arcs", 40461, 86475, 305, ()),
    ("road-pace-NY.gr.xz", "pace", 264346, 365050, 0, ()),
    ("road-pace-BAY.gr.xz", "pace", 321270, 397415, 0, ()),
    ("road-pace-FLA.gr.xz", "pace", 1070376, 1343951, 0, ()),
    ("road-pace-NW.gr.xz", "pace", 1207945, 1410387, 0, ()),
    ("road-pace-NE.gr.xz", "pace", 1524453, 1934010, 0, ()),
    ("infra-power-grid.graph.xz", "metis", 4941, 6594, 0, ()),
    ("tiny-karate.graph.xz", "metis", 34, 78, 0, ()),
    ("tiny-lesmis.graph.xz", "metis", 77, 254, 0, ()),
    ("web-NotreDame.txt.xz", "snap", 325729, 1497134, 27455, ()),
    ("web-cnr-2000.txt.xz", "snap", 325557, 3216152, 87442, ()),
    ("soc-Slashdot0902.txt.xz", "snap", 82168, 948464, 78303, ()),
    ("soc-twitter-ego-undirected.txt.xz", "snap", 81306, 1342310, 14, ()),
    ("soc-github-musae.csv.xz", "csvh", 37700, 289003, 0, ()),
    ("soc-facebook-pages-musae.csv.xz", "csvh", 22470, 171002, 179, ()),
    ("soc-lastfm-asia.csv.xz", "csvh", 7624, 27806, 0, ()),
    ("soc-wiki-Vote.txt.xz", "snap", 7115, 103689, 0, ()),
    ("soc-facebook_combined.txt.xz", "snap", 4039, 88234, 0, ()),
    ("email-Eu-core.txt.xz", "snap", 1005, 25571, 642, ()),
    ("soc-sign-bitcoinotc.csv.xz", "csv4", 5881, 35592, 0, ("--columns", "0,1,2")),
    ("email-Enron-undirected.txt.xz", "snap", 36692, 183831, 0, ()),
    ("cit-HepPh-directed.txt.xz", "snap", 34546, 421578, 44, ()),
    ("as-caida20071105-undirected.txt.xz", "snap", 26475, 53381, 0, ()),
    ("grape-p2p31/p2p-31.e.xz", "grape", 62586, 147892, 0, ()),
]


def _ints(text: bytes) -> np.ndarray:
    """All whitespace-separated integers of `text` (numpy's C parser; anything else is an error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns when it meets something that is not a number
        return np.fromstring(text, dtype=np.int64, sep=" ")


def parse_dataset(raw: bytes, kind: str):
    """Our own reading of a dataset: (u, v, w or None, declared vertex count or None, undirected).

    Every line must hold the same number of fields; since the total is also compared with the
    README's line count, a line with a field too many or too few cannot go unnoticed.
    """
    if kind in ("snap", "grape"):
        body = re.sub(rb"(?m)^#.*$", b"", raw)
        ncols = 2 if kind == "snap" else 3
        a = _ints(body)
        assert len(a) % ncols == 0
        a = a.reshape(-1, ncols)
        return a[:, 0].astype(U64), a[:, 1].astype(U64), (a[:, 2].astype(np.float64) if ncols == 3 else None), None, False
    if kind == "csvh":
        first, _, body = raw.partition(b"\n")
        assert not re.match(rb"^\d", first)  # the header line
        a = _ints(body.replace(b",", b" ")).reshape(-1, 2)
        return a[:, 0].astype(U64), a[:, 1].astype(U64), None, None, False
    if kind == "csv4":
        assert all(line.count(b",") == 3 for line in raw.splitlines() if line)
        a = _ints(raw.replace(b",", b" ")).reshape(-1, 4)
        return a[:, 0].astype(U64), a[:, 1].astype(U64), a[:, 2].astype(np.float64), None, False
    if kind in ("dimacs", "arcs"):
        lines = raw.split(b"\n")
        p = [line.split() for line in lines if line.startswith(b"p ")]
        arcs = [line[2:] for line in lines if line.startswith(b"a ")]
        assert all(len(x.split()) == 3 for x in arcs)
        a = _ints(b"\n".join(arcs)).reshape(-1, 3)
        declared = None
        if kind == "dimacs":
            assert len(p) == 1 and p[0][1] == b"sp"
            declared = int(p[0][2])
            assert int(p[0][3]) == len(a)
        else:
            assert not p
        return a[:, 0].astype(U64), a[:, 1].astype(U64), a[:, 2].astype(np.float64), declared, False
    if kind == "pace":
        first, _, body = raw.partition(b"\n")
        head = first.split()
        assert head[:2] == [b"p", b"tw"]
        a = _ints(body).reshape(-1, 2)
        assert len(a) == int(head[3])
        return a[:, 0].astype(U64), a[:, 1].astype(U64), None, int(head[2]), True
    if kind == "cedge":
        rows = [line.split() for line in raw.splitlines() if line.strip()]
        assert all(len(r) == 4 for r in rows)
        u = np.array([int(r[1]) for r in rows], dtype=U64)
        v = np.array([int(r[2]) for r in rows], dtype=U64)
        w = np.array([float(r[3]) for r in rows], dtype=np.float64)
        return u, v, w, None, False
    if kind == "metis":
        lines = [line for line in raw.decode().split("\n") if not line.startswith("%")]
        head = lines[0].split()
        n, m = int(head[0]), int(head[1])
        weighted = len(head) >= 3 and head[2].endswith("1")
        us, vs, ws, entries = [], [], [], 0
        for i in range(1, n + 1):
            f = [int(x) for x in lines[i].split()]
            pairs = list(zip(f[0::2], f[1::2])) if weighted else [(x, None) for x in f]
            for j, wt in pairs:
                entries += 1
                if i <= j:
                    us.append(i)
                    vs.append(j)
                    ws.append(wt)
        assert entries == 2 * m
        assert all(not line.strip() for line in lines[n + 1:])
        return (np.array(us, dtype=U64), np.array(vs, dtype=U64),
                np.array(ws, dtype=np.float64) if weighted else None, n, True)
    raise ValueError(kind)


@pytest.mark.parametrize("name,kind,v_readme,e_readme,loops_readme,opts", DATASETS,
                         ids=[d[0].split("/")[-1].replace(".xz", "") for d in DATASETS])
def test_dataset(tg, datasets_dir, tmp, name, kind, v_readme, e_readme, loops_readme, opts):
    path = datasets_dir / name
    if not path.exists():
        pytest.skip(f"{path} is missing")
    u, v, w, declared, undirected = parse_dataset(lzma.decompress(path.read_bytes()), kind)
    # Our own parse agrees with the README.
    assert len(u) == e_readme
    ids = np.unique(np.concatenate([u, v]))
    if declared is None:
        assert len(ids) == v_readme
        n, dense_ids, id_mode = len(ids), ids, "label"
    else:
        assert declared == v_readme
        n, dense_ids, id_mode = declared, np.arange(1, declared + 1, dtype=U64), "index"
    src, dst, wa, stats = model(u, v, w, undirected=undirected)
    assert stats["self_loops_removed"] == loops_readme

    out = tmp / "g.tg"
    tg.convert(path, out, *opts)
    _, info = check_graph(tg, out, n=n, ids=dense_ids, src=src, dst=dst, w=wa, stats=stats, undirected=undirected,
                          weight_type=expected_weight_type(w), id_mode=id_mode)
    assert info["vertices"] == v_readme and info["input_edges"] == e_readme


# README "simple undirected edges" column: -s must give exactly that many edges.
UNDIRECTED_README = [
    ("road-rome99.gr.xz", 4831, ()),
    ("road-osm-bremen-dist.gr.xz", 47154, ()),
    ("email-Eu-core.txt.xz", 16064, ()),
    ("soc-wiki-Vote.txt.xz", 100762, ()),
    ("soc-sign-bitcoinotc.csv.xz", 21492, ("--columns", "0,1,2")),
    ("soc-facebook-pages-musae.csv.xz", 170823, ()),
    ("cit-HepPh-directed.txt.xz", 420877, ()),
    ("soc-twitter-ego-undirected.txt.xz", 1342296, ()),
    ("soc-Slashdot0902.txt.xz", 504230, ()),
    ("web-NotreDame.txt.xz", 1090108, ()),
    ("web-cnr-2000.txt.xz", 2738969, ()),
]


@pytest.mark.parametrize("name,edges,opts", UNDIRECTED_README, ids=[d[0].replace(".xz", "") for d in UNDIRECTED_README])
def test_dataset_undirected_edges_match_readme(tg, datasets_dir, tmp, name, edges, opts):
    path = datasets_dir / name
    if not path.exists():
        pytest.skip(f"{path} is missing")
    out = tmp / "g.tg"
    tg.convert(path, out, "-s", *opts)
    info = tg.info(out, "--no-checksums")
    assert info["directed"] is False
    assert info["edges"] == edges
    assert info["arcs"] == 2 * edges  # the README counts simple edges: no self-loops left


# ================================================================================================
# 3. Options
# ================================================================================================


LOOPS_DUPS = """# loops and duplicates
1 2 5
2 1 3
1 2 4
1 2 9
3 3 7
3 3 1
2 3 8
4 4 2
"""


@pytest.mark.parametrize("undirected", [False, True], ids=["directed", "undirected"])
@pytest.mark.parametrize("keep_loops,keep_dups", [(False, False), (True, False), (False, True), (True, True)])
def test_keep_self_loops_and_duplicates(tg, tmp, undirected, keep_loops, keep_dups):
    src = tmp / "g.txt"
    src.write_text(LOOPS_DUPS)
    u = [1, 2, 1, 1, 3, 3, 2, 4]
    v = [2, 1, 2, 2, 3, 3, 3, 4]
    w = [5, 3, 4, 9, 7, 1, 8, 2]
    opts = (["-s"] if undirected else []) + (["--keep-self-loops"] if keep_loops else []) + \
           (["--keep-duplicates"] if keep_dups else [])
    out = tmp / "g.tg"
    tg.convert(src, out, *opts)
    s, d, ww, stats = model(u, v, w, undirected=undirected, keep_loops=keep_loops, keep_dups=keep_dups)
    # Hand-computed counts, so that the model itself is checked too.
    hand = {  # (undirected, keep_loops, keep_dups) -> (edges, loops removed, duplicates removed)
        (False, False, False): (3, 3, 2), (False, True, False): (5, 0, 3),
        (False, False, True): (5, 3, 0), (False, True, True): (8, 0, 0),
        (True, False, False): (2, 3, 3), (True, True, False): (4, 0, 4),
        (True, False, True): (5, 3, 0), (True, True, True): (8, 0, 0),
    }[(undirected, keep_loops, keep_dups)]
    assert (stats["edges"], stats["self_loops_removed"], stats["duplicates_removed"]) == hand
    g, info = check_graph(tg, out, n=4, ids=[1, 2, 3, 4], src=s, dst=d, w=ww, stats=stats, undirected=undirected,
                          weight_type="int32")
    assert info["self_loops_kept"] == keep_loops
    assert info["duplicates_kept"] == keep_dups
    if not keep_dups:
        # The least weight of the repeated pair survives.
        k = np.nonzero((g.src == 1) & (g.dst == 2))[0]
        assert list(g.weight[k]) == [3 if undirected else 4]


def test_undirected_symmetric_closure(tg, tmp):
    case = build_case("edgelist-space-label64")
    src = write_case(case, tmp)
    out = tmp / "g.tg"
    g, info = convert_and_check(tg, case, src, out, extra=("-s",), undirected=True)
    assert info["directed"] is False and "degree" in info and "in_degree" not in info
    pairs = set(zip(g.src.tolist(), g.dst.tolist()))
    assert all((b, a) in pairs for a, b in pairs), "not symmetric"
    # Exactly the symmetric closure of the input, minus self-loops.
    closure = {(a, b) for a, b in zip(case.u.tolist(), case.v.tolist()) if a != b}
    closure |= {(b, a) for a, b in closure}
    assert pairs == closure


def test_ids_index_keeps_unmentioned_vertices(tg, tmp):
    src = tmp / "g.txt"
    src.write_text("0 3\n3 7\n7 0\n5 3\n")
    out = tmp / "g.tg"
    tg.convert(src, out, "--ids", "index")
    g = read_graph(out)
    assert g.num_vertices == 8  # 0..7; 1, 2, 4, 6 never appear
    np.testing.assert_array_equal(g.original_ids, np.arange(8, dtype=U64))
    info = tg.info(out)
    assert info["id_mode"] == "index" and info["id_base"] == 0 and info["id_map"] == "offset"
    assert info["out_degree"]["zero"] == 4  # 1, 2, 4, 6
    assert info["in_degree"]["zero"] == 5  # 1, 2, 4, 5, 6
    _, _, _, stats = model([0, 3, 7, 5], [3, 7, 0, 3], undirected=False)
    assert_same_arcs((g.src, g.dst, None), ([0, 3, 7, 5], [3, 7, 0, 3], None))
    # The same file in label mode: only the 4 ids that occur.
    out2 = tmp / "g2.tg"
    tg.convert(src, out2, "--ids", "label")
    g2 = read_graph(out2)
    assert g2.num_vertices == 4
    np.testing.assert_array_equal(g2.original_ids, np.array([0, 3, 5, 7], dtype=U64))
    assert_same_arcs((g2.src, g2.dst, None), ([0, 3, 7, 5], [3, 7, 0, 3], None))


def test_ids_index_from_nonzero(tg, tmp):
    src = tmp / "g.txt"
    src.write_text("5 9\n9 6\n")
    out = tmp / "g.tg"
    tg.convert(src, out, "--ids", "index")
    g = read_graph(out)
    assert g.num_vertices == 10  # ids are indices from 0
    assert_same_arcs((g.src, g.dst, None), ([5, 9], [9, 6], None))


def test_label_mode_maps_original_ids(tg, tmp):
    src = tmp / "g.txt"
    src.write_text("10 5000000000\n5000000000 7\n7 10\n10 7\n")
    out = tmp / "g.tg"
    tg.convert(src, out)
    g = read_graph(out)
    assert g.num_vertices == 3
    np.testing.assert_array_equal(g.original_ids, np.array([7, 10, 5000000000], dtype=U64))
    assert_same_arcs((g.src, g.dst, None), ([10, 5000000000, 7, 10], [5000000000, 7, 10, 7], None))
    # Dense ids follow label order: 7 -> 0, 10 -> 1, 5000000000 -> 2.
    dense = set(zip(g.dense_src.tolist(), g.dense_dst.tolist()))
    assert dense == {(1, 2), (2, 0), (0, 1), (1, 0)}
    info = tg.info(out)
    assert info["id_mode"] == "label" and info["id_map"] == "explicit"


def test_label_mode_contiguous_ids_use_offset(tg, tmp):
    src = tmp / "g.txt"
    src.write_text("1000 1001\n1002 1000\n1001 1003\n")
    out = tmp / "g.tg"
    tg.convert(src, out)
    info = tg.info(out)
    assert info["id_map"] == "offset" and info["id_base"] == 1000 and info["vertices"] == 4
    g = read_graph(out)
    assert_same_arcs((g.src, g.dst, None), ([1000, 1002, 1001], [1001, 1000, 1003], None))


@pytest.mark.parametrize("ids", [[0, 2**64 - 1], [5, 2**64 - 1], [2**64 - 1, 2**64 - 2]],
                         ids=["0-and-max", "5-and-max", "max-and-max-1"])
def test_label_mode_extreme_ids(tg, tmp, ids, request):
    src = tmp / "g.txt"
    src.write_text(f"{ids[0]} {ids[1]}\n{ids[1]} {ids[0]}\n")
    out = tmp / "g.tg"
    res = tg.convert(src, out, check=False)
    assert res.returncode == 0, repr(res)
    g = read_graph(out)
    assert g.num_vertices == 2
    np.testing.assert_array_equal(g.original_ids, np.array(sorted(ids), dtype=U64))
    assert_same_arcs((g.src, g.dst, None), ([ids[0], ids[1]], [ids[1], ids[0]], None))


@pytest.mark.parametrize("weights,wtype", [
    ([2147483647, -2147483648], "int32"),
    ([2147483648, 1], "int64"),
    ([-2147483649, 1], "int64"),
    ([1e3, -0.0], "int32"),
    ([1.5, 2], "float64"),
    # Integral but beyond int64 (found by fuzzing: classifying them was undefined behaviour).
    ([1e19, 1], "float64"),
    ([2**63, -(2**63)], "float64"),
], ids=["int32-bounds", "above-int32", "below-int32", "integral-floats", "mixed", "above-int64", "int64-edges"])
def test_weight_type_boundaries(tg, tmp, weights, wtype):
    src = tmp / "g.txt"
    src.write_text("".join(f"{i} {i + 1} {x!r}\n" if isinstance(x, float) else f"{i} {i + 1} {x}\n"
                           for i, x in enumerate(weights)))
    out = tmp / "g.tg"
    tg.convert(src, out)
    g = read_graph(out)
    assert g.weight_type == wtype
    k = np.arange(len(weights))
    assert_same_arcs((g.src, g.dst, g.weight), (k, k + 1, np.array(weights, dtype=np.float64)))


def test_large_integer_weights_are_int64(tg, tmp):
    src = tmp / "g.txt"
    src.write_text(f"1 2 {2**40}\n2 3 -{2**35}\n3 1 7\n")
    out = tmp / "g.tg"
    tg.convert(src, out)
    g = read_graph(out)
    assert g.weight_type == "int64"
    assert_same_arcs((g.src, g.dst, g.weight), ([1, 2, 3], [2, 3, 1], np.array([2**40, -(2**35), 7], dtype=np.float64)))


@pytest.mark.parametrize("kind", ["int", "real"])
def test_generated_weights(tg, tmp, kind):
    case = build_case("csv-no-header")  # unweighted input
    src = write_case(case, tmp)
    outs = {}
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        out = tmp / f"{name}.tg"
        tg.convert(src, out, "--weights", kind, "--weight-seed", seed)
        outs[name] = out
    g = read_graph(outs["a"])
    info = tg.info(outs["a"])
    assert info["weights_generated"] is True
    _, _, _, stats = model(case.u, case.v, None, undirected=False)
    assert len(g.src) == stats["arcs"] and g.num_vertices == case.n
    if kind == "int":
        assert g.weight_type == "int32"
        assert g.weight.min() >= 1 and g.weight.max() <= 255
        assert len(np.unique(g.weight)) > 20  # spread over the range, not a constant
    else:
        assert g.weight_type == "float64"
        assert g.weight.min() > 0 and g.weight.max() <= 1
        assert len(np.unique(g.weight)) > len(g.weight) // 2  # really real-valued
    # The header's range covers the stored weights and stays inside the generator's range.
    assert info["weight_min"] <= g.weight.min() and info["weight_max"] >= g.weight.max()
    assert info["weight_min"] > 0 and info["weight_max"] <= (255 if kind == "int" else 1)
    # Deterministic for a seed: identical files; another seed changes the weights, not the arcs.
    assert outs["a"].read_bytes() == outs["b"].read_bytes()
    gc = read_graph(outs["c"])
    assert_same_arcs((g.src, g.dst, None), (gc.src, gc.dst, None))
    assert not np.array_equal(sorted_arcs(g.src, g.dst, g.weight)[2], sorted_arcs(gc.src, gc.dst, gc.weight)[2])
    # Thread count does not change them either.
    out_t1 = tmp / "t1.tg"
    tg.convert(src, out_t1, "--weights", kind, "--weight-seed", 7, "-t", 1)
    assert out_t1.read_bytes() == outs["a"].read_bytes()


def test_generated_weights_undirected_are_symmetric(tg, tmp):
    case = build_case("edgelist-whitespace")  # weighted input: generated weights replace them
    src = write_case(case, tmp)
    out = tmp / "g.tg"
    tg.convert(src, out, "-s", "--weights", "int", "--weight-seed", 3)
    g = read_graph(out)
    assert g.weight_type == "int32" and g.weight.min() >= 1 and g.weight.max() <= 255
    wmap = {(a, b): c for a, b, c in zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist())}
    assert all(wmap[(b, a)] == c for (a, b), c in wmap.items())
    s, d, _, _ = model(case.u, case.v, None, undirected=True)
    assert_same_arcs((g.src, g.dst, None), (s, d, None))


# ================================================================================================
# 4. Bad input
# ================================================================================================


def assert_fails(res, src: Path, out: Path | None, *, line=None, col=None, contains=()):
    assert res.returncode == 1, f"expected exit 1: {res!r}"
    errors = res.error_lines()
    assert len(errors) == 1 and res.stderr.strip() == errors[0], f"expected one error line: {res.stderr!r}"
    msg = errors[0]
    if line is not None:
        where = f"{src}:{line}:" + (f"{col}:" if col is not None else "")
        assert where in msg, f"{where!r} not in {msg!r}"
    else:
        assert str(src) in msg, f"{src} not named in {msg!r}"
    for part in [contains] if isinstance(contains, str) else contains:
        assert part.lower() in msg.lower(), f"{part!r} not in {msg!r}"
    if out is not None:
        assert not out.exists(), f"{out} was left behind"
        no_temp_files(out.parent)
    return msg


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
