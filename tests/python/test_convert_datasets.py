"""`tiergraph convert` on the shared datasets: counts and arcs against an independent parse of each
file and the datasets' README."""

from __future__ import annotations

import lzma
import re
import warnings

import numpy as np
import pytest

from convert_model import (U64, check_graph, expected_weight_type, model)


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
