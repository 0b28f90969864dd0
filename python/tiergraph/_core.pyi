"""Type stubs of tiergraph._core, the C++ engine's nanobind module (use the tiergraph package)."""

from typing import Any, Optional

import numpy as np
import numpy.typing as npt

class Error(Exception):
    """Every error the engine reports, with the command line's message."""

class GraphFile:
    """An open (mapped) graph file."""

    @property
    def path(self) -> str: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def num_arcs(self) -> int: ...
    @property
    def directed(self) -> bool: ...
    @property
    def weighted(self) -> bool: ...
    @property
    def blocks_per_side(self) -> int: ...
    @property
    def min_weight(self) -> float: ...
    def original_ids(self) -> npt.NDArray[np.uint64]:
        """Each vertex's original id."""
    def dense_id(self, original: int) -> int:
        """The vertex of an original id; Error if none."""
    @property
    def name(self) -> str:
        """How messages name the graph: its path quoted, or what it was built from."""
    def out_degrees(self) -> npt.NDArray[np.uint64]:
        """Each vertex's out-degree."""
    def in_degrees(self) -> npt.NDArray[np.uint64]:
        """Each vertex's in-degree (the degree, for an undirected graph)."""
    def out_degree(self, vertex: int) -> int: ...
    def in_degree(self, vertex: int) -> int: ...
    def neighbors(self, vertex: int) -> npt.NDArray[np.uint64]:
        """The out-neighbours of a vertex (vertex indices)."""
    def save(self, path: str, overwrite: bool) -> None:
        """Writes the graph file to path (refused if it exists unless overwrite; no partial file)."""
    def run(self, algorithm: str, options: dict[str, Any]) -> dict[str, Any]:
        """Runs an algorithm with `run`'s options; returns values, parents, source, verified and
        the report (JSON text)."""

def open(path: str, verify_checksums: bool = True, name: str = "") -> GraphFile:
    """Opens a graph file, checking it as `tiergraph run` does; `name` is how messages name it
    (default: the path)."""

def from_edges(src: npt.NDArray[np.uint64], dst: npt.NDArray[np.uint64], weights: Optional[npt.NDArray[np.float64]],
               num_vertices: int, directed: bool, keep_self_loops: bool, keep_duplicates: bool, blocks: int,
               scratch_dir: str, threads: int, name: str) -> GraphFile:
    """Builds a graph file from edge arrays in scratch_dir, opens it and unlinks it."""

def convert(input: str, output: str, options: dict[str, Any]) -> str:
    """Converts an input as `tiergraph convert`; returns the report (JSON text)."""

def generate(output: str, kind: str, scale: int, edge_factor: int, seed: int, weights: str, undirected: bool,
             blocks: int, overwrite: bool, memory_budget: str, scratch: str) -> str:
    """Generates a graph file as `tiergraph generate` (memory_budget and scratch: '' for the
    command's defaults); returns the report (JSON text)."""

def kernel_names() -> list[str]:
    """Every algorithm name and alias `run` accepts."""
