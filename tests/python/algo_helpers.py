"""Helpers for test_algorithms.py: independent text parsers, reference graphs and oracles.

Nothing here reads tiergraph's graph files or shares code with it: datasets are parsed from their
text with plain Python, cleaned the way `convert` documents (self-loops dropped unless kept,
duplicate edges merged keeping the least weight, undirected edges stored once), and the answers
come from networkx / scipy / numpy.
"""

from __future__ import annotations

import lzma
import math
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

INF = math.inf


# ------------------------------------------------------------------------------------------------
# Running the binary.

def run_tg(binary, *args, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs `tiergraph -q ARGS...`; returns the CompletedProcess (text)."""
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "passive")  # shared CI machines: do not spin
    argv = [str(binary), "-q", *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


def run_tg_on_ranks(binary, ranks: int, *args, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs `tiergraph -q ARGS...` on RANKS MPI ranks of this machine (Open MPI's mpirun)."""
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "passive")
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"  # MPI's own allocations
    argv = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(ranks),
            "-x", "ASAN_OPTIONS", "-x", "OMP_WAIT_POLICY", str(binary), "-q", *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


def describe(proc: subprocess.CompletedProcess) -> str:
    return (f"command: {' '.join(proc.args)}\nrc={proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\n"
            f"stderr:\n{proc.stderr[-3000:]}")


