"""An independent numpy reader of tiergraph graph files (version 2).

Written from the layout described in src/graph/format.h only; it shares no code with the C++
reader. It checks the structure it relies on and raises GraphFileError when something does not
add up; with the xxhash module present it also verifies every block part's XXH3-64 hash.

Layout (little endian):
  [Header, padded to 4096 bytes] [sections, each starting on a 4096-byte boundary]

  Header:  magic[8] version:u32 header_bytes:u32 num_vertices num_arcs num_edges input_edges
           self_loops_removed duplicates_removed id_base (all u64) flags:u32 blocks_per_side:u32
           id_bytes:u8 id_mode:u8 weight_type:u8 reserved0[5] min_weight:f64 max_weight:f64
           section_count:u32 requested_blocks:u32 sections[16] header_checksum:u64
  Section: kind:u32 element_size:u32 offset:u64 bytes:u64 checksum:u64
  Index row (80 bytes): offset:u64 part_bytes:u64[3] edge_count:u64 vertex_count:u64 layout:u8
           offset_bytes:u8 id_bytes:u8 vertex_bytes:u8 reserved:u32 hash:u64[3]

Vertices 0..n-1 are cut into P ranges (section "ranges": u64[P+1], boundaries multiples of 64).
Block (i, j) of the out grid holds the arcs with source in range i and destination in range j,
as ONE extent at `offset`: [directory | neighbours | weights], each part 8-byte aligned. The
directory is CSR (|range i| + 1 offsets) or, with layout 1, DCSR (vertex_count + 1 offsets, then
at the next 8-byte boundary vertex_count vertex ids local to range i). Neighbour ids are local
to range j. Offsets are offset_bytes wide, ids id_bytes, vertices vertex_bytes. Each block row
starts on a 4096-byte boundary. The in grid (directed graphs) is the same grouped by destination.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field

import numpy as np

try:
    import xxhash
except ImportError:  # hashes are then not verified here
    xxhash = None

MAGIC = b"TIERGRPH"
HEADER_BYTES = 4096
MAX_SECTIONS = 16
ALIGNMENT = 4096

SECTION_KINDS = {
    1: "ranges",
    2: "out-index",
    3: "out-blocks",
    4: "in-index",
    5: "in-blocks",
    6: "id-map",
    7: "out-degrees",
    8: "in-degrees",
}
SECTION_IDS = {name: kind for kind, name in SECTION_KINDS.items()}

WEIGHT_TYPES = {0: "none", 1: "int32", 2: "int64", 3: "float64"}
WEIGHT_DTYPES = {1: np.dtype("<i4"), 2: np.dtype("<i8"), 3: np.dtype("<f8")}
UINT = {2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8")}

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

INDEX_DTYPE = np.dtype([
    ("offset", "<u8"), ("part_bytes", "<u8", (3,)), ("edge_count", "<u8"), ("vertex_count", "<u8"),
    ("layout", "u1"), ("offset_bytes", "u1"), ("id_bytes", "u1"), ("vertex_bytes", "u1"), ("reserved", "<u4"),
    ("hash", "<u8", (3,)),
])
assert INDEX_DTYPE.itemsize == 80


def _align8(x: int) -> int:
    return (x + 7) // 8 * 8


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
    requested_blocks: int
    sections: list = field(default_factory=list)
    header_checksum: int = 0

    @property
    def directed(self) -> bool:
        return bool(self.flags & FLAG_DIRECTED)


def parse_header(raw: bytes) -> Header:
    if len(raw) < HEADER_STRUCT_BYTES:
        raise GraphFileError(f"file shorter than the header ({len(raw)} bytes)")
    vals = _HEADER_FIXED.unpack_from(raw, 0)
    h = Header(*vals)
    if h.magic != MAGIC:
        raise GraphFileError(f"bad magic {h.magic!r}")
    if h.version != 2:
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
        if self.n and np.any(np.diff(self.ranges.astype(np.int64)) <= 0):
            raise GraphFileError("ranges not increasing")
        if np.any(self.ranges[:-1] % 64):
            raise GraphFileError("a range does not start on a multiple of 64")

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

    def index(self, grid: str) -> np.ndarray:
        rows = self.read_section(f"{grid}-index", INDEX_DTYPE)
        if len(rows) != self.p * self.p:
            raise GraphFileError(f"{grid}-index has {len(rows)} rows, expected {self.p * self.p}")
        return rows

    # -- one block, independently -------------------------------------------------------------
    def read_block(self, grid: str, major: int, minor: int, row=None):
        """Arcs of one block as dense (major_vertex, minor_vertex, weight) arrays.

        Reads only this block's index row and then its one extent with one read: nothing about
        other blocks is needed.
        """
        if row is None:
            row = self.read_section(f"{grid}-index", INDEX_DTYPE, major * self.p + minor, 1)[0]
        where = f"{grid} block ({major},{minor})"
        lo, hi = int(self.ranges[major]), int(self.ranges[major + 1])
        mlo, mhi = int(self.ranges[minor]), int(self.ranges[minor + 1])
        parts = [int(x) for x in row["part_bytes"]]
        at = [0, _align8(parts[0]), _align8(parts[0]) + _align8(parts[1])]
        ec, vc = int(row["edge_count"]), int(row["vertex_count"])
        ob, ib, vb, layout = int(row["offset_bytes"]), int(row["id_bytes"]), int(row["vertex_bytes"]), int(row["layout"])
        if ob not in (2, 4) or ib not in UINT or layout not in (0, 1):
            raise GraphFileError(f"{where}: bad encoding {layout}/{ob}/{ib}/{vb}")
        blocks = self.sections[f"{grid}-blocks"]
        offset = int(row["offset"])
        extent = at[2] + parts[2]
        if offset % 8 or offset < blocks.offset or offset + extent > blocks.offset + blocks.bytes:
            raise GraphFileError(f"{where}: extent [{offset}, {offset + extent}) outside its section")
        with open(self.path, "rb") as f:
            f.seek(offset)
            raw = f.read(extent)
        if len(raw) != extent:
            raise GraphFileError(f"{where}: short read")
        if xxhash is not None:
            for k in range(3):
                if xxhash.xxh3_64_intdigest(raw[at[k] : at[k] + parts[k]]) != int(row["hash"][k]):
                    raise GraphFileError(f"{where}: part {k} fails its hash")
        if parts[1] != ec * ib or parts[2] != ec * (self.weight_dtype.itemsize if self.weight_dtype else 0):
            raise GraphFileError(f"{where}: part sizes disagree with the counts")
        offs = np.frombuffer(raw, UINT[ob], vc + 1, 0).astype(np.int64)
        if layout == 0:
            if vc != hi - lo or parts[0] != (vc + 1) * ob:
                raise GraphFileError(f"{where}: CSR directory size")
            vertices = np.arange(lo, hi, dtype=np.uint64)
        else:
            if vb not in UINT or parts[0] != _align8((vc + 1) * ob) + vc * vb:
                raise GraphFileError(f"{where}: DCSR directory size")
            local = np.frombuffer(raw, UINT[vb], vc, _align8((vc + 1) * ob)).astype(np.uint64)
            if vc and (np.any(np.diff(local.astype(np.int64)) <= 0) or int(local.max()) >= hi - lo):
                raise GraphFileError(f"{where}: DCSR vertices not increasing inside the range")
            vertices = local + np.uint64(lo)
        if offs[0] != 0 or offs[-1] != ec or np.any(np.diff(offs) < 0):
            raise GraphFileError(f"{where}: offsets inconsistent")
        nbrs = np.frombuffer(raw, UINT[ib], ec, at[1]).astype(np.uint64)
        if ec and int(nbrs.max()) >= mhi - mlo:
            raise GraphFileError(f"{where}: neighbour outside range {minor}")
        weights = np.frombuffer(raw, self.weight_dtype, ec, at[2]).copy() if self.weight_dtype is not None else None
        majors = np.repeat(vertices, np.diff(offs))
        return majors, nbrs + np.uint64(mlo), weights

    def read_grid(self, grid: str = "out"):
        """Dense (src, dst, weight) of a whole grid, block by block (src = the arc's source).

        Also checks the placement rules: blocks in storage order, not overlapping, 8-byte
        aligned, each block row starting on a 4096-byte boundary, arc counts adding up.
        """
        rows = self.index(grid)
        srcs, dsts, ws = [], [], []
        end = 0
        for k, row in enumerate(rows):
            i, j = divmod(k, self.p)
            offset = int(row["offset"])
            if offset < end or (j == 0 and offset % ALIGNMENT):
                raise GraphFileError(f"{grid} block ({i},{j}) misplaced at {offset}")
            parts = [int(x) for x in row["part_bytes"]]
            end = offset + _align8(parts[0]) + _align8(parts[1]) + parts[2]
            major, minor, w = self.read_block(grid, i, j, row)
            srcs.append(major if grid == "out" else minor)
            dsts.append(minor if grid == "out" else major)
            if w is not None:
                ws.append(w)
        src = np.concatenate(srcs) if srcs else np.zeros(0, np.uint64)
        dst = np.concatenate(dsts) if dsts else np.zeros(0, np.uint64)
        w = np.concatenate(ws) if self.weight_dtype is not None and ws else (
            np.zeros(0, self.weight_dtype) if self.weight_dtype is not None else None)
        if len(src) != self.header.num_arcs:
            raise GraphFileError(f"{grid} grid holds {len(src)} arcs, the header says {self.header.num_arcs}")
        return src, dst, w

    read_grid_by_blocks = read_grid


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
