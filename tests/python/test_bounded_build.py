"""The build in bounded memory (issue 35): `convert` and `generate` under --memory-budget spill
sorted runs to a scratch folder and merge them, and must write byte for byte the file the
in-memory build writes from the same input, keep their peak RSS within the budget plus the stated
64 MiB, leave no scratch behind however they end, and refuse what they cannot do before doing it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from checked_build import SANITIZED

RUNTIME = 64 << 20  # what the process's own image may take beyond the budget

# (dataset, options): every input format, directed and undirected, weighted (read and generated),
# label and index ids, kept self-loops and duplicates, a chosen grid. 16M of budget makes several
# runs of the larger ones (the report's "runs" says so).
CONVERSIONS = [
    ("soc-Slashdot0902.txt.xz", []),
    ("soc-Slashdot0902.txt.xz", ["-s", "--weights", "real"]),
    ("soc-Slashdot0902.txt.xz", ["--keep-self-loops", "--keep-duplicates", "--weights", "int"]),
    ("soc-Slashdot0902.txt.xz", ["--ids", "index", "--blocks", "4"]),
    ("web-cnr-2000.txt.xz", ["--blocks", "8"]),
    ("road-pace-NY.gr.xz", []),
    ("road-osm-bremen-dist.gr.xz", []),
    ("road-rome99.gr.xz", ["--keep-duplicates"]),
    ("road-cal.cedge.xz", []),
    ("infra-power-grid.graph.xz", []),
    ("soc-sign-bitcoinotc.csv.xz", ["--columns", "0,1,2"]),
    ("soc-github-musae.csv.xz", ["-s"]),
]
# Under the sanitizers a few rows cover every path of the build (runs, weights, labels, formats):
# the suite's time goes where a memory error could hide, not to more of the same.
if SANITIZED:
    CONVERSIONS = [CONVERSIONS[i] for i in (1, 2, 6, 9)]


def files_in(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("dataset,options", CONVERSIONS, ids=[f"{d}{''.join(o)}" for d, o in CONVERSIONS])
def test_bounded_convert_writes_the_in_memory_file(tg, datasets_dir, tmp, dataset, options):
    memory, bounded = tmp / "memory.tg", tmp / "bounded.tg"
    tg.convert(datasets_dir / dataset, memory, *options)
    scratch = tmp / "scratch"
    scratch.mkdir()
    report = tg.convert(datasets_dir / dataset, bounded, *options, "--memory-budget", "16M", "--scratch", scratch, "--json").json()
    assert report["memory_budget"] == 16 << 20 and report["runs"] >= 1
    assert memory.read_bytes() == bounded.read_bytes()
    assert files_in(scratch) == set()  # the runs had no names and are gone


def test_several_runs_merge_into_the_same_file(tg, datasets_dir, tmp):
    # web-cnr-2000 undirected at 16M: its 6.4 M arcs of 8 bytes fill the buffer several times, so
    # duplicates and both arcs of an edge meet only in the merge.
    report = tg.convert(datasets_dir / "web-cnr-2000.txt.xz", tmp / "b.tg", "-s", "--memory-budget", "16M", "--json").json()
    assert report["runs"] >= 3, report
    tg.convert(datasets_dir / "web-cnr-2000.txt.xz", tmp / "m.tg", "-s")
    assert (tmp / "m.tg").read_bytes() == (tmp / "b.tg").read_bytes()


def test_sparse_64_bit_labels(tg, tmp):
    # Labels anywhere in 0 .. 2^64-1 (both ends included), negative and integral weights: the
    # label map is the sorted distinct labels in both builds.
    rng = random.Random(3)
    labels = [rng.getrandbits(64) for _ in range(20000)] + [2**64 - 1, 0]
    text = tmp / "labels.txt"
    text.write_text("".join(f"{rng.choice(labels)} {rng.choice(labels)} {rng.randint(-5, 100)}\n" for _ in range(300000)))
    for options in ([], ["-s"]):
        tg.convert(text, tmp / "m.tg", *options, "--overwrite")
        report = tg.convert(text, tmp / "b.tg", *options, "--memory-budget", "16M", "--json", "--overwrite").json()
        assert report["runs"] >= 1
        assert (tmp / "m.tg").read_bytes() == (tmp / "b.tg").read_bytes(), options


@pytest.mark.parametrize("options", [["-s"], ["-s", "--weights", "real", "--blocks", "3"]] + ([] if SANITIZED else [[], ["--weights", "int"]]))
def test_bounded_generate_writes_the_in_memory_file(tg, tmp, options):
    tg.run("generate", "-g", "16", *options, "-o", tmp / "m.tg", check=True)
    report = tg.run("generate", "-g", "16", *options, "-o", tmp / "b.tg", "--memory-budget", "16M", "--json", check=True).json()
    assert report["runs"] >= (2 if "-s" in options else 1), report  # 2 M arcs do not fit 16M
    assert (tmp / "m.tg").read_bytes() == (tmp / "b.tg").read_bytes()


@pytest.mark.skipif(SANITIZED, reason="shadow memory is no part of the promise; the paths run in the other tests")
def test_peak_rss_holds_the_budget(tg, tmp):
    # Kronecker-19, undirected: about 16 M arcs, 100 MB of edges in memory; a 32M budget.
    report = tg.run("generate", "-g", "19", "-s", "-o", tmp / "b.tg", "--memory-budget", "32M", "--json", check=True).json()
    assert report["runs"] >= 4
    assert report["peak_rss_bytes"] <= (32 << 20) + RUNTIME, report
    tg.run("generate", "-g", "19", "-s", "-o", tmp / "m.tg", check=True)
    assert (tmp / "m.tg").read_bytes() == (tmp / "b.tg").read_bytes()


def test_the_generators_permutation_counts_against_the_budget(tg, tmp):
    # A Kronecker generator holds a permutation of its vertices (4 bytes each) while it draws;
    # uncounted, it took Kronecker-25's build 146 MiB over a 1 GiB budget (OOM-killed under the
    # cgroup limit in bench/scale.py). The sort buffer gets what the generator leaves.
    # (Kronecker-18 under the sanitizers, where 20 took a minute: its edges still spill.)
    budget, scale = 32 << 20, 18 if SANITIZED else 20
    report = tg.run("generate", "-g", scale, "-s", "-o", tmp / "b.tg", "--memory-budget", budget, "--json",
                    check=True).json()
    assert report["input_held_bytes"] >= 4 << scale, report
    assert report["scratch_bytes"] > 0, report
    assert report["spill_buffer_bytes"] + report["input_held_bytes"] == budget, report
    res = tg.run("generate", "-g", "22", "-s", "-o", tmp / "c.tg", "--memory-budget", "16M")
    assert res.returncode == 1 and "vertex permutation (4 bytes a vertex)" in res.stderr, res.stderr
    assert "give at least" in res.stderr and not (tmp / "c.tg").exists()


CGROUP = Path("/sys/fs/cgroup/memory")


@pytest.mark.skipif(SANITIZED, reason="shadow memory is no part of the promise")
def test_a_cgroup_limit_of_budget_plus_runtime_holds_the_build(tg, tg_bin, tmp):
    # The kernel's own count (page cache included) under a cgroup v1 limit of the budget plus
    # 64 MiB: the bounded build of Kronecker-19 (about 200 MiB in memory) passes. Without a
    # budget the build takes half of what the cgroup allows, as it says, and passes too.
    if os.geteuid() != 0 or not (CGROUP / "memory.limit_in_bytes").exists():
        pytest.skip("needs root and cgroup v1's memory controller")
    group = CGROUP / f"tiergraph-test-{os.getpid()}-{tmp.name}"
    group.mkdir()
    try:
        (group / "memory.limit_in_bytes").write_text(str((32 << 20) + RUNTIME))

        def limited(*args):
            cmd = ["sh", "-c", f'echo $$ > {group}/cgroup.procs; exec "$@"', "sh", str(tg_bin), *map(str, args)]
            return subprocess.run(cmd, capture_output=True, text=True, timeout=600)

        ok = limited("generate", "-g", "19", "-s", "-o", tmp / "b.tg", "--memory-budget", "32M")
        assert ok.returncode == 0, ok.stderr
        chosen = limited("generate", "-g", "19", "-s", "-o", tmp / "c.tg", "--json")
        assert chosen.returncode == 0, chosen.stderr
        assert "more than half of the memory this process may use; building within 48 MiB" in chosen.stderr, chosen.stderr
        assert '"memory_budget": 50331648' in chosen.stdout
        assert (tmp / "b.tg").read_bytes() == (tmp / "c.tg").read_bytes()
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def test_bad_input_leaves_no_output_and_no_scratch(tg, tmp):
    good = "".join(f"{i} {i + 1}\n" for i in range(200000))
    text = tmp / "bad.txt"
    text.write_text(good + "7 x\n")  # after several runs were spilled
    scratch = tmp / "scratch"
    scratch.mkdir()
    res = tg.run("convert", text, "-o", tmp / "out.tg", "--memory-budget", "16M", "--scratch", scratch)
    assert res.returncode != 0
    assert "bad.txt:200001:3" in res.stderr, res.stderr
    assert not (tmp / "out.tg").exists()
    assert files_in(scratch) == set()
    assert files_in(tmp) == {"bad.txt", "scratch"}


def test_interrupted_bounded_build_leaves_nothing(tg_bin, tmp):
    scratch = tmp / "scratch"
    scratch.mkdir()
    out = tmp / "out.tg"
    proc = subprocess.Popen([str(tg_bin), "-q", "generate", "-g", "22", "-s", "-o", str(out), "--memory-budget", "100M",
                             "--scratch", str(scratch)], stderr=subprocess.PIPE)
    time.sleep(1.5)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGINT
    assert files_in(scratch) == set()
    assert files_in(tmp) == {"scratch"}  # no output, no temporary output


@pytest.mark.parametrize("options,message", [
    (["--memory-budget", "1M"], "below the smallest the build takes"),
    (["--memory-budget", "-5"], "must be a size above 0"),
    (["--scratch", "/no/such/folder"], "is not a folder"),
])
def test_impossible_build_options_are_refused(tg, tmp, options, message):
    res = tg.run("generate", "-g", "10", "-o", tmp / "g.tg", *options)
    assert res.returncode != 0 and message in res.stderr, res.stderr
    assert not (tmp / "g.tg").exists()


def test_per_vertex_arrays_beyond_the_budget_are_refused_saying_what_would_fit(tg, tmp):
    # Index ids with a declared 2^30 vertices: 20 bytes a vertex is 20 GiB, beyond 16M.
    text = tmp / "few.txt"
    text.write_text("0 1\n1 2\n")
    res = tg.run("convert", text, "-o", tmp / "g.tg", "--ids", "index", "--vertices", str(1 << 30), "--memory-budget", "16M")
    assert res.returncode != 0
    assert "1073741824 vertices need 20 GiB" in res.stderr and "give --memory-budget" in res.stderr, res.stderr
    assert not (tmp / "g.tg").exists()


@pytest.mark.parametrize("make", [
    ["generate", "-g", "16", "-s"],
    ["generate", "-g", "15", "--weights", "real"],
    ["convert", "soc-sign-bitcoinotc.csv.xz", "--columns", "0,1,2"],  # sparse labels: an id map, negative weights
])
def test_bounded_reblock_writes_the_in_memory_file(tg, datasets_dir, tmp, make):
    graph = tmp / "g.tg"
    if make[0] == "convert":
        tg.convert(datasets_dir / make[1], graph, *make[2:])
    else:
        tg.run(*make, "-o", graph, check=True)
    tg.run("reblock", graph, "-o", tmp / "m.tg", "--blocks", "5", check=True)
    scratch = tmp / "scratch"
    scratch.mkdir()
    tg.run("reblock", graph, "-o", tmp / "b.tg", "--blocks", "5", "--memory-budget", "16M", "--scratch", scratch, check=True)
    assert (tmp / "m.tg").read_bytes() == (tmp / "b.tg").read_bytes()
    assert files_in(scratch) == set()
