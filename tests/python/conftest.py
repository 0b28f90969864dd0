"""Fixtures for the tiergraph CLI tests: the binary, the shared datasets, a scratch directory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def _binary_path() -> Path:
    env = os.environ.get("TG_BIN")
    return Path(env) if env else REPO / "build" / "tiergraph"


def _datasets_candidates() -> list[Path]:
    env = os.environ.get("TG_DATASETS_DIR")
    if env:
        return [Path(env)]
    return [REPO.parent / "shared" / "datasets", Path("/work/shared/datasets")]


class Result:
    def __init__(self, args, proc: subprocess.CompletedProcess):
        self.args = args
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def json(self):
        return json.loads(self.stdout)

    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("tiergraph: error:")]

    def __repr__(self):
        return f"<tiergraph {' '.join(map(str, self.args))} rc={self.returncode} stderr={self.stderr.strip()[-500:]!r}>"


class Tiergraph:
    """Runs the tiergraph binary (quiet, so stderr holds only errors)."""

    def __init__(self, binary: Path):
        self.binary = binary

    def run(self, *args, check: bool = False, timeout: float = 300, stdin: bytes | None = None) -> Result:
        argv = [str(self.binary), "-q", *map(str, args)]
        proc = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout)
        res = Result(args, subprocess.CompletedProcess(argv, proc.returncode,
                                                       proc.stdout.decode("utf-8", "replace"),
                                                       proc.stderr.decode("utf-8", "replace")))
        if check and res.returncode != 0:
            raise AssertionError(f"command failed: {res!r}")
        return res

    def convert(self, src, out, *opts, check: bool = True) -> Result:
        return self.run("convert", src, "-o", out, *opts, check=check)

    def info(self, graph, *opts, check: bool = True) -> dict | Result:
        res = self.run("info", graph, "--json", *opts, check=check)
        return res.json() if check else res


@pytest.fixture(scope="session", autouse=True)
def mpi_without_fabric_probes():
    # Open MPI's default PML selection first tries the cm PML, whose PSM and PSM2 MTLs probe
    # fabrics this machine lacks (it then picks ob1 over shared memory): 0.2 of an mpirun's
    # 0.31-0.36 s on 2 ranks, measured with an MPI_Init/Finalize program. The MPI tests start
    # about 500 jobs; test_dist.py and test_far_rank.py ran 117/108 s with the probe and 99/92 s
    # without (4 workers, 2 cores). The MTLs are excluded, not the cm PML: a variable replaces
    # the system file's value, and Debian's openmpi-mca-params.conf says `pml = ^ucx`
    # (`OMPI_MCA_pml=^cm` let the UCX PML in, and a rank crashed in UCX's signal handler) and
    # `mtl = ^ofi`, kept here. A test that names a PML or MTL on its command line overrides this,
    # as does an OMPI_MCA_mtl set by whoever runs the tests.
    if "OMPI_MCA_mtl" in os.environ:
        yield
        return
    os.environ["OMPI_MCA_mtl"] = "^ofi,psm,psm2"
    yield
    del os.environ["OMPI_MCA_mtl"]


@pytest.fixture(scope="session", autouse=True)
def mpi_session_dir_of_this_worker():
    # Every mpirun keeps its session files under <tmpdir>/ompi.<host>.<uid>, which it creates and,
    # when it is empty at the job's end, removes. Two test workers starting jobs at once raced on
    # it (Open MPI 4.1: "mkdir ... /tmp/ompi.vm.0: File exists", orte_init failed), so each worker
    # gives its jobs a directory of its own (short: the jobs' sockets live below it).
    if "OMPI_MCA_orte_tmpdir_base" in os.environ:
        yield
        return
    base = tempfile.mkdtemp(prefix="tg-ompi-")
    os.environ["OMPI_MCA_orte_tmpdir_base"] = base
    yield
    del os.environ["OMPI_MCA_orte_tmpdir_base"]
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def tg_bin() -> Path:
    path = _binary_path()
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.skip(f"tiergraph binary not found at {path} (build it, or set TG_BIN)")
    return path


@pytest.fixture(scope="session")
def tg(tg_bin) -> Tiergraph:
    return Tiergraph(tg_bin)


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    for candidate in _datasets_candidates():
        if candidate.is_dir():
            return candidate
    pytest.skip("no datasets directory: set TG_DATASETS_DIR or provide ../shared/datasets or "
                f"/work/shared/datasets (tried {', '.join(map(str, _datasets_candidates()))})")


@pytest.fixture
def tmp(tmp_path) -> Path:
    """A fresh scratch directory for one test."""
    return tmp_path
