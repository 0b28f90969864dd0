"""bench/dist.py's graphs: the edge lists both systems read, made once per graph into the work
folder (self-loops and duplicates dropped, seeded weights, ids kept or renumbered; see dist.py's
docstring), and tiergraph's files reblocked when asked."""
import gzip
import io
import json
import lzma
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from common import datasets_dir, tiergraph_bin

SEED = 27491095  # tiergraph's default seed; also the weights' and the sources' here
EDGE = np.dtype([("src", "<u4"), ("dst", "<u4")])
WEIGHTED_EDGE = np.dtype([("src", "<u4"), ("dst", "<u4"), ("weight", "<f4")])


def read_edge_list(path):
    """(src, dst, header fields) of a text edge list, decompressed on the fly. Comment lines (#, %, c)
    and a CSV header are skipped; a DIMACS `a` is dropped; other columns (weights, CEDGE's leading
    edge id) are ignored. METIS adjacency files would read as nonsense here: refused."""
    if ".graph" in path.suffixes:
        sys.exit(f"{path.name}: METIS adjacency files are not read here; give an edge list")
    columns = [1, 2] if ".cedge" in path.suffixes else [0, 1]
    opener = lzma.open if path.suffix == ".xz" else gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        lines = f.read().splitlines()
    header = next((ln.split() for ln in lines if ln.startswith("p ")), [])
    rows = [ln[2:] if ln.startswith("a ") else ln for ln in lines if ln and ln[0] not in "#%cp"]
    if rows and not rows[0].lstrip()[:1].isdigit():
        rows = rows[1:]  # a CSV header
    sep = "," if "," in rows[0] else r"\s+"
    frame = pd.read_csv(io.StringIO("\n".join(rows)), sep=sep, header=None, usecols=columns, dtype=np.int64,
                        engine="c")
    return frame[columns[0]].to_numpy(), frame[columns[1]].to_numpy(), header


def read_text_pairs(path):
    """The two id columns of a space-separated edge list (tiergraph's own .el output)."""
    frame = pd.read_csv(path, sep=" ", header=None, usecols=[0, 1], dtype=np.int64, engine="c")
    return frame[0].to_numpy(), frame[1].to_numpy()


def unique_pairs(u, v, n, directed):
    """Self-loops and duplicates dropped; an undirected edge once, as (lo, hi). (Sorted keys rather
    than np.unique, which is slow on tens of millions of keys with numpy 2.x.)"""
    keep = u != v
    u, v = u[keep], v[keep]
    if not directed:
        u, v = np.minimum(u, v), np.maximum(u, v)
    key = np.sort(u * n + v)
    key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    return key // n, key % n


def write_text_edges(path, u, v, w):
    pd.DataFrame({"u": u, "v": v, "w": w}).to_csv(path, sep=" ", header=False, index=False, chunksize=1 << 22)


def graph_spec(spec):
    """(name, kind, argument, directed or None) of a --graphs entry."""
    m = re.fullmatch(r"(kron|urand):(\d+)", spec)
    if m:
        return f"{m[1]}{m[2]}", m[1], int(m[2]), False
    base, _, flag = spec.partition(":")
    if flag not in ("", "directed", "undirected"):
        sys.exit(f"--graphs: {spec}: the suffix is :directed or :undirected")
    path = Path(base)
    if not path.exists():
        found = sorted(datasets_dir().glob(base + "*"))
        if not found:
            sys.exit(f"--graphs: no file {base} here or in {datasets_dir()}")
        path = found[0]
    name = re.sub(r"\.(txt|csv|tsv|el|gr|graph|cedge)?(\.(xz|gz|zst))?$", "", path.name)
    return name, "file", path, None if not flag else flag == "directed"


