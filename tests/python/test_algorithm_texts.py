"""The algorithm files are written against the engine's interface only: no OpenMP pragma, no
atomics, no std::vector state (the engine owns loops and vertex state, so another backend can run
the same text), each at most 40 lines of code; and the example in docs/engine.md is the real source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ALGORITHMS = ["bfs", "bfs_tree", "sssp", "wcc", "pagerank", "radii", "tc", "lcc", "cdlp"]
FORBIDDEN = ["#pragma omp", "std::atomic", "atomic_ref", "std::vector", "omp_", "<vector>", "<atomic>"]


def code_lines(text: str) -> list[str]:
    """Lines of code: not blank, not a comment, not a preprocessor line, not the namespace braces."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//") or stripped.startswith("#"):
            continue
        if re.fullmatch(r"namespace \w+ \{|\}  // namespace \w+", stripped):
            continue
        lines.append(stripped)
    return lines


@pytest.mark.parametrize("name", ALGORITHMS)
def test_algorithm_file_uses_only_the_engine(name):
    text = (REPO / "src" / "algorithms" / f"{name}.h").read_text()
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    for word in FORBIDDEN:
        assert word not in code, f"{name}.h contains {word!r}: loops and state belong to the engine"


@pytest.mark.parametrize("name", ALGORITHMS)
def test_algorithm_file_is_at_most_40_lines(name):
    lines = code_lines((REPO / "src" / "algorithms" / f"{name}.h").read_text())
    assert len(lines) <= 40, f"{name}.h has {len(lines)} lines of code"
    wide = [line for line in (REPO / "src" / "algorithms" / f"{name}.h").read_text().splitlines() if len(line) > 100]
    assert not wide, f"{name}.h has lines over 100 columns: {wide}"


def test_code_line_counter_counts_code():
    sample = "// c\n#pragma once\n\nnamespace tg {\nint x = 1;  // y\n}  // namespace tg\n"
    assert code_lines(sample) == ["int x = 1;  // y"]


def test_forbidden_words_are_caught():
    assert any(w in "  std::vector<int> v;" for w in FORBIDDEN)
    assert any(w in "#pragma omp parallel for" for w in FORBIDDEN)


def test_documented_example_is_the_source():
    readme = (REPO / "docs" / "engine.md").read_text()
    source = (REPO / "src" / "algorithms" / "bfs.h").read_text()
    m = re.search(r"BFS in full, `src/algorithms/bfs.h`.*?```cpp\n(.*?)```", readme, re.S)
    assert m, "docs/engine.md's BFS example is missing"
    assert m.group(1) == source
