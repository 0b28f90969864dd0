"""The block store and schedules as a user meets them: `run --schedule` and `--store copying` give
the in-memory answer on shared datasets, and `--json` reports each pass's schedule, why, and
the store's figures."""

from __future__ import annotations

import numpy as np
import pytest

from same_answer import assert_same_answer, convert_datasets

# Small shared datasets: directed and undirected, weighted (road) and not, and their formats.
DATASETS = ["tiny-karate.graph.xz", "email-Eu-core.txt.xz", "soc-wiki-Vote.txt.xz",
            "road-rome99.gr.xz", "tiny-lesmis.graph.xz"]
ALGORITHMS = ["bfs", "sssp", "wcc", "pr", "radii"]
WAYS = {
    "mapped-block": ("--schedule", "block"),
    "copying-block-reverse": ("--store", "copying", "--store-order", "reverse", "--store-buffers", "3",
                              "--store-depth", "2"),
    "copying-vertex": ("--store", "copying", "--schedule", "vertex", "--store-buffers", "64"),
    # Buffers of 512 bytes: most blocks are leased in pieces, two threads read them in turns.
    "copying-pieces": ("--store", "copying", "--store-buffer-bytes", "512", "--store-buffers", "3", "-t", "2"),
    # The file tier: O_DIRECT reads through io_uring, whole blocks and then 1 KiB pieces.
    "file": ("--store", "file", "--store-buffers", "4"),
    "file-pieces": ("--store", "file", "--store-buffer-bytes", "1K", "--store-buffers", "3", "-t", "2"),
}


@pytest.fixture(scope="module")
def graphs(tg, datasets_dir, tmp_path_factory):
    return convert_datasets(tg, datasets_dir, tmp_path_factory.mktemp("block-store"), DATASETS)


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_way_gives_the_in_memory_answer(tg, graphs, dataset, algorithm, tmp):
    graph = graphs[dataset]
    extra = []  # bfs and sssp: the same seeded source in every run
    if algorithm == "sssp" and not tg.info(graph)["weighted"]:
        extra.append("--unit-weights")
    reference = tmp / "reference.npy"
    tg.run("run", algorithm, graph, *extra, "-v", "-o", reference, check=True)
    expected = np.load(reference)
    for way, options in WAYS.items():
        out = tmp / f"{way}.npy"
        tg.run("run", algorithm, graph, *extra, *options, "-v", "-o", out, check=True)
        assert_same_answer(np.load(out), expected, algorithm, way)


def test_json_reports_schedule_and_store(tg, graphs):
    graph = graphs["soc-wiki-Vote.txt.xz"]
    report = tg.run("run", "pr", graph, "-i", "3", "--json", "--store", "copying", "--store-depth", "2",
                    check=True).json()
    assert report["store"]["name"] == "copying"
    assert report["store"]["max_in_flight"] <= 2
    passes = report["trials"][0]["iterations"]
    assert len(passes) == 3
    for p in passes:
        assert p["schedule"] == "block"  # auto picks block-major when the store fetches
        assert "fetches" in p["schedule_reason"]
        assert p["blocks_read"] + p["blocks_skipped"] == 16  # PageRank pulls one 4x4 grid
        assert p["bytes_fetched"] > 0 and p["requests"] == p["blocks_read"]
        assert p["overlap"] <= 1
    in_memory = tg.run("run", "pr", graph, "-i", "1", "--json", check=True).json()
    first = in_memory["trials"][0]["iterations"][0]
    assert first["schedule"] == "vertex" and "coarse" in first["schedule_reason"]  # a 4x4 grid
    assert first["bytes_fetched"] == 0


def test_auto_goes_block_major_in_memory_on_a_fine_grid(tg, graphs, tmp):
    fine = tmp / "fine.tg"
    tg.run("reblock", graphs["soc-wiki-Vote.txt.xz"], "--blocks", "16", "-o", fine, check=True)
    report = tg.run("run", "pr", fine, "-i", "1", "--json", check=True).json()
    first = report["trials"][0]["iterations"][0]
    assert report["store"]["name"] == "mapped"
    assert first["schedule"] == "block" and "fine" in first["schedule_reason"]


def test_vertex_major_over_a_small_pool_is_refused(tg, graphs):
    graph = graphs["soc-wiki-Vote.txt.xz"]
    res = tg.run("run", "bfs", graph, "--store", "copying", "--schedule", "vertex", "--store-buffers", "4")
    assert res.returncode == 1
    assert "needs 16 blocks" in res.stderr and "--schedule block" in res.stderr


@pytest.mark.parametrize("option, value", [("--store-buffers", "0"), ("--store-depth", "0"),
                                           ("--store-delay", "-1"), ("--store-delay", "nan"),
                                           ("--schedule", "diagonal"), ("--store", "tape")])
def test_impossible_store_options_are_refused(tg, graphs, option, value):
    res = tg.run("run", "bfs", graphs["tiny-karate.graph.xz"], "--store", "copying", option, value)
    assert res.returncode != 0
    assert option in res.stderr or value in res.stderr


def test_pieces_are_reported_and_bad_sizes_refused(tg, graphs):
    graph = graphs["email-Eu-core.txt.xz"]
    report = tg.run("run", "pr", graph, "-i", "2", "--json", "--store", "copying", "--store-buffer-bytes", "1K",
                    check=True).json()
    store = report["store"]
    assert store["buffer_bytes"] == 1024
    assert store["blocks_in_pieces"] > 0
    assert store["pieces_read"] > store["blocks_read"] > 0  # each cut block counts once, each piece too
    for bad in ["0", "12Q", "-4K", "K", "1.5.K"]:
        r = tg.run("run", "pr", graph, "--store", "copying", "--store-buffer-bytes", bad)
        assert r.returncode != 0 and "--store-buffer-bytes" in r.stderr, bad
    r = tg.run("run", "pr", graph, "--store", "copying", "--store-buffer-bytes", "32")
    assert r.returncode == 1 and "too small" in r.stderr
    r = tg.run("run", "pr", graph, "--store", "copying", "--store-buffer-bytes", "1K", "--store-buffers", "16",
               "--schedule", "vertex")
    assert r.returncode == 1 and "in pieces" in r.stderr
