"""The source folders form layers: a file includes only from its own folder and the folders below
it, so each layer builds and can be understood without those above. The order, lowest first, is
LAYERS; the fronts (the command line, tiergraph-gpu, the Python module) sit side by side on top
and include nothing from one another.

The includes that still go upward are listed in KNOWN_UPWARD with the move that removes them
(issue 36): the test fails on any other upward include, and on a listed one that is gone, so the
list can only shrink."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAYERS = ["util", "io", "graph", "store", "plan", "engine", "dist", "algorithms", "verify"]
FRONTS = ["cli", "gpu", "python"]

KNOWN_UPWARD = {
    # The kernel table (each kernel's driver, verifier and memory declaration) moves to src/run.
    ("src/algorithms/kernels.h", "verify/bfs.h"),
    ("src/algorithms/kernels.h", "verify/pagerank.h"),
    ("src/algorithms/kernels.h", "verify/radii.h"),
    ("src/algorithms/kernels.h", "verify/sssp.h"),
    ("src/algorithms/kernels.h", "verify/wcc.h"),
    # TG_HOST_DEVICE moves below the graph (util), where the block decoder can take it.
    ("src/graph/block_decoder.h", "engine/device.h"),
    # The MPI runtime and communicators move out of dist/ into src/mpi, below the store.
    ("src/store/far_rank.cc", "dist/communicators.h"),
    ("src/store/far_rank.cc", "dist/mpi_runtime.h"),
    ("src/store/rank_transfer.cc", "dist/communicators.h"),
    ("src/store/rank_transfer.cc", "dist/mpi_runtime.h"),
    ("src/store/far_rank_store.cc", "dist/communicators.h"),
    # The fetch profile is the store's measurement: it moves into store/.
    ("src/store/file_calibration.h", "plan/fetch_profile.h"),
    # The run library (src/run) becomes what Python and the command line share.
    ("python/src/module.cc", "cli/commands.h"),
    ("python/src/module.cc", "cli/options.h"),
    ("python/src/module.cc", "cli/run_algorithm.h"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(folder: str) -> int:
    return LAYERS.index(folder) if folder in LAYERS else len(LAYERS)


def source_files():
    for path in sorted((REPO / "src").rglob("*")):
        if path.suffix in (".h", ".cc", ".cu", ".inc"):
            yield path, path.relative_to(REPO / "src").parts[0]
    for path in sorted((REPO / "python" / "src").rglob("*")):
        if path.suffix in (".h", ".cc"):
            yield path, "python"


def upward_includes():
    found = set()
    for path, folder in source_files():
        for included in INCLUDE.findall(path.read_text()):
            target = included.split("/")[0]
            if target not in LAYERS and target not in FRONTS:
                continue  # a file beside it ("x.h") or a system header
            upward = layer_of(target) > layer_of(folder) or (target in FRONTS and target != folder)
            if upward:
                found.add((str(path.relative_to(REPO)), included))
    return found


def test_every_source_folder_has_a_layer():
    folders = {p.name for p in (REPO / "src").iterdir() if p.is_dir()}
    assert folders <= set(LAYERS) | set(FRONTS), f"place {sorted(folders - set(LAYERS) - set(FRONTS))} in LAYERS"


def test_no_include_goes_up_a_layer():
    new = upward_includes() - KNOWN_UPWARD
    assert not new, "includes from a higher layer (see LAYERS): " + ", ".join(f"{a} -> {b}" for a, b in sorted(new))


def test_the_known_upward_includes_are_still_there():
    gone = KNOWN_UPWARD - upward_includes()
    assert not gone, "no longer upward, take them off KNOWN_UPWARD: " + ", ".join(f"{a} -> {b}" for a, b in sorted(gone))


def test_the_check_sees_an_upward_include():
    """The pattern and the order catch a real upward include (the check cannot pass by reading nothing)."""
    assert INCLUDE.findall('#include "engine/engine.h"\n  #  include "cli/run.h"\n#include <vector>\n') == [
        "engine/engine.h", "cli/run.h"]
    assert layer_of("cli") > layer_of("engine") > layer_of("store") > layer_of("util")
    assert upward_includes() >= {("src/store/far_rank.cc", "dist/mpi_runtime.h")}
