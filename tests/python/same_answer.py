"""Helpers shared by the tests that run one algorithm several ways (stores, schedules, tiers, ranks)
and hold every way to the in-memory answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def convert_datasets(tg, datasets_dir: Path, folder: Path, names, blocks: int = 4) -> dict:
    """Graph files of the named shared datasets on a blocks x blocks grid, by dataset name."""
    out = {}
    for name in names:
        path = folder / (name.split(".")[0] + ".tg")
        tg.convert(datasets_dir / name, path, "--blocks", str(blocks))
        out[name] = path
    return out


def assert_same_answer(got, expected, algorithm: str, way: str = "") -> None:
    """Two `run -o x.npy` results agree: the same ids, integers identical, PageRank's and BC's sums
    within 1e-9 in L1 relative to the answer's (PageRank's ranks sum to 1)."""
    assert np.array_equal(got["id"], expected["id"]), way
    if algorithm in ("pr", "bc"):
        norm = max(np.abs(expected["value"]).sum(), 1.0)
        assert np.abs(got["value"] - expected["value"]).sum() < 1e-9 * norm, way
    else:
        assert np.array_equal(got["value"], expected["value"]), way
