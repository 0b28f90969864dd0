"""`plan --ranks N`: the vertex ranges MPI ranks would master (Gemini's chunking), checked against
a partition and a count of cut arcs and mirrors computed here from the edge list."""

from __future__ import annotations

import numpy as np
import pytest


def expected_partition(n, arcs, ranks, alpha):
    """The same rule, written plainly: close each range at the first multiple of 64 where the
    load so far reaches its share of alpha * n + |arcs|."""
    degree = np.bincount(arcs[:, 0], minlength=n)
    total = alpha * n + len(arcs)
    bounds, v, so_far = [0], 0, 0.0
    for r in range(ranks - 1):
        goal = total * (r + 1) / ranks
        while v < n and (so_far < goal or v % 64):
            so_far += alpha + degree[v]
            v += 1
        bounds.append(v)
    bounds.append(n)
    owner = np.searchsorted(np.array(bounds[1:-1]), np.arange(n), side="right")
    out = []
    for r in range(ranks):
        ru, rv = owner[arcs[:, 0]], owner[arcs[:, 1]]
        push = (ru == r) & (rv != r)
        pull = (rv == r) & (ru != r)
        mirrors = set(arcs[push, 1].tolist()) | set(arcs[pull, 0].tolist())
        out.append({"first": bounds[r], "end": bounds[r + 1], "arcs": int(degree[bounds[r]:bounds[r + 1]].sum()),
                    "cut_arcs": int(push.sum() + pull.sum()), "mirrors": len(mirrors)})
    return out


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("ranks", [1, 2, 4, 7])
def test_plan_ranks_matches_an_independent_partition(tg, tmp, directed, ranks):
    rng = np.random.default_rng(ranks)
    n = 3000
    # Skewed degrees: the early vertices hold most arcs, so equal vertex counts would not balance.
    src = (n * rng.random(40000) ** 3).astype(np.int64)
    dst = rng.integers(0, n, 40000)
    keep = src != dst
    pairs = np.unique(np.stack([src[keep], dst[keep]], axis=1), axis=0)
    (tmp / "g.el").write_text("".join(f"{u} {v}\n" for u, v in pairs.tolist()))
    tg.convert(tmp / "g.el", tmp / "g.tg", "--ids", "index", "--vertices", n, *([] if directed else ["-s"]))
    arcs = pairs if directed else np.unique(np.concatenate([pairs, pairs[:, ::-1]]), axis=0)
    plan = tg.run("plan", "bfs", tmp / "g.tg", "--ranks", ranks, "--json", check=True).json()["partition"]
    alpha = 8 * (ranks - 1)
    assert plan["alpha"] == alpha
    got = [{k: r[k] for k in ("first", "end", "arcs", "cut_arcs", "mirrors")} for r in plan["ranks"]]
    assert got == expected_partition(n, arcs, ranks, alpha)
    assert all(r["first"] % 64 == 0 for r in plan["ranks"])
    if ranks > 1:
        # Each range ends within one 64-vertex step of its goal: no rank is over the mean by more
        # than the heaviest step (and the heavy early vertices make the first ranges short).
        degree = np.bincount(arcs[:, 0], minlength=n)
        step = max(alpha * 64 + degree[k:k + 64].sum() for k in range(0, n, 64))
        mean = (alpha * n + len(arcs)) / ranks
        assert plan["imbalance"] <= 1 + step / mean
        assert plan["ranks"][0]["vertices"] < plan["ranks"][-1]["vertices"]


def test_pagerank_weighs_a_vertex_as_32_arcs_unless_gemini_says_more(tg, tmp):
    tg.run("generate", "-g", "12", "-o", tmp / "k.tg", check=True)
    for ranks in (2, 4, 6):
        for algorithm, alpha in (("pr", max(32, 8 * (ranks - 1))), ("bfs", 8 * (ranks - 1))):
            plan = tg.run("plan", algorithm, tmp / "k.tg", "--ranks", ranks, "--json", check=True).json()
            assert plan["partition"]["alpha"] == alpha, (algorithm, ranks)
    given = tg.run("plan", "pr", tmp / "k.tg", "--ranks", "2", "--partition-alpha", "3", "--json", check=True)
    assert given.json()["partition"]["alpha"] == 3


def test_plan_ranks_text_and_bad_values(tg, tmp):
    tg.run("generate", "-g", "10", "-o", tmp / "k.tg", check=True)
    res = tg.run("plan", "pr", tmp / "k.tg", "--ranks", "3", "--partition-alpha", "0", check=True)
    assert "Partition into 3 ranks (alpha 0" in res.stdout and res.stdout.count("[") == 3
    both = tg.run("plan", "pr", tmp / "k.tg", "--ranks", "2", "--far-ratio", "0.5", "--json", check=True).json()
    assert len(both["partition"]["ranks"]) == 2 and both["far"] == "file" and "local_blocks" in both
    for bad in (["--ranks", "0"], ["--ranks", "2", "--partition-alpha", "-1"]):
        res = tg.run("plan", "pr", tmp / "k.tg", *bad)
        assert res.returncode != 0 and res.error_lines()
    res = tg.run("plan", "pr", tmp / "k.tg")
    assert res.returncode == 1 and "--ranks N" in res.stderr