def check_ok(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, describe(proc)
    return proc


def summary_lines(stdout: str) -> dict[str, list[str]]:
    """`Label: value` lines of the text report, every occurrence kept in order."""
    out: dict[str, list[str]] = {}
    for line in stdout.splitlines():
        if ": " in line:
            key, value = line.split(": ", 1)
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def read_tsv(path) -> dict[int, str]:
    """original id -> value text; asserts one line per id, two fields each (three with BFS's
    parent column, which `run --parents -o` adds)."""
    values: dict[int, str] = {}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            assert len(parts) in (2, 3), f"{path}:{lineno}: expected 'id<TAB>value[<TAB>parent]', got {line!r}"
            vid = int(parts[0])
            assert vid not in values, f"{path}:{lineno}: id {vid} listed twice"
            values[vid] = parts[1]
    return values


def tsv_numbers(values: dict[int, str], kind=int) -> dict[int, float | int]:
    """Parses TSV values: 'infinity' -> math.inf, else kind(text)."""
    return {k: (INF if v == "infinity" else kind(v)) for k, v in values.items()}


# ------------------------------------------------------------------------------------------------
# Reference graphs.

@dataclass
class RefGraph:
    """A cleaned graph: vertex ids (original), and arcs keyed (u, v) -> least weight.

    For undirected graphs each edge is stored once under (min, max)."""
    vertices: list[int]
    directed: bool
    weighted: bool
    edges: dict[tuple[int, int], float] = field(default_factory=dict)
    _nx: object = field(default=None, repr=False, compare=False)

    def arcs(self):
        """Every stored arc (u, v, w): both directions for undirected edges, a loop once."""
        for (u, v), w in self.edges.items():
            yield u, v, w
            if not self.directed and u != v:
                yield v, u, w

    def out_degree(self) -> dict[int, int]:
        deg = dict.fromkeys(self.vertices, 0)
        for u, _, _ in self.arcs():
            deg[u] += 1
        return deg

    def nx(self):
        """The graph as networkx (cached; do not modify it)."""
        if self._nx is None:
            import networkx as nx
            g = nx.DiGraph() if self.directed else nx.Graph()
            g.add_nodes_from(self.vertices)
            g.add_weighted_edges_from((u, v, w) for (u, v), w in self.edges.items())
            self._nx = g
        return self._nx


def build_ref(raw_edges, directed: bool, weighted: bool, vertices=None, keep_self_loops: bool = False) -> RefGraph:
    """Cleans raw (u, v[, w]) edges the way `convert` documents. `vertices`: the declared vertex
    ids (index-mode formats); default: every id that appears in an edge (label mode)."""
    seen: set[int] = set()
    edges: dict[tuple[int, int], float] = {}
    for e in raw_edges:
        u, v = e[0], e[1]
        w = e[2] if weighted else 1
        seen.add(u)
        seen.add(v)
        if u == v and not keep_self_loops:
            continue
        key = (u, v) if directed or u <= v else (v, u)
        old = edges.get(key)
        if old is None or w < old:
            edges[key] = w
    ids = sorted(seen if vertices is None else vertices)
    if vertices is not None:
        missing = seen - set(vertices)
        assert not missing, f"edges use undeclared vertices {sorted(missing)[:5]}"
    return RefGraph(ids, directed, weighted, edges)


# ------------------------------------------------------------------------------------------------
# Text parsers (independent of tiergraph's).

def read_text(path) -> str:
    path = str(path)
    if path.endswith(".xz"):
        with lzma.open(path, "rt") as f:
            return f.read()
    return Path(path).read_text()


def parse_metis(text: str):
    """-> (vertices 1..n, raw edges (u, v, w)) and whether weighted."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while lines[i].strip() == "" or lines[i].lstrip().startswith("%"):
        i += 1
    head = lines[i].split()
    n, m = int(head[0]), int(head[1])
    fmt = head[2] if len(head) > 2 else "0"
    weighted = fmt.zfill(3)[2] == "1"
    assert fmt.zfill(3)[:2] == "00", "vertex sizes/weights are not needed here"
    edges = []
    vertex = 0
    for line in lines[i + 1:]:
        if line.lstrip().startswith("%"):
            continue
        vertex += 1
        if vertex > n:
            assert line.strip() == ""
            continue
        f = line.split()
        if weighted:
            for k in range(0, len(f), 2):
                edges.append((vertex, int(f[k]), float(f[k + 1])))
        else:
            edges.extend((vertex, int(x), 1) for x in f)
    assert vertex >= n
    assert len(edges) == 2 * m, (len(edges), m)
    return list(range(1, n + 1)), edges, weighted


def parse_dimacs(text: str):
    n = None
    edges = []
    for line in text.splitlines():
        if line.startswith("p"):
            n = int(line.split()[2])
        elif line.startswith("a"):
            _, u, v, w = line.split()
            edges.append((int(u), int(v), float(w)))
    return (list(range(1, n + 1)) if n is not None else None), edges


def parse_edge_list(text: str, columns=(0, 1), weight_column=None, sep=None, header=False):
    """Whitespace (or `sep`) separated edge list; '#'/'%' lines are comments."""
    edges = []
    lines = text.splitlines()
    if header:
        lines = lines[1:]
    for line in lines:
        s = line.strip()
        if not s or s[0] in "#%":
            continue
        f = s.split(sep)
        u, v = int(f[columns[0]]), int(f[columns[1]])
        if weight_column is None:
            edges.append((u, v, 1))
        else:
            edges.append((u, v, float(f[weight_column])))
    return edges


def write_mtx(path, n: int, edges, field_kind: str = "pattern", symmetry: str = "general"):
    """Matrix Market coordinate file, 1-based, edges given 1-based."""
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix coordinate {field_kind} {symmetry}\n")
        f.write("% written by test_algorithms.py\n")
        f.write(f"{n} {n} {len(edges)}\n")
        for e in edges:
            if field_kind == "pattern":
                f.write(f"{e[0]} {e[1]}\n")
            else:
                f.write(f"{e[0]} {e[1]} {fmt_weight(e[2])}\n")


def fmt_weight(w) -> str:
    if isinstance(w, (int, np.integer)) or float(w).is_integer():
        return str(int(w))
    return repr(float(w))


def write_edge_list(path, edges, weighted: bool):
    with open(path, "w") as f:
        f.write("# generated by test_algorithms.py\n")
        for e in edges:
            f.write(f"{e[0]} {e[1]} {fmt_weight(e[2])}\n" if weighted else f"{e[0]} {e[1]}\n")


# ------------------------------------------------------------------------------------------------
# Oracles.

def oracle_bfs(g: RefGraph, source: int) -> dict[int, float]:
    """Hop depth from source along out-arcs (networkx); unreached = inf."""
    import networkx as nx
    depth = nx.single_source_shortest_path_length(g.nx(), source)
    return {v: depth.get(v, INF) for v in g.vertices}


def oracle_sssp(g: RefGraph, source: int) -> dict[int, float]:
    """Dijkstra (scipy) over the least weight of every arc; unreached = inf.

    scipy sums duplicate entries and drops explicit zeros in some paths, so zero-weight arcs are
    given a tiny positive stand-in only when present; callers with zero weights use networkx."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra
    index = {v: i for i, v in enumerate(g.vertices)}
    arcs = list(g.arcs())
    if any(w == 0 for _, _, w in arcs):
        import networkx as nx
        dist = nx.single_source_dijkstra_path_length(g.nx(), source, weight="weight")
        return {v: dist.get(v, INF) for v in g.vertices}
    n = len(g.vertices)
    rows = np.fromiter((index[u] for u, _, _ in arcs), dtype=np.int64, count=len(arcs))
    cols = np.fromiter((index[v] for _, v, _ in arcs), dtype=np.int64, count=len(arcs))
    data = np.fromiter((w for _, _, w in arcs), dtype=np.float64, count=len(arcs))
    m = csr_matrix((data, (rows, cols)), shape=(n, n))  # arcs are unique: nothing is summed
    dist = dijkstra(m, directed=True, indices=index[source])
    return {v: float(dist[index[v]]) for v in g.vertices}


def oracle_wcc(g: RefGraph) -> dict[int, int]:
    """Each vertex's label: the least original id of its weakly connected component."""
    import networkx as nx
    G = g.nx()
    comps = nx.weakly_connected_components(G) if g.directed else nx.connected_components(G)
    label = {}
    for comp in comps:
        least = min(comp)
        for v in comp:
            label[v] = least
    return label


def _transition(g: RefGraph):
    """(n, index, sparse A^T with A[u, v] = 1 per arc, out-degree array)."""
    from scipy.sparse import csr_matrix
    index = {v: i for i, v in enumerate(g.vertices)}
    n = len(g.vertices)
    arcs = list(g.arcs())
    src = np.fromiter((index[u] for u, _, _ in arcs), dtype=np.int64, count=len(arcs))
    dst = np.fromiter((index[v] for _, v, _ in arcs), dtype=np.int64, count=len(arcs))
    at = csr_matrix((np.ones(len(arcs)), (dst, src)), shape=(n, n))
    out = np.bincount(src, minlength=n).astype(np.float64)
    return n, index, at, out


def oracle_pagerank_iterations(g: RefGraph, iterations: int, damping: float = 0.85) -> dict[int, float]:
    """Exactly `iterations` power-iteration steps from the uniform vector, dangling rank spread
    uniformly (numpy/scipy, written from the definition)."""
    n, _, at, out = _transition(g)
    rank = np.full(n, 1.0 / n)
    dangling_mask = out == 0
    safe = np.where(dangling_mask, 1.0, out)
    for _ in range(iterations):
        contrib = np.where(dangling_mask, 0.0, rank / safe)
        dangling = rank[dangling_mask].sum()
        rank = (1 - damping) / n + damping * dangling / n + damping * (at @ contrib)
    return {v: float(rank[i]) for i, v in enumerate(g.vertices)}


def oracle_pagerank_nx(g: RefGraph, damping: float = 0.85) -> dict[int, float]:
    """networkx.pagerank to (near) convergence; weights ignored."""
    import networkx as nx
    G = g.nx()
    pr = nx.pagerank(G, alpha=damping, tol=1e-15, max_iter=100000, weight=None)
    return {v: pr[v] for v in g.vertices}


def hop_distances_all(g: RefGraph) -> np.ndarray:
    """All-pairs hop distances (scipy BFS), dist[i, j] from vertex i to j; inf if unreachable."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path
    index = {v: i for i, v in enumerate(g.vertices)}
    n = len(g.vertices)
    arcs = [(index[u], index[v]) for u, v, _ in g.arcs() if u != v]
    if not arcs:
        d = np.full((n, n), INF)
        np.fill_diagonal(d, 0)
        return d
    r, c = zip(*arcs)
    m = csr_matrix((np.ones(len(arcs)), (r, c)), shape=(n, n))
    return shortest_path(m, directed=True, unweighted=True)


def oracle_radii(g: RefGraph, sources: list[int]) -> dict[int, float]:
    """For each vertex: max over the sources s that reach it of the hop distance; inf if none."""
    import networkx as nx
    G = g.nx()
    best = dict.fromkeys(g.vertices, INF)
    for s in sources:
        for v, d in nx.single_source_shortest_path_length(G, s).items():
            best[v] = d if best[v] == INF else max(best[v], d)
    return best


def first_mismatches(got: dict, want: dict, close=None, limit: int = 5) -> list[str]:
    """Human-readable differences between two id -> value maps."""
    problems = []
    if set(got) != set(want):
        extra = sorted(set(got) - set(want))[:limit]
        missing = sorted(set(want) - set(got))[:limit]
        problems.append(f"vertex sets differ: extra {extra}, missing {missing} "
                        f"({len(got)} vs {len(want)} vertices)")
        return problems
    for v in sorted(want):
        a, b = got[v], want[v]
        same = (a == b) if close is None else close(a, b)
        if not same:
            problems.append(f"vertex {v}: got {a}, expected {b}")
            if len(problems) >= limit:
                break
    return problems


def rel_close(tol: float):
    def close(a, b):
        if a == b:
            return True
        if math.isinf(a) or math.isinf(b):
            return False
        return abs(a - b) <= tol * max(1.0, abs(b))
    return close


def strictly_rel_close(tol: float):
    def close(a, b):
        if a == b:
            return True
        if math.isinf(a) or math.isinf(b):
            return False
        return abs(a - b) <= tol * abs(b)
    return close


NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")
