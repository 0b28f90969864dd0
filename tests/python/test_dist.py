"""Distributed execution: `mpirun -np N tiergraph run ...` runs every algorithm on N ranks, each
mastering a vertex range, and rank 0 writes what one rank would have written (integers bitwise,
PageRank within 1e-9 L1), directed and undirected, weighted and not, pushing and pulling, with
updates exchanged collectively (MPI_Alltoallv), through one-sided rings (MPI_Put batches) or by
remote atomics (MPI_Accumulate), the last two also checked on UCX over TCP (doubles summed
remotely, batches framed with their header written last) and with each push pass sent in slices
while the ranks compute, ranks that run dry stealing their peers' slices. The report has each rank's figures; a rank that
dies ends the job within 30 s; ranks that opened different graph files are stopped at the start."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time

import numpy as np
import pytest

from checked_build import SANITIZED, first_under_sanitizers
from same_answer import assert_same_answer, convert_datasets

MPIRUN = shutil.which("mpirun")
pytestmark = pytest.mark.skipif(MPIRUN is None, reason="Open MPI is not installed (scripts/setup.sh installs it)")

DATASETS = ["email-Eu-core.txt.xz", "road-rome99.gr.xz", "tiny-lesmis.graph.xz"]
ALGORITHMS = ["bfs", "sssp", "wcc", "pr", "radii", "bc"]
EXCHANGES = ["collective", "ring", "accumulate"]
SHARED_MEMORY = ("--mca", "osc", "sm")
UCX_TCP = ("--mca", "pml", "ucx", "--mca", "osc", "ucx", "--mca", "opal_common_ucx_tls", "any",
           "--mca", "opal_common_ucx_devices", "any", "-x", "UCX_TLS=tcp")
# With UCX's self transport a rank's reads of its own window complete without progressing TCP: a
# ring that polled only so never saw its batches arrive (it hung).
UCX_TCP_SELF = UCX_TCP[:-1] + ("UCX_TLS=tcp,self",)
# The sanitized build (several times slower) runs the matrix on two graphs, in auto direction.
MATRIX_GRAPHS = ["road-rome99.gr.xz", "kron-directed"] if SANITIZED else DATASETS + ["kron-directed", "kron-undirected"]


def mpirun_argv(tg_bin, ranks, *args):
    return [MPIRUN, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(ranks), "-x",
            "ASAN_OPTIONS", str(tg_bin), "-q", *map(str, args)]


def mpirun(tg_bin, ranks, *args, transport=(), timeout=300):
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"  # MPI's own allocations
    argv = mpirun_argv(tg_bin, ranks, *args)
    argv[1:1] = transport
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def graphs(tg, datasets_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dist")
    out = convert_datasets(tg, datasets_dir, folder, DATASETS)
    # Kronecker graphs: skewed degrees, many cut edges; weighted directed and unweighted undirected.
    for name, opts in {"kron-directed": ["--weights", "int"], "kron-undirected": ["-s"]}.items():
        path = folder / f"{name}.tg"
        tg.run("generate", "-g", "12", "--seed", "5", "--blocks", "2", *opts, "-o", path, check=True)
        out[name] = path
    return out


def options_for(tg, graph, algorithm):
    extra = ["-r", "1"] if algorithm in ("bfs", "sssp") else []
    if algorithm == "sssp" and not tg.info(graph)["weighted"]:
        extra.append("--unit-weights")
    return extra


@pytest.mark.parametrize("dataset", MATRIX_GRAPHS)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_on_ranks_gives_the_one_rank_answer(tg, tg_bin, graphs, dataset, algorithm, tmp):
    graph = graphs[dataset]
    extra = options_for(tg, graph, algorithm)
    reference = tmp / "reference.npy"
    tg.run("run", algorithm, graph, *extra, "-o", reference, check=True)
    want = np.load(reference)
    directions = ["auto", "push", "pull"] if dataset.startswith("kron") and not SANITIZED else ["auto"]
    for ranks in (1, 2, 4):
        # One rank under mpirun is a plain run (test_one_rank_under_mpirun_is_a_plain_run): it
        # has no exchange, so it runs once per direction.
        for exchange in EXCHANGES[:1] if ranks == 1 else EXCHANGES:
            for direction in directions:
                out = tmp / f"ranks{ranks}-{exchange}-{direction}.npy"
                res = mpirun(tg_bin, ranks, "run", algorithm, graph, *extra, "--direction", direction,
                             "--exchange", exchange, "-v", "-o", out)
                assert res.returncode == 0, res.stderr
                assert "Verification: PASS" in res.stdout
                assert_same_answer(np.load(out), want, algorithm, f"{ranks} ranks, {exchange}, {direction}")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_ranks_read_a_fine_grid_block_major_with_the_one_rank_answer(tg, tg_bin, tmp, algorithm):
    # On an 8x8 grid over the mapped file auto is block-major on ranks as in one process (each
    # block's targets stay in cache); a rank's tasks are the blocks of its own rows.
    graph = tmp / "fine.tg"
    tg.run("generate", "-g", "12", "--seed", "5", "--weights", "int", "--blocks", "8", "-o", graph, check=True)
    extra = options_for(tg, graph, algorithm)
    reference = tmp / "reference.npy"
    tg.run("run", algorithm, graph, *extra, "-o", reference, check=True)
    for ranks, exchange in ((2, "collective"), (4, "ring"), (2, "accumulate")):
        out = tmp / f"ranks{ranks}-{exchange}.npy"
        res = mpirun(tg_bin, ranks, "run", algorithm, graph, *extra, "--exchange", exchange, "--json", "-o", out)
        assert res.returncode == 0, res.stderr
        assert_same_answer(np.load(out), np.load(reference), algorithm, f"{ranks} ranks, {exchange}")
        passes = tg_json(res.stdout)["trials"][0]["iterations"]
        edge_passes = [p for p in passes if p["frontier_edges"] > 0]
        if algorithm == "wcc":  # Afforest links in vertex functions: no edge pass
            assert not passes
            continue
        assert edge_passes and all(p["schedule"] == "block" for p in edge_passes), [p["schedule"] for p in passes]


# The passes that build lists from a rank's rows: label propagation's gather pass (each round's
# labels gathered whole on every rank) and the triangle pass of tc and lcc (each rank's masters'
# degree-ordered lists passed round the ranks); no exchange or direction enters them. Over the
# mapped file, a fine grid read block by block, and a copying store of two buffers a rank;
# directed graphs (arcs both ways between a pair, one list entry) and undirected, ranked by
# degree (Kronecker) and not (the road).
@pytest.mark.parametrize("dataset", MATRIX_GRAPHS + ["fine"])
@pytest.mark.parametrize("algorithm", ["tc", "lcc", "cdlp"])
def test_list_building_kernels_on_ranks_give_the_one_rank_answer(tg, tg_bin, graphs, dataset, algorithm, tmp):
    graph = graphs.get(dataset)
    if dataset == "fine":
        graph = tmp / "fine.tg"
        tg.run("generate", "-g", "12", "--seed", "5", "--blocks", "8", "-o", graph, check=True)
    reference = tmp / "reference.npy"
    tg.run("run", algorithm, graph, "-o", reference, check=True)
    want = np.load(reference)
    if algorithm == "cdlp":
        assert len(np.unique(want["value"])) < len(want), "some labels spread"
    else:
        assert np.count_nonzero(want["value"]) > 0, "some vertex is on a triangle"
    copying = ["--store", "copying", "--store-buffers", "2"]
    for ranks, store in ((1, []), (2, copying), (4, []), (4, copying)):
        out = tmp / f"ranks{ranks}-{len(store)}.npy"
        res = mpirun(tg_bin, ranks, "run", algorithm, graph, "-v", "-o", out, *store)
        assert res.returncode == 0, res.stderr
        assert "Verification: PASS" in res.stdout
        assert_same_answer(np.load(out), want, algorithm, f"{ranks} ranks {store}")


# Under the sanitizers only shared memory: the UCX rows test Open MPI's transports (the slowest
# rows of the suite, minutes each under ASan), and tiergraph's own code runs the same on all three.
TRANSPORTS = [SHARED_MEMORY] if SANITIZED else [SHARED_MEMORY, UCX_TCP, UCX_TCP_SELF]


@pytest.mark.parametrize("exchange", ["accumulate", "ring"])
@pytest.mark.parametrize("transport", TRANSPORTS, ids=["shared-memory", "ucx-tcp", "ucx-tcp-self"][:len(TRANSPORTS)])
def test_one_sided_exchanges_add_up_on_every_transport(tg, tg_bin, graphs, tmp, transport, exchange):
    # PageRank pushed across ranks with --exchange accumulate is MPI_Accumulate(MPI_SUM) on
    # MPI_DOUBLE into the owners' windows (UCX once added doubles' bit patterns as integers); with
    # --exchange ring it is batches put into rings, small ones here so that rings fill and wrap.
    graph = graphs["kron-directed"]
    reference = tmp / "reference.npy"
    tg.run("run", "pr", graph, "-i", "10", "-o", reference, check=True)
    out = tmp / "accumulated.npy"
    res = mpirun(tg_bin, 2, "run", "pr", graph, "-i", "10", "--direction", "push", "--exchange", exchange,
                 "--ring-batch", "8", "-o", out, transport=transport, timeout=90)  # a hang fails in 90 s
    if transport != SHARED_MEMORY and res.returncode != 0 and "ucx" in res.stderr.lower() and "not" in res.stderr.lower():
        pytest.skip(f"UCX is not available here: {res.stderr.splitlines()[0]}")
    assert res.returncode == 0, res.stderr
    assert_same_answer(np.load(out), np.load(reference), "pr", str(transport))


@pytest.mark.parametrize("exchange", ["collective", "ring", "accumulate"])
@pytest.mark.parametrize("algorithm", ["pr", "sssp", "radii"])
def test_a_small_exchange_memory_makes_rounds_not_another_answer(tg, tg_bin, graphs, tmp, algorithm, exchange):
    # 4 KiB holds 64 records a peer per collective round, two ring slots of 27 records a peer
    # (with 4 ranks), or 512 staged values (1024 of SSSP's 4-byte distances) an accumulate epoch:
    # every push pass here needs many rounds, waits for full rings to clear, or opens more epochs.
    graph = graphs["kron-directed"]
    extra = ["-i", "5"] if algorithm == "pr" else options_for(tg, graph, algorithm)
    reference = tmp / "reference.npy"
    tg.run("run", algorithm, graph, *extra, "-o", reference, check=True)
    out = tmp / "rounds.npy"
    ranks = 2 if exchange == "collective" else 4
    res = mpirun(tg_bin, ranks, "run", algorithm, graph, *extra, "--direction", "push", "--exchange", exchange,
                 "--exchange-memory", "4K", "--json", "-o", out)
    assert res.returncode == 0, res.stderr
    assert_same_answer(np.load(out), np.load(reference), algorithm)
    reports = tg_json(res.stdout)["trials"][0]["ranks"]
    assert all(0 < r["communication_buffer_peak_bytes"] <= 4096 for r in reports), reports
    messages = sum(p["messages"] for r in reports for p in r["passes"])
    assert messages > 2 * len(reports[0]["passes"])  # more than one round, or batch, somewhere
    if exchange == "ring":
        assert all(r["ring"]["slots"] == 2 and r["ring"]["bytes"] <= 4096 for r in reports), reports
        # Some rank sent more batches than its rings have slots: a ring wrapped, its slots cleared.
        assert max(r["ring"]["batches"] for r in reports) > 2 * (len(reports) - 1), reports
    if exchange == "accumulate":
        # PageRank's and radii's 8-byte values: some pass had more mirrors than an epoch stages
        # (SSSP's 4-byte ones fit), and those waited for a later epoch once the staging was full.
        # The windows (a value and a bit per master) are vertex state, reported apart from the bound.
        held = [sum(p["updates_held"] for p in r["passes"]) for r in reports]
        assert (sum(held) > 0) == (algorithm != "sssp"), held
        assert all(r["communication_buffer_peak_bytes"] == 4096 for r, h in zip(reports, held) if h), reports
        assert all(r["inbox_window_bytes"] >= 4 * r["masters"] for r in reports), reports


@pytest.mark.parametrize("steal", [False, True], ids=["own-slices", "stealing"])
@pytest.mark.parametrize("exchange", ["ring", "accumulate"])
@pytest.mark.parametrize("dataset", first_under_sanitizers(["kron-directed", "kron-undirected"]))
def test_passes_sent_in_slices_give_the_one_rank_answer(tg, tg_bin, graphs, tmp, dataset, exchange, steal):
    # --slices 7: each push pass's updates leave in 7 slices, while the ranks still compute; a
    # mirror that a later slice improves is sent again, so the owners end with what one rank has.
    # --steal: a rank that ran out of slices pushes a peer's, from the values the peer published.
    graph = graphs[dataset]
    stolen = 0
    for algorithm in ALGORITHMS:
        extra = options_for(tg, graph, algorithm) + (["-i", "10"] if algorithm == "pr" else [])
        reference = tmp / f"{algorithm}-reference.npy"
        tg.run("run", algorithm, graph, *extra, "-o", reference, check=True)
        for ranks in (2, 4):
            out = tmp / f"{algorithm}-{ranks}.npy"
            res = mpirun(tg_bin, ranks, "run", algorithm, graph, *extra, "--direction", "push", "--exchange", exchange,
                         "--slices", "7", *(["--steal"] if steal else []), "--json", "-o", out)
            assert res.returncode == 0, res.stderr
            assert_same_answer(np.load(out), np.load(reference), algorithm, f"{ranks} ranks, {exchange}, 7 slices")
            report = tg_json(res.stdout)
            assert report["slices"] == 7 and report["steal"] == steal
            passes = [p for r in report["trials"][0]["ranks"] for p in r["passes"]]
            sent = sum(p["updates_sent"] for p in passes)
            early = sum(p["updates_sent_early"] for p in passes)
            if algorithm == "wcc":
                # Afforest links in vertex functions and makes no edge pass: nothing to slice.
                assert not passes
                continue
            assert sent > 0, algorithm
            # Updates left while later slices were still to be computed: the overlap happened.
            assert 0 < early < sent, (algorithm, early, sent)
            stolen += sum(p["slices_stolen"] for p in passes)
    # Ranks finish their own slices at different times (4 ranks share 2 cores here): somewhere
    # in 10 runs a rank ran dry while a peer had slices left, and took some.
    assert (stolen > 0) == steal, stolen


@pytest.mark.parametrize("algorithm", ["bfs", "pr", "sssp"])
def test_slices_and_stealing_keep_to_the_exchange_memory(tg, tg_bin, graphs, tmp, algorithm):
    # 64K per rank: the task board gets 8K (about 500 sources; a larger frontier publishes only
    # its last slices), a stolen slice as much, BFS's list of mirrors sent 8K (about 500; the
    # rest of a pass's mirrors leave at its end), the rings the rest.
    graph = graphs["kron-directed"]
    extra = ["-i", "5"] if algorithm == "pr" else options_for(tg, graph, algorithm)
    reference = tmp / "reference.npy"
    tg.run("run", algorithm, graph, *extra, "-o", reference, check=True)
    out = tmp / "bounded.npy"
    res = mpirun(tg_bin, 4, "run", algorithm, graph, *extra, "--direction", "push", "--exchange", "ring", "--slices", "16",
                 "--steal", "--exchange-memory", "64K", "--json", "-o", out)
    assert res.returncode == 0, res.stderr
    assert_same_answer(np.load(out), np.load(reference), algorithm)
    reports = tg_json(res.stdout)["trials"][0]["ranks"]
    assert all(0 < r["communication_buffer_peak_bytes"] <= 65536 for r in reports), reports
    # BFS's list of mirrors sent was full in some pass (the bound was what held it), and nothing
    # else holds mirrors back.
    held = sum(p["updates_held"] for r in reports for p in r["passes"])
    assert (held > 0) == (algorithm == "bfs"), held
    tiny = mpirun(tg_bin, 2, "run", algorithm, graph, *extra, "--exchange", "ring", "--slices", "4096", "--steal",
                  "--exchange-memory", "64K")
    assert tiny.returncode != 0 and "needs a larger --exchange-memory" in tiny.stderr, tiny.stderr


@pytest.mark.parametrize("exchange", ["collective", "ring:slices=7", "accumulate:slices=7:steal"])
def test_pagerank_gathers_and_steps_in_one_pass_per_iteration_on_ranks(tg, tg_bin, graphs, tmp, exchange):
    # Each iteration is one gather_then: an edge pass, then each rank's step over its masters
    # (which one process runs inside its pull). Pushed or pulled, with every exchange, the ranks
    # give one rank's answer, in one edge pass per iteration.
    graph = graphs["kron-directed"]
    mode, *settings = exchange.split(":")
    flags = ["--exchange", mode] + [f for s in settings for f in (["--steal"] if s == "steal" else ["--slices", s.split("=")[1]])]
    reference = tmp / "reference.npy"
    tg.run("run", "pr", graph, "-i", "5", "-o", reference, check=True)
    for ranks in (2, 4):
        for direction in ("push", "pull"):
            out = tmp / f"{ranks}-{direction}.npy"
            res = mpirun(tg_bin, ranks, "run", "pr", graph, "-i", "5", "--direction", direction, *flags, "--json", "-o", out)
            assert res.returncode == 0, res.stderr
            assert_same_answer(np.load(out), np.load(reference), "pr", f"{ranks} ranks, {direction}")
            report = tg_json(res.stdout)
            assert [len(r["passes"]) for r in report["trials"][0]["ranks"]] == [5] * ranks, direction
    # Converging on a tolerance: the ranks stop at one rank's iteration, one pass each.
    one = tg_json(tg.run("run", "pr", graph, "--tolerance", "1e-9", "--json", check=True).stdout)
    res = mpirun(tg_bin, 2, "run", "pr", graph, "--tolerance", "1e-9", "--direction", "push", *flags, "--json")
    assert res.returncode == 0, res.stderr
    many = tg_json(res.stdout)
    iterations = one["trials"][0]["summary"]["iterations"]
    assert many["trials"][0]["summary"]["iterations"] == iterations > 5
    assert len(one["trials"][0]["iterations"]) == iterations
    assert len(many["trials"][0]["ranks"][0]["passes"]) == iterations


def test_pagerank_in_float_on_ranks_gives_the_one_rank_answer(tg, tg_bin, graphs, tmp):
    # Float contributions round where doubles did not, and ranks add the sums in another order, so
    # the answers agree within float's rounding, not bit for bit; and float is what ran.
    graph = graphs["kron-directed"]
    one, double = tmp / "one.npy", tmp / "double.npy"
    tg.run("run", "pr", graph, "-i", "10", "--precision", "float", "-o", one, check=True)
    tg.run("run", "pr", graph, "-i", "10", "-o", double, check=True)
    assert 0 < np.abs(np.load(one)["value"] - np.load(double)["value"]).sum() < 1e-6
    for ranks, direction in ((2, "pull"), (4, "push")):
        out = tmp / f"{ranks}.npy"
        res = mpirun(tg_bin, ranks, "run", "pr", graph, "-i", "10", "--precision", "float", "--direction", direction,
                     "--verify", "-o", out)
        assert res.returncode == 0 and "Verification: PASS" in res.stdout, res.stderr
        assert np.abs(np.load(out)["value"] - np.load(one)["value"]).sum() < 1e-6, (ranks, direction)


def test_a_congested_ring_hurries_its_receiver_and_the_answer_stands(tg, tg_bin, graphs, tmp):
    # One record a batch and a hurried threshold of 1% of 64 slots: a sender's second unread batch
    # is hurried (receivers publish their clear count only every 40% of a ring otherwise).
    graph = graphs["kron-directed"]
    reference = tmp / "reference.npy"
    tg.run("run", "sssp", graph, "-r", "1", "-o", reference, check=True)
    out = tmp / "hurried.npy"
    res = mpirun(tg_bin, 4, "run", "sssp", graph, "-r", "1", "--direction", "push", "--exchange", "ring",
                 "--ring-batch", "1", "--ring-hurried", "0.01", "--json", "-o", out)
    assert res.returncode == 0, res.stderr
    assert_same_answer(np.load(out), np.load(reference), "sssp")
    reports = tg_json(res.stdout)["trials"][0]["ranks"]
    assert all(r["ring"]["batch_records"] == 1 for r in reports)
    assert sum(r["ring"]["hurried_batches"] for r in reports) > 0, reports
    assert sum(r["ring"]["clears_published"] for r in reports) > 0


@pytest.mark.parametrize("ranks", [2, 4])
def test_wcc_forest_merged_across_ranks_keeps_every_ranks_links(tg, tg_bin, graphs, tmp, ranks):
    # Afforest's links, made by each rank into its own replica and merged, join what one
    # process's links join: after the sample the giant tree is the same (as many vertices outside
    # it), and after the other arcs' links every component is whole (a pointer-wise minimum alone
    # drops the hooks two ranks made differently, and nothing would join them again).
    for dataset in ("kron-undirected", "kron-directed"):
        graph = graphs[dataset]
        one_out, many_out = tmp / f"{dataset}-one.npy", tmp / f"{dataset}-many.npy"
        one = tg.run("run", "wcc", graph, "--json", "-o", one_out, check=True).json()
        res = mpirun(tg_bin, ranks, "run", "wcc", graph, "--json", "-o", many_out)
        assert res.returncode == 0, res.stderr
        many = tg_json(res.stdout)
        assert many["trials"][0]["summary"] == one["trials"][0]["summary"], dataset
        assert 0 < one["trials"][0]["summary"]["outside_giant"] < one["vertices"] / 2, dataset
        assert_same_answer(np.load(many_out), np.load(one_out), "wcc", dataset)


def test_bfs_tree_on_ranks_is_a_bfs_tree(tg_bin, graphs, tmp):
    # Parents may differ from one rank's (any parent one level up will do); the verifier checks
    # the tree, and the depths must be the same.
    res = mpirun(tg_bin, 4, "run", "bfs", graphs["kron-undirected"], "-r", "1", "--parents", "-v")
    assert res.returncode == 0 and "Verification: PASS" in res.stdout, res.stderr


def test_the_report_has_each_ranks_figures(tg, tg_bin, graphs):
    graph = graphs["kron-undirected"]
    res = mpirun(tg_bin, 2, "run", "pr", graph, "-i", "5", "--json")
    assert res.returncode == 0, res.stderr
    report = tg_json(res.stdout)
    assert report["ranks"] == 2 and report["exchange"] == "collective"
    trial = report["trials"][0]
    ranks = trial["ranks"]
    assert [r["rank"] for r in ranks] == [0, 1]
    info = tg.info(graph)
    assert sum(r["masters"] for r in ranks) == info["vertices"]
    for r in ranks:
        # Five pull passes, each shipping this rank's source values to the other: at least its
        # masters' 8-byte contributions per pass.
        assert len(r["passes"]) == 5
        assert all(p["bytes_sent"] >= 8 * r["masters"] for p in r["passes"])
        assert r["bytes_sent"] >= sum(p["bytes_sent"] for p in r["passes"])
        assert r["communication_seconds"] > 0 and r["wait_seconds"] >= 0
        # Creating the arrays, the vertex passes' syncs and the result's gather: counted apart.
        assert 0 < r["communication_seconds_outside_edge_passes"] < r["communication_seconds"]
        assert r["peak_rss_bytes"] > 0
    assert trial["imbalance"] >= 1.0


def test_a_bfs_pull_on_ranks_ships_the_frontier_bitmap_not_source_values(tg_bin, graphs):
    # BFS's source value is the source's own id (kSourceIsVertex), so a pull pass needs only the
    # frontier's bitmap from the other ranks: an eighth of a byte per master, where shipping the
    # ids would send four bytes per master.
    res = mpirun(tg_bin, 2, "run", "bfs", graphs["kron-undirected"], "-r", "1", "--json")
    assert res.returncode == 0, res.stderr
    trial = tg_json(res.stdout)["trials"][0]
    pulls = [k for k, it in enumerate(trial["iterations"]) if it["direction"] == "pull"]
    assert pulls, trial["iterations"]
    for r in trial["ranks"]:
        assert len(r["passes"]) == len(trial["iterations"])
        for k in pulls:
            assert 0 < r["passes"][k]["bytes_sent"] < 4 * r["masters"], (k, r["passes"][k], r["masters"])


def tg_json(text):
    return json.loads(text)


def test_one_rank_under_mpirun_is_a_plain_run(tg_bin, graphs):
    res = mpirun(tg_bin, 1, "run", "bfs", graphs["kron-directed"], "-r", "1", "--json")
    assert res.returncode == 0, res.stderr
    assert "ranks" not in tg_json(res.stdout)


def test_what_ranks_cannot_do_yet_is_refused(tg_bin, graphs):
    graph = graphs["kron-directed"]
    for extra, words in ((["--exchange", "ring", "--ring-hurried", "0"], "--ring-hurried"),
                         (["--exchange", "ring", "--ring-batch", "0"], "--ring-batch"),
                         (["--store", "file", "--exchange", "ring", "--slices", "4", "--steal"], "--steal with --store file on MPI ranks"),
                         (["--exchange-memory", "1K"], "--exchange-memory must be at least 4K"),
                         (["--slices", "4"], "--slices 4 needs --exchange ring or accumulate"),
                         (["--exchange", "ring", "--slices", "0"], "--slices"),
                         (["--exchange", "ring", "--steal"], "--steal takes slices from other ranks")):
        res = mpirun(tg_bin, 2, "run", "bfs", graph, "-r", "1", *extra)
        assert res.returncode != 0 and words in res.stderr, (extra, res.stderr)


def test_ranks_with_different_graph_files_are_stopped_at_the_start(tg, tg_bin, graphs):
    a, b = graphs["kron-directed"], graphs["kron-undirected"]
    argv = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
            "-np", "1", str(tg_bin), "-q", "run", "bfs", str(a), "-r", "1", ":",
            "-np", "1", str(tg_bin), "-q", "run", "bfs", str(b), "-r", "1"]
    res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert res.returncode != 0
    assert "every rank must read the same file" in res.stderr, res.stderr
    assert f"rank 1 opened '{b}'" in res.stderr, res.stderr  # the rank whose file differs, and its file
    assert res.stderr.count("tiergraph: error:") == 1, res.stderr


def test_a_killed_rank_ends_the_job_within_30_seconds(tg, tg_bin, tmp):
    graph = tmp / "k16.tg"
    tg.run("generate", "-g", "16", "-o", graph, check=True)
    env = dict(os.environ)
    proc = subprocess.Popen(mpirun_argv(tg_bin, 2, "run", "pr", graph, "-i", "1000000"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        ranks = []
        deadline = time.time() + 60
        while len(ranks) < 2 and time.time() < deadline:  # the two ranks, children of mpirun
            time.sleep(0.5)
            found = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
            ranks = [int(p) for p in found]
        assert len(ranks) == 2, "the ranks did not start"
        time.sleep(2)  # well into the iterations
        assert proc.poll() is None, proc.communicate()
        os.kill(ranks[-1], signal.SIGKILL)
        killed = time.time()
        _, err = proc.communicate(timeout=30)
        assert time.time() - killed < 30
        assert proc.returncode != 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("ranks", [2, 4])
def test_an_error_every_rank_meets_at_the_start_is_told_once_without_an_abort(tg_bin, graphs, tmp, ranks):
    # Every rank checks the same options and opens the same file: they agree on the outcome, rank 0
    # tells it once, and every rank leaves normally (no MPI_Abort and its banner).
    graph = graphs["kron-directed"]
    for args, words in ((["bfs", graph, "-r", "1", "--exchange", "collective", "--slices", "3"], "--slices 3 needs"),
                        (["bfs", tmp / "no-such.tg"], "no such file"),
                        (["pr", graph, "-o", tmp / "no-such-folder" / "pr.npy"], "no-such-folder")):
        res = mpirun(tg_bin, ranks, "run", *args, timeout=120)
        assert res.returncode != 0, args
        assert words in res.stderr, (args, res.stderr)
        assert res.stderr.count("tiergraph: error:") == 1, (args, res.stderr)
        assert "MPI_ABORT" not in res.stderr, (args, res.stderr)
