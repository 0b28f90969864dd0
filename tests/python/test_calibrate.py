"""`tiergraph calibrate` as a user meets it: it measures the file tier on a scratch file (and the
rank tier under mpirun, in test_far_rank.py), writes a profile that `plan` and `run` read with
`--profile`, leaves nothing behind, replaces no file, and refuses bad profiles with the reason."""

from __future__ import annotations

import json

import numpy as np
import pytest

from same_answer import assert_same_answer

QUICK = ("--size", "8M", "--seconds", "0.02", "--max-threads", "2")


@pytest.fixture(scope="module")
def profile(tg, tmp_path_factory):
    where = tmp_path_factory.mktemp("calibrate")
    path = where / "profile.json"
    res = tg.run("calibrate", "--dir", where, *QUICK, "-o", path)
    assert res.returncode == 0, res
    assert sorted(p.name for p in where.iterdir()) == ["profile.json"]  # the scratch file is gone
    return path


@pytest.fixture(scope="module")
def graph(tg, tmp_path_factory):
    path = tmp_path_factory.mktemp("calibrate-graph") / "kron.tg"
    tg.run("generate", "-g", "14", "-s", "--blocks", "4", "-o", path, check=True)
    return path


def test_the_profile_holds_every_measurement_and_its_choice(profile):
    p = json.loads(profile.read_text())
    assert p["format"] == "tiergraph-fetch-profile"
    file = p["tiers"]["file"]
    single = [x for x in file["points"] if x["threads"] == 1]
    # 4 KiB .. 4 MiB (16 MiB does not fit an 8 MiB file) x depths 1, 2, 4, 8, 16
    assert sorted({x["chunk_bytes"] for x in single}) == [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]
    assert sorted({x["depth"] for x in single}) == [1, 2, 4, 8, 16]
    assert all(x["bytes_per_second"] > 0 and x["latency_seconds"] > 0 and x["requests"] > 0 for x in file["points"])
    chosen = file["chosen"]
    assert any(x["chunk_bytes"] == chosen["chunk_bytes"] and x["depth"] == chosen["depth"] for x in single)
    assert chosen["smallest_chunk_bytes"] <= chosen["chunk_bytes"]
    best = max(x["bytes_per_second"] for x in single)
    at_chunk = max(x["bytes_per_second"] for x in single if x["chunk_bytes"] == chosen["chunk_bytes"])
    assert at_chunk >= 0.9 * best
    assert [x["threads"] for x in file["points"] if x["threads"] > 1] == [2]


def test_plan_and_run_read_the_profile(tg, profile, graph, tmp):
    chosen = json.loads(profile.read_text())["tiers"]["file"]["chosen"]
    plan = tg.run("plan", "bfs", graph, "--far-ratio", "0.5", "--profile", profile, "--json", check=True).json()
    assert plan["profile"] == str(profile)
    assert plan["chunk_bytes"] == chosen["chunk_bytes"] and plan["depth"] == chosen["depth"]
    words = tg.run("plan", "bfs", graph, "--far-ratio", "0.5", "--profile", profile, check=True).stdout
    assert f"({profile} profile)" in words
    default = tg.run("plan", "bfs", graph, "--far-ratio", "0.5", "--json", check=True).json()
    assert default["profile"] == "default"
    want, out = tmp / "local.npy", tmp / "far.npy"
    tg.run("run", "bfs", graph, "-o", want, check=True)
    report = tg.run("run", "bfs", graph, "--far-ratio", "0.5", "--profile", profile, "-o", out, "--json",
                    check=True).json()
    assert report["plan"]["profile"] == str(profile)
    assert_same_answer(np.load(out), np.load(want), "bfs")


def test_an_existing_output_is_not_replaced(tg, tmp):
    out = tmp / "mine.json"
    out.write_text("keep me")
    res = tg.run("calibrate", "--dir", tmp, *QUICK, "-o", out)
    assert res.returncode == 1 and any("exists" in line for line in res.error_lines()), res
    assert out.read_text() == "keep me"


@pytest.mark.parametrize("content,message", [
    ("{not json", "not JSON"),
    ('{"format": "other"}', "not a fetch profile"),
    ('{"format": "tiergraph-fetch-profile", "tiers": {"rank": {}}}', "no measurements of the file tier"),
])
def test_bad_profiles_are_refused(tg, graph, tmp, content, message):
    bad = tmp / "bad.json"
    bad.write_text(content)
    res = tg.run("plan", "bfs", graph, "--far-ratio", "0.5", "--profile", bad)
    assert res.returncode == 1 and any(message in line and str(bad) in line for line in res.error_lines()), res


def test_profile_options_that_cannot_work_are_refused(tg, profile, graph, tmp):
    alone = tg.run("run", "bfs", graph, "--profile", profile)
    assert alone.returncode == 1 and any("under a budget" in line for line in alone.error_lines()), alone
    numa = tg.run("plan", "bfs", graph, "--far-ratio", "0.5", "--far", "numa", "--profile", profile)
    assert numa.returncode == 1 and any("fetches nothing" in line for line in numa.error_lines()), numa
    small = tg.run("calibrate", "--dir", tmp, "--size", "1K")
    assert small.returncode == 1 and any("at least 4K" in line for line in small.error_lines()), small
    both = tg.run("calibrate", "--dir", tmp, "--file", profile)
    assert both.returncode == 1, both
    misplaced = tg.run("calibrate", "--far", "rank", "--dir", tmp, *QUICK)
    assert misplaced.returncode == 1 and any("--far rank reads a window" in line for line in misplaced.error_lines())
    rank = tg.run("calibrate", "--far", "rank", *QUICK)
    assert rank.returncode == 1 and any("mpirun -np 2" in line for line in rank.error_lines()), rank
