"""A tiergraph built without MPI (-DTG_WITH_MPI=OFF, as on a machine without Open MPI): it says so in
--version, runs every algorithm in one process with the full build's answers, and refuses what
needs other processes (--far rank, calibrate --far rank, a start under mpirun) with the reason,
a non-zero status and no output file.

The binary is TG_NOMPI_BIN (scripts/test.sh builds it in build/nompi); without it the module is
skipped. TG_BIN is the full build the answers are compared with."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import Tiergraph
from same_answer import assert_same_answer

NOMPI_BIN = os.environ.get("TG_NOMPI_BIN")
pytestmark = pytest.mark.skipif(not NOMPI_BIN, reason="no build without MPI given (set TG_NOMPI_BIN)")

ALGORITHMS = ["bfs", "sssp", "wcc", "pr", "radii"]
NO_MPI = "this build of tiergraph has no MPI"


@pytest.fixture(scope="module")
def nompi() -> Tiergraph:
    path = Path(NOMPI_BIN)
    assert path.is_file() and os.access(path, os.X_OK), f"TG_NOMPI_BIN={path} is not an executable"
    return Tiergraph(path)


@pytest.fixture(scope="module")
def graph(tg, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nompi") / "kron.tg"
    tg.run("generate", "-g", "11", "--weights", "int", "-o", path, check=True)
    return path


def test_version_names_the_components(nompi, tg):
    without = nompi.run("--version", check=True).stdout
    assert "MPI (ranks, --far rank): not built" in without, without
    full = tg.run("--version", check=True).stdout
    assert "MPI (ranks, --far rank): built" in full, full
    # The other two components are independent of MPI: the same in both builds.
    assert without.splitlines()[2:] == full.splitlines()[2:]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_gives_the_full_builds_answer(nompi, tg, graph, tmp_path, algorithm):
    got, expected = tmp_path / "nompi.npy", tmp_path / "full.npy"
    res = nompi.run("run", algorithm, graph, "--verify", "-o", got)
    assert res.returncode == 0, res
    tg.run("run", algorithm, graph, "-o", expected, check=True)
    assert_same_answer(np.load(got), np.load(expected), algorithm, "without MPI")


@pytest.mark.parametrize("command", [
    ["run", "bfs", "{graph}", "--far", "rank", "--far-ratio", "0.5", "-o", "{out}.tsv"],
    ["calibrate", "--far", "rank", "-o", "{out}.json"],
])
def test_a_far_rank_is_refused_with_the_reason(nompi, graph, tmp_path, command):
    res = nompi.run(*[a.format(graph=graph, out=tmp_path / "out") for a in command])
    assert res.returncode != 0, res
    assert NO_MPI in res.stderr and "--far rank" in res.stderr, res
    assert not list(tmp_path.iterdir())


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="Open MPI is not installed")
def test_a_start_under_mpirun_is_refused_on_every_rank(nompi, graph, tmp_path):
    out = tmp_path / "out.tsv"
    argv = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", "2",
            str(nompi.binary), "-q", "run", "bfs", str(graph), "-o", str(out)]
    res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert res.returncode != 0, res
    refusals = [line for line in res.stderr.splitlines() if NO_MPI in line]
    assert len(refusals) == 2, res.stderr
    assert all("started by mpirun as one of 2 processes" in line for line in refusals), refusals
    assert not out.exists()
