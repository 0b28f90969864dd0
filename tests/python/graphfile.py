"""An independent numpy reader of tiergraph graph files (version 1).

Written from the layout described in src/graph/format.h only; it shares no code with the C++
reader. It does not verify XXH3 checksums (that needs a hash library); it does check the
structure it relies on and raises GraphFileError when something does not add up.

Layout (little endian):
  [Header, padded to 4096 bytes] [sections, each starting on a 4096-byte boundary]

  Header:  magic[8] version:u32 header_bytes:u32 num_vertices num_arcs num_edges input_edges
           self_loops_removed duplicates_removed id_base (all u64) flags:u32 blocks_per_side:u32
           id_bytes:u8 id_mode:u8 weight_type:u8 reserved0[5] min_weight:f64 max_weight:f64
           section_count:u32 reserved1:u32 sections[16] header_checksum:u64
  Section: kind:u32 element_size:u32 offset:u64 bytes:u64 checksum:u64
  Block index entry: offsets_begin:u64 edges_begin:u64 edge_count:u64 (positions in elements)

Vertices 0..n-1 are cut into P ranges (section "ranges": u64[P+1]). Block (i, j) of the out grid
holds the arcs with source in range i and destination in range j as a CSR over the sources of
range i: |range i| + 1 u32 offsets local to the block, then the block's neighbours (dense global
ids, id_bytes wide) and weights. The in grid is the same grouped by destination (directed only).
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field

import numpy as np

MAGIC = b"TIERGRPH"
HEADER_BYTES = 4096
MAX_SECTIONS = 16
ALIGNMENT = 4096

SECTION_KINDS = {
    1: "ranges",
    2: "out-index",
    3: "out-offsets",
    4: "out-neighbors",
    5: "out-weights",
    6: "in-index",
    7: "in-offsets",
    8: "in-neighbors",
    9: "in-weights",
    10: "id-map",
    11: "out-degrees",
    12: "in-degrees",
}
SECTION_IDS = {name: kind for kind, name in SECTION_KINDS.items()}

WEIGHT_TYPES = {0: "none", 1: "int32", 2: "int64", 3: "float64"}
WEIGHT_DTYPES = {1: np.dtype("<i4"), 2: np.dtype("<i8"), 3: np.dtype("<f8")}

FLAG_DIRECTED = 1 << 0
FLAG_SELF_LOOPS_KEPT = 1 << 1
FLAG_DUPLICATES_KEPT = 1 << 2
FLAG_GENERATED_WEIGHTS = 1 << 3

# Field order of format.h's Header, with '<' (no implicit padding): explicit pad bytes where the
# C++ struct has reserved fields; every field is naturally aligned in this order.
_HEADER_FIXED = struct.Struct("<8sII7QIIBBB5xddII")
_SECTION = struct.Struct("<IIQQQ")
_CHECKSUM = struct.Struct("<Q")
HEADER_STRUCT_BYTES = _HEADER_FIXED.size + MAX_SECTIONS * _SECTION.size + _CHECKSUM.size
assert _HEADER_FIXED.size == 112 and HEADER_STRUCT_BYTES == 632

BLOCK_DTYPE = np.dtype([("offsets_begin", "<u8"), ("edges_begin", "<u8"), ("edge_count", "<u8")])
assert BLOCK_DTYPE.itemsize == 24


class GraphFileError(Exception):
    pass


@dataclass
class Section:
    kind: int
    name: str
    element_size: int
    offset: int
    bytes: int
    checksum: int


@dataclass
class Header:
    magic: bytes
    version: int
    header_bytes: int
    num_vertices: int
    num_arcs: int
    num_edges: int
    input_edges: int
    self_loops_removed: int
    duplicates_removed: int
    id_base: int
    flags: int
    blocks_per_side: int
    id_bytes: int
    id_mode: int
    weight_type: int
    min_weight: float
    max_weight: float
    section_count: int
    sections: list = field(default_factory=list)
    header_checksum: int = 0

    @property
    def directed(self) -> bool:
        return bool(self.flags & FLAG_DIRECTED)


def parse_header(raw: bytes) -> Header:
    if len(raw) < HEADER_STRUCT_BYTES:
        raise GraphFileError(f"file shorter than the header ({len(raw)} bytes)")
    vals = _HEADER_FIXED.unpack_from(raw, 0)
    h = Header(*vals[:-1])  # the last one is reserved1
    if h.magic != MAGIC:
        raise GraphFileError(f"bad magic {h.magic!r}")
    if h.version != 1:
        raise GraphFileError(f"unsupported version {h.version}")
    if h.section_count > MAX_SECTIONS:
        raise GraphFileError(f"{h.section_count} sections")
    for i in range(h.section_count):
        kind, esize, off, nbytes, csum = _SECTION.unpack_from(raw, _HEADER_FIXED.size + i * _SECTION.size)
        h.sections.append(Section(kind, SECTION_KINDS.get(kind, f"unknown-{kind}"), esize, off, nbytes, csum))
    (h.header_checksum,) = _CHECKSUM.unpack_from(raw, _HEADER_FIXED.size + MAX_SECTIONS * _SECTION.size)
    return h


def _id_dtype(id_bytes: int) -> np.dtype:
    if id_bytes == 4:
        return np.dtype("<u4")
    if id_bytes == 8:
        return np.dtype("<u8")
    raise GraphFileError(f"id width {id_bytes}")


@dataclass
class Graph:
    header: Header
    num_vertices: int
    directed: bool
    weight_type: str  # none / int32 / int64 / float64
    ranges: np.ndarray
    src: np.ndarray  # original ids (uint64)
    dst: np.ndarray
    weight: np.ndarray | None  # None when unweighted
    original_ids: np.ndarray  # original id of each dense vertex
    dense_src: np.ndarray = None
    dense_dst: np.ndarray = None
    out_degrees: np.ndarray = None
    in_degrees: np.ndarray = None
    in_arcs: tuple | None = None  # (src, dst, weight) in original ids from the in grid

    def arcs(self):
        return self.src, self.dst, self.weight


class GraphFile:
    """Reads sections with explicit seeks (no mmap), so a block can be read on its own."""

    def __init__(self, path: str):
        self.path = str(path)
        self.size = os.path.getsize(self.path)
        with open(self.path, "rb") as f:
            raw = f.read(HEADER_BYTES)
        if len(raw) < HEADER_BYTES:
            raise GraphFileError(f"file shorter than the {HEADER_BYTES}-byte header")
        self.header = parse_header(raw)
        self.sections = {s.name: s for s in self.header.sections}
        for s in self.header.sections:
            if s.offset % ALIGNMENT or s.offset < HEADER_BYTES:
                raise GraphFileError(f"section {s.name} misplaced at {s.offset}")
            if s.offset + s.bytes > self.size:
                raise GraphFileError(f"section {s.name} extends past the end of the file")
        h = self.header
        self.n = h.num_vertices
        self.p = h.blocks_per_side
        self.id_dtype = _id_dtype(h.id_bytes)
        self.weight_dtype = WEIGHT_DTYPES.get(h.weight_type)
        if h.weight_type not in WEIGHT_TYPES:
            raise GraphFileError(f"weight type {h.weight_type}")
        self.ranges = self.read_section("ranges", np.dtype("<u8"))
        if len(self.ranges) != self.p + 1 or self.ranges[0] != 0 or self.ranges[-1] != self.n:
            raise GraphFileError("ranges do not cover the vertices")
        if np.any(np.diff(self.ranges.astype(np.int64)) < 0):
            raise GraphFileError("ranges not increasing")

    # -- raw access ---------------------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self.sections

    def read_section(self, name: str, dtype, start: int = 0, count: int | None = None) -> np.ndarray:
        """Elements [start, start+count) of a section, read with a seek."""
        s = self.sections.get(name)
        if s is None:
            raise GraphFileError(f"section {name} missing")
        dtype = np.dtype(dtype)
        total = s.bytes // dtype.itemsize
        if s.bytes % dtype.itemsize:
            raise GraphFileError(f"section {name}: {s.bytes} bytes is not a multiple of {dtype.itemsize}")
        if count is None:
            count = total - start
        if start < 0 or count < 0 or start + count > total:
            raise GraphFileError(f"section {name}: elements [{start}, {start + count}) outside [0, {total})")
        with open(self.path, "rb") as f:
            f.seek(s.offset + start * dtype.itemsize)
            buf = f.read(count * dtype.itemsize)
        if len(buf) != count * dtype.itemsize:
            raise GraphFileError(f"section {name}: short read")
        return np.frombuffer(buf, dtype=dtype).copy()

    def original_ids(self) -> np.ndarray:
        if self.has("id-map"):
            m = self.read_section("id-map", np.dtype("<u8"))
            if len(m) != self.n:
                raise GraphFileError("id map size")
            return m
        return np.arange(self.n, dtype=np.uint64) + np.uint64(self.header.id_base)

    def degrees(self, name: str) -> np.ndarray:
        s = self.sections[name]
        if s.element_size not in (4, 8):
            raise GraphFileError(f"{name} element size {s.element_size}")
        return self.read_section(name, np.dtype("<u4") if s.element_size == 4 else np.dtype("<u8")).astype(np.uint64)

    def block_entry(self, grid: str, major: int, minor: int) -> tuple[int, int, int]:
        e = self.read_section(f"{grid}-index", BLOCK_DTYPE, major * self.p + minor, 1)[0]
        return int(e["offsets_begin"]), int(e["edges_begin"]), int(e["edge_count"])

    # -- one block, independently -------------------------------------------------------------
    def read_block(self, grid: str, major: int, minor: int):
        """Arcs of one block as dense (major_vertex, minor_vertex, weight) arrays.

        Reads only this block's index entry, its |range|+1 local offsets and its slice of the
        neighbours (and weights): nothing about other blocks is needed.
        """
        lo, hi = int(self.ranges[major]), int(self.ranges[major + 1])
        size = hi - lo
        offsets_begin, edges_begin, edge_count = self.block_entry(grid, major, minor)
        offs = self.read_section(f"{grid}-offsets", np.dtype("<u4"), offsets_begin, size + 1).astype(np.int64)
        if offs[0] != 0 or offs[-1] != edge_count or np.any(np.diff(offs) < 0):
            raise GraphFileError(f"{grid} block ({major},{minor}): local offsets inconsistent")
        nbrs = self.read_section(f"{grid}-neighbors", self.id_dtype, edges_begin, edge_count).astype(np.uint64)
        weights = None
        if self.weight_dtype is not None:
            weights = self.read_section(f"{grid}-weights", self.weight_dtype, edges_begin, edge_count)
        majors = np.repeat(np.arange(lo, hi, dtype=np.uint64), np.diff(offs))
        mlo, mhi = int(self.ranges[minor]), int(self.ranges[minor + 1])
        if edge_count and (nbrs.min() < mlo or nbrs.max() >= mhi):
            raise GraphFileError(f"{grid} block ({major},{minor}): neighbour outside range {minor}")
        return majors, nbrs, weights

    def read_grid_by_blocks(self, grid: str = "out"):
        """Dense (src, dst, weight) of a whole grid, block by block (src = the arc's source)."""
        srcs, dsts, ws = [], [], []
        for i in range(self.p):
            for j in range(self.p):
                major, minor, w = self.read_block(grid, i, j)
                if grid == "out":
                    srcs.append(major)
                    dsts.append(minor)
                else:
                    srcs.append(minor)
                    dsts.append(major)
                if w is not None:
                    ws.append(w)
        src = np.concatenate(srcs) if srcs else np.zeros(0, np.uint64)
        dst = np.concatenate(dsts) if dsts else np.zeros(0, np.uint64)
        w = np.concatenate(ws) if self.weight_dtype is not None else None
        return src, dst, w

    # -- whole grid, vectorised ---------------------------------------------------------------
    def read_grid(self, grid: str = "out"):
        """Dense (src, dst, weight) of a grid, reading whole sections (checks the block index)."""
        p, n = self.p, self.n
        index = self.read_section(f"{grid}-index", BLOCK_DTYPE)
        if len(index) != p * p:
            raise GraphFileError(f"{grid}-index has {len(index)} entries, expected {p * p}")
        offsets = self.read_section(f"{grid}-offsets", np.dtype("<u4")).astype(np.int64)
        if len(offsets) != p * n + p * p:
            raise GraphFileError(f"{grid}-offsets has {len(offsets)} entries, expected {p * n + p * p}")
        nbrs = self.read_section(f"{grid}-neighbors", self.id_dtype).astype(np.uint64)
        weights = self.read_section(f"{grid}-weights", self.weight_dtype) if self.weight_dtype is not None else None
        if len(nbrs) != self.header.num_arcs:
            raise GraphFileError(f"{grid}-neighbors holds {len(nbrs)} arcs, header says {self.header.num_arcs}")
        if weights is not None and len(weights) != len(nbrs):
            raise GraphFileError(f"{grid}-weights length")
        majors = np.empty(len(nbrs), dtype=np.uint64)
        offsets_at = edges_at = 0
        for i in range(p):
            lo, hi = int(self.ranges[i]), int(self.ranges[i + 1])
            for j in range(p):
                e = index[i * p + j]
                ob, eb, ec = int(e["offsets_begin"]), int(e["edges_begin"]), int(e["edge_count"])
                # Blocks are stored row-major and back to back.
                if ob != offsets_at or eb != edges_at:
                    raise GraphFileError(f"{grid}-index entry ({i},{j}) not contiguous")
                local = offsets[ob : ob + hi - lo + 1]
                if local[0] != 0 or local[-1] != ec or np.any(np.diff(local) < 0):
                    raise GraphFileError(f"{grid} block ({i},{j}) offsets inconsistent")
                majors[eb : eb + ec] = np.repeat(np.arange(lo, hi, dtype=np.uint64), np.diff(local))
                seg = nbrs[eb : eb + ec]
                if ec and (seg.min() < self.ranges[j] or seg.max() >= self.ranges[j + 1]):
                    raise GraphFileError(f"{grid} block ({i},{j}) neighbour outside its range")
                offsets_at += hi - lo + 1
                edges_at += ec
        if edges_at != len(nbrs):
            raise GraphFileError(f"{grid}-index counts {edges_at} arcs, neighbours hold {len(nbrs)}")
        if grid == "out":
            return majors, nbrs, weights
        return nbrs, majors, weights


def read_graph(path, check_in_grid: bool = True) -> Graph:
    """Reads a graph file: vertex count, directed flag, weight type and the arcs (original ids).

    For an undirected graph the arcs are both directions of every edge (self-loops once), as the
    out grid stores them.
    """
    gf = GraphFile(path)
    h = gf.header
    src, dst, w = gf.read_grid("out")
    ids = gf.original_ids()
    if len(ids) and len(np.unique(ids)) != len(ids):
        raise GraphFileError("id map is not one-to-one")
    out_deg = gf.degrees("out-degrees")
    if len(out_deg) != gf.n:
        raise GraphFileError("out-degrees size")
    counted = np.bincount(src.astype(np.int64), minlength=gf.n).astype(np.uint64) if gf.n else np.zeros(0, np.uint64)
    if not np.array_equal(out_deg, counted):
        raise GraphFileError("out-degrees disagree with the out grid")
    in_deg = out_deg
    in_arcs = None
    if h.directed:
        in_deg = gf.degrees("in-degrees")
        counted_in = np.bincount(dst.astype(np.int64), minlength=gf.n).astype(np.uint64) if gf.n else np.zeros(0, np.uint64)
        if not np.array_equal(in_deg, counted_in):
            raise GraphFileError("in-degrees disagree with the out grid")
        if check_in_grid:
            isrc, idst, iw = gf.read_grid("in")
            in_arcs = (ids[isrc.astype(np.int64)], ids[idst.astype(np.int64)], iw)
    else:
        if gf.has("in-index"):
            raise GraphFileError("undirected graph with an in grid")
    osrc = ids[src.astype(np.int64)] if len(src) else np.zeros(0, np.uint64)
    odst = ids[dst.astype(np.int64)] if len(dst) else np.zeros(0, np.uint64)
    return Graph(
        header=h,
        num_vertices=gf.n,
        directed=h.directed,
        weight_type=WEIGHT_TYPES[h.weight_type],
        ranges=gf.ranges,
        src=osrc,
        dst=odst,
        weight=w,
        original_ids=ids,
        dense_src=src,
        dense_dst=dst,
        out_degrees=out_deg,
        in_degrees=in_deg,
        in_arcs=in_arcs,
    )


def arc_multiset(src, dst, weight=None):
    """Sorted structured array of arcs, for order-independent comparison."""
    if weight is None:
        a = np.empty(len(src), dtype=[("u", "<u8"), ("v", "<u8")])
    else:
        a = np.empty(len(src), dtype=[("u", "<u8"), ("v", "<u8"), ("w", weight.dtype)])
        a["w"] = weight
    a["u"] = src
    a["v"] = dst
    a.sort(order=list(a.dtype.names))
    return a
