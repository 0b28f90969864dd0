"""The source folders form layers: a file includes only from its own folder and the folders below
it, so each layer builds and can be understood without those above. LEVELS lists them lowest
first; folders on one level sit side by side (parsing graphs and talking MPI need nothing of each
other) and include nothing from one another. The engine's backends sit above what is
backend-neutral in engine/: engine/cpu and engine/cuda side by side, engine/mpi above the CPU
engine, which runs each rank's share of a pass.
The fronts (the command line, tiergraph-gpu, the Python module) are on top, side by side too.

An upward include that must stay for a while goes into KNOWN_UPWARD with the move that will remove
it: the test fails on any other upward include, and on a listed one that is gone, so the list can
only shrink."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LEVELS = [["util"], ["io"], ["graph"], ["ingest", "mpi"], ["store"], ["plan"], ["engine"],
          ["engine/cpu", "engine/cuda"], ["engine/mpi"], ["algorithms"], ["verify"], ["run"],
          ["cli", "gpu", "python"]]
BACKENDS = ["engine/cpu", "engine/mpi", "engine/cuda"]

KNOWN_UPWARD: set[tuple[str, str]] = set()  # none left (issue 36 moved them all)

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
    """Each source file: its path under the repository, its layer, its text."""
    for path in sorted((REPO / "src").rglob("*")):
        if path.suffix in (".h", ".cc", ".cu", ".inc"):
            yield str(path.relative_to(REPO)), folder_of(str(path.relative_to(REPO / "src"))), path.read_text()
    for path in sorted((REPO / "python" / "src").rglob("*")):
        if path.suffix in (".h", ".cc"):
            yield str(path.relative_to(REPO)), "python", path.read_text()


def upward_includes(files=None):
    found = set()
    for path, folder, text in files if files is not None else source_files():
        for included in INCLUDE.findall(text):
            target = folder_of(included)
            if target is None or target == folder:
                continue  # a file beside it ("x.h"), of its own layer, or a system header
            if level_of(target) >= level_of(folder):
                found.add((path, included))
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
    assert level_of("python") > level_of("run") > level_of("verify")
    files = [("src/store/far_rank.cc", "store", '#include "mpi/comm.h"\n#include "engine/cpu/engine.h"\n'),
             ("src/ingest/parse.cc", "ingest", '#include "mpi/comm.h"\n#include "graph/format.h"\n'),
             ("src/engine/cpu/engine.h", "engine/cpu", '#include "engine/cuda/atomics.h"\n#include "engine/program.h"\n'),
             ("python/src/module.cc", "python", '#include "cli/options.h"\n#include "run/kernels.h"\n')]
    assert upward_includes(files) == {  # up a level, beside on a level, across backends, across fronts
        ("src/store/far_rank.cc", "engine/cpu/engine.h"), ("src/ingest/parse.cc", "mpi/comm.h"),
        ("src/engine/cpu/engine.h", "engine/cuda/atomics.h"), ("python/src/module.cc", "cli/options.h")}


FACADES = ["src/engine/cpu/engine.h", "src/engine/mpi/dist_engine.h", "src/engine/cuda/device_engine.h"]


def test_no_file_is_over_600_lines_and_each_engine_is_a_facade_of_at_most_300():
    # Engines are facades over files with one job each; every file stays short enough to read.
    long_files = []
    for folder in ("src", "python", "bench"):
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix in (".h", ".cc", ".cu", ".cuh", ".inc", ".py") and path.is_file():
                lines = len(path.read_text().splitlines())
                if lines > 600:
                    long_files.append(f"{path.relative_to(REPO)} ({lines})")
    assert not long_files, f"over 600 lines: {long_files}"
    for facade in FACADES:
        lines = len((REPO / facade).read_text().splitlines())
        assert lines <= 300, f"{facade} has {lines} lines: move definitions into its files with one job"