def prepare(spec, args):
    """The graph's files for both systems, made once into WORKDIR/NAME/ (meta.json last, so an
    interrupted preparation is redone): plain.tg, weighted.tg, gemini.el, gemini.wel, gemini-cc.el."""
    name, kind, arg, directed = graph_spec(spec)
    work = Path(args.workdir) / name
    meta_path = work / "meta.json"
    if meta_path.exists() and not args.remake:
        return json.loads(meta_path.read_text())
    work.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    labels = None
    threads = ["-t", str(args.threads)] if args.threads else []
    if kind == "file":
        u, v, header = read_edge_list(arg)
        if directed is None:
            directed = not (header[1:2] == ["tw"] or ".cedge" in arg.suffixes or "undirected" in arg.name)
        labels, inverse = np.unique(np.concatenate([u, v]), return_inverse=True)
        u, v, n = inverse[:len(u)], inverse[len(u):], len(labels)
        origin = f"{arg.name}, ids renumbered 0..{n - 1} in increasing order of the original ids"
    else:
        text = work / "generated.el"
        subprocess.run([tiergraph_bin(), "-q", "generate", "-g" if kind == "kron" else "-u", str(arg), "-s", "-o",
                        str(text), "--overwrite", *threads], check=True)
        u, v = read_text_pairs(text)
        text.unlink()
        n, directed = 1 << arg, False
        origin = f"`tiergraph generate {'-g' if kind == 'kron' else '-u'} {arg} -s` (edge factor 16, seed {SEED}), " \
                 "ids kept"
    u, v = unique_pairs(u, v, n, directed)
    w = np.random.default_rng(SEED).integers(1, 256, size=len(u))
    # tiergraph: the same edges and weights, ids as vertex indices (no relabelling).
    text = work / "edges.wel"
    write_text_edges(text, u, v, w)
    base = [tiergraph_bin(), "-q", "convert", str(text), "--format", "edgelist", "--ids", "index", "--vertices",
            str(n), "--overwrite", *threads, *([] if directed else ["-s"])]
    subprocess.run(base + ["--columns", "0,1", "-o", str(work / "plain.tg")], check=True)
    subprocess.run(base + ["--columns", "0,1,2", "-o", str(work / "weighted.tg")], check=True)
    text.unlink()
    # Gemini: arcs both ways for an undirected graph (its bfs, sssp and pagerank load the file as
    # directed), each edge once for cc (which adds the reverse of every edge it reads).
    src, dst, wt = (u, v, w) if directed else (np.concatenate([u, v]), np.concatenate([v, u]), np.concatenate([w, w]))
    plain = np.empty(len(src), EDGE)
    plain["src"], plain["dst"] = src, dst
    plain.tofile(work / "gemini.el")
    weighted = np.empty(len(src), WEIGHTED_EDGE)
    weighted["src"], weighted["dst"], weighted["weight"] = src, dst, wt
    weighted.tofile(work / "gemini.wel")
    del plain, weighted
    cc = "gemini.el"
    if not directed:
        once = np.empty(len(u), EDGE)
        once["src"], once["dst"] = u, v
        once.tofile(work / "gemini-cc.el")
        cc = "gemini-cc.el"
    # Sources: seeded vertices with out-edges, one per trial (64 kept; --trials takes the first).
    out_degree = np.bincount(src, minlength=n)
    candidates = np.flatnonzero(out_degree)
    sources = np.random.default_rng(SEED + 1).choice(candidates, size=min(64, len(candidates)), replace=False)
    meta = {"name": name, "spec": spec, "origin": origin, "directed": directed, "vertices": int(n),
            "edges": int(len(u)), "arcs": int(len(src)), "isolated": int(n - len(np.flatnonzero(
                np.bincount(np.concatenate([src, dst]), minlength=n)))),
            "sources": [int(s) for s in sources],
            "source_labels": [int(labels[s]) for s in sources] if labels is not None else None,
            "files": {"plain": str(work / "plain.tg"), "weighted": str(work / "weighted.tg"),
                      "gemini": str(work / "gemini.el"), "gemini_weighted": str(work / "gemini.wel"),
                      "gemini_cc": str(work / cc)},
            "prepare_s": time.perf_counter() - start}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{name}: {n} vertices, {meta['edges']} {'arcs' if directed else 'edges'} "
          f"({meta['prepare_s']:.0f} s to prepare)", flush=True)
    return meta


def reblock(graph, blocks):
    """tiergraph's files rewritten on a blocks x blocks grid (`tiergraph reblock`), made once and
    kept beside the others; the runs read those instead."""
    for kind in ("plain", "weighted"):
        source = Path(graph["files"][kind])
        target = source.with_name(f"{source.stem}-b{blocks}.tg")
        if not target.exists():
            subprocess.run([tiergraph_bin(), "-q", "reblock", str(source), "--blocks", str(blocks), "-o", str(target)],
                           check=True)
        graph["files"][kind] = str(target)
    graph["origin"] += f"; tiergraph reads it reblocked to a {blocks}x{blocks} grid (`tiergraph reblock --blocks {blocks}`)"
