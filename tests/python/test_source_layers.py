"""The source folders form layers: a file includes only from its own folder and the folders below
it, so each layer builds and can be understood without those above. LEVELS lists them lowest
first; folders on one level sit side by side (parsing graphs and talking MPI need nothing of each
other) and include nothing from one another. The engine's backends sit above what is
backend-neutral in engine/: engine/cpu and engine/cuda side by side, engine/mpi above the CPU
engine, which runs each rank's share of a pass.
The fronts (the command line, tiergraph-gpu, the Python module) are on top, side by side too.

The includes that still go upward are listed in KNOWN_UPWARD with the move that removes them
(issue 36): the test fails on any other upward include, and on a listed one that is gone, so the
list can only shrink."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LEVELS = [["util"], ["io"], ["graph"], ["ingest", "mpi"], ["store"], ["plan"], ["engine"],
          ["engine/cpu", "engine/cuda"], ["engine/mpi"], ["algorithms"], ["verify"],
          ["cli", "gpu", "python"]]
BACKENDS = ["engine/cpu", "engine/mpi", "engine/cuda"]

KNOWN_UPWARD = {
    # The kernel table (each kernel's driver, verifier and memory declaration) moves to src/run.
    ("src/algorithms/kernels.h", "verify/bfs.h"),
    ("src/algorithms/kernels.h", "verify/pagerank.h"),
    ("src/algorithms/kernels.h", "verify/radii.h"),
    ("src/algorithms/kernels.h", "verify/sssp.h"),
    ("src/algorithms/kernels.h", "verify/wcc.h"),
    # The run library (src/run) becomes what Python and the command line share.
    ("python/src/module.cc", "cli/commands.h"),
    ("python/src/module.cc", "cli/options.h"),
    ("python/src/module.cc", "cli/run_algorithm.h"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def level_of(folder: str) -> int:
    return next(i for i, level in enumerate(LEVELS) if folder in level)


def folder_of(relative: str) -> str | None:
    """The layer a path under src/ (or an include) belongs to: its folder, or its backend's."""
    parts = relative.split("/")
    if len(parts) > 2 and f"{parts[0]}/{parts[1]}" in BACKENDS:
        return f"{parts[0]}/{parts[1]}"
    return parts[0] if any(parts[0] in level for level in LEVELS) else None


def source_files():
    for path in sorted((REPO / "src").rglob("*")):
        if path.suffix in (".h", ".cc", ".cu", ".inc"):
            yield path, folder_of(str(path.relative_to(REPO / "src")))
    for path in sorted((REPO / "python" / "src").rglob("*")):
        if path.suffix in (".h", ".cc"):
            yield path, "python"


def upward_includes():
    found = set()
    for path, folder in source_files():
        for included in INCLUDE.findall(path.read_text()):
            target = folder_of(included)
            if target is None or target == folder:
                continue  # a file beside it ("x.h"), of its own layer, or a system header
            if level_of(target) >= level_of(folder):
                found.add((str(path.relative_to(REPO)), included))
    return found


def test_every_source_folder_has_a_layer():
    folders = {p.name for p in (REPO / "src").iterdir() if p.is_dir()}
    folders |= {f"engine/{p.name}" for p in (REPO / "src" / "engine").iterdir() if p.is_dir()}
    placed = {folder for level in LEVELS for folder in level}
    assert folders <= placed, f"place {sorted(folders - placed)} in LEVELS"


def test_no_include_goes_up_a_layer():
    new = upward_includes() - KNOWN_UPWARD
    assert not new, "includes from a higher layer (see LEVELS): " + ", ".join(f"{a} -> {b}" for a, b in sorted(new))


def test_the_known_upward_includes_are_still_there():
    gone = KNOWN_UPWARD - upward_includes()
    assert not gone, "no longer upward, take them off KNOWN_UPWARD: " + ", ".join(f"{a} -> {b}" for a, b in sorted(gone))


def test_the_check_sees_an_upward_include():
    """The pattern and the order catch a real upward include (the check cannot pass by reading nothing)."""
    assert INCLUDE.findall('#include "engine/cpu/engine.h"\n  #  include "cli/run.h"\n#include <vector>\n') == [
        "engine/cpu/engine.h", "cli/run.h"]
    assert level_of("cli") > level_of("engine/cpu") > level_of("engine") > level_of("store") > level_of("util")
    assert folder_of("engine/mpi/ring.h") == "engine/mpi" and folder_of("engine/program.h") == "engine"
    assert upward_includes() >= {("src/algorithms/kernels.h", "verify/bfs.h")}
