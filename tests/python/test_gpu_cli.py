"""tiergraph-gpu, the device engine's command line, on this machine: the device engine on Thrust's
OpenMP backend (--device gpu-host) answers as the CPU engine does and passes every verifier, on a
generated graph and on a shared dataset; the CPU engine runs through it too; and --device gpu
without a GPU (or without nvcc at build time) fails with a message that says what it looked for."""
import json
import subprocess
from pathlib import Path

import pytest

KERNELS = ["bfs", "sssp", "wcc", "pr", "radii", "bc", "tc", "lcc", "cdlp"]


@pytest.fixture(scope="module")
def gpu_bin(tg_bin) -> Path:
    path = Path(tg_bin).parent / "tiergraph-gpu"
    if not path.is_file():
        pytest.skip(f"{path} not built (no CCCL headers at configure time)")
    return path


def gpu_run(gpu_bin, *args, check=True):
    p = subprocess.run([str(gpu_bin), *map(str, args)], capture_output=True, text=True, timeout=300)
    if check:
        assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def kron(gpu_bin, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("gpu") / "k12.tg"
    gpu_run(gpu_bin, "generate", "-g", 12, "-s", "--weights", "int", "-o", path)
    return path


@pytest.mark.parametrize("kernel", KERNELS)
def test_gpu_host_agrees_with_the_cpu_engine_and_verifies(gpu_bin, kron, kernel):
    p = gpu_run(gpu_bin, "run", kernel, kron, "--device", "gpu-host", "-n", 2, "--against-cpu", "--verify", "-i", 10)
    report = json.loads(p.stdout.splitlines()[-1])
    assert report["kernel"] == kernel
    assert report["against_cpu"]["same"] is True
    assert all(t["verified"] for t in report["trials"]) and len(report["trials"]) == 2
    assert report["engine"]["backend"] == "gpu-host"
    assert report["engine"]["graph_bytes_on_device"] > 0
    # Per-pass figures for the last trial; WCC links in vertex functions and makes no edge pass.
    assert bool(report["trials"][-1]["passes"]) == (kernel != "wcc"), "per-pass figures for the last trial"


def test_a_shared_dataset_directed_graph(gpu_bin, tg, datasets_dir, tmp):
    # A real directed graph (WCC follows arcs both ways; PageRank has dangling vertices; the
    # triangle and gather passes merge a pair's arcs both ways into one entry).
    src = datasets_dir / "soc-Slashdot0902.txt.xz"
    if not src.is_file():
        pytest.skip(f"{src} missing")
    graph = tmp / "slashdot.tg"
    tg.convert(src, graph)
    for kernel in ["wcc", "pr", "bfs", "tc", "lcc", "cdlp"]:
        p = gpu_run(gpu_bin, "run", kernel, graph, "--device", "gpu-host", "--against-cpu", "--verify", "-i", 5)
        report = json.loads(p.stdout.splitlines()[-1])
        assert report["against_cpu"]["same"] and report["trials"][0]["verified"], (kernel, report)


def test_cpu_device_runs_the_cpu_engine(gpu_bin, kron):
    p = gpu_run(gpu_bin, "run", "bfs", kron, "--device", "cpu", "-n", 3, "--verify")
    report = json.loads(p.stdout.splitlines()[-1])
    assert report["engine"]["backend"] == "cpu" and len(report["trials"]) == 3
    assert len({t["source"] for t in report["trials"]}) == 3  # a new source each trial, as tiergraph run draws them


def test_gpu_without_a_gpu_says_what_it_looked_for(gpu_bin, kron):
    probe = subprocess.run(["nvidia-smi"], capture_output=True) if Path("/usr/bin/nvidia-smi").exists() else None
    if probe is not None and probe.returncode == 0:
        pytest.skip("this machine has a GPU")
    p = gpu_run(gpu_bin, "run", "bfs", kron, "--device", "gpu", check=False)
    assert p.returncode != 0 and p.stdout == ""
    assert "no usable GPU" in p.stderr or "built without its CUDA half" in p.stderr, p.stderr
    assert "gpu-host" in p.stderr  # and says what runs instead


def test_bad_kernel_and_device_are_refused(gpu_bin, kron):
    p = gpu_run(gpu_bin, "run", "louvain", kron, "--device", "gpu-host", check=False)
    assert p.returncode != 0 and "no kernel is called 'louvain'" in p.stderr
    p = gpu_run(gpu_bin, "run", "bfs", kron, "--device", "tpu", check=False)
    assert p.returncode != 0 and "tpu" in p.stderr
