"""The model of a conversion and the inputs written for it, shared by the test_convert_* files,
test_graph_file_integrity.py and test_generate.py: every expectation is computed here, in Python,
from the input the tests wrote (or from the shared datasets, parsed here), and the graph file is
read back with graphfile.py, an independent reader of the file format. Nothing trusts the tool's
own report without checking it against this model.

The model of a conversion (src/ingest/builder.cc, as documented):
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
# Shared by several files
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
