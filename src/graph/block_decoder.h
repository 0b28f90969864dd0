// Reads one block of a version-2 graph file from its bytes: a plain struct of pointers and
// widths, so it works on a mapped file, on a block fetched into a buffer, and on a GPU.
//
// It trusts its block: open-time validation (or validation on arrival, for fetched blocks) has
// checked that offsets are monotone and inside the block, DCSR vertices increase and lie in the
// major range, and neighbour ids lie in the minor range. Nothing here re-checks.
#pragma once

#include <cstdint>
#include <cstring>

#include "graph/format.h"
#include "util/host_device.h"

namespace tg {

template <typename T>
TG_HOST_DEVICE inline T load_element(const unsigned char* p, uint64_t k) {
  // Parts start 8-byte aligned and hold naturally sized elements, so this load is aligned.
  return reinterpret_cast<const T*>(p)[k];
}

struct BlockDecoder {
  const unsigned char* directory = nullptr;
  const unsigned char* neighbours = nullptr;
  const unsigned char* weights = nullptr;
  const unsigned char* vertices = nullptr;  // DCSR vertex list; null for CSR
  uint64_t major_first = 0;                 // first vertex of the major range
  uint64_t minor_first = 0;                 // first vertex of the minor range
  uint64_t vertex_count = 0;
  uint64_t edge_count = 0;
  uint8_t offset_bytes = 4;
  uint8_t id_bytes = 4;
  uint8_t vertex_bytes = 0;

  // Points the decoder at a block whose first byte is `block` (its index row `e`).
  TG_HOST_DEVICE static BlockDecoder at(const unsigned char* block, const format::BlockEntry& e,
                                        uint64_t major_first, uint64_t minor_first) {
    const format::PartPositions p = format::part_positions(e.part_bytes);
    BlockDecoder d;
    d.directory = block + p.at[format::kDirectory];
    d.neighbours = block + p.at[format::kNeighbors];
    d.weights = block + p.at[format::kWeights];
    if (e.layout == static_cast<uint8_t>(format::BlockLayout::kDcsr)) {
      d.vertices = d.directory + format::dcsr_vertices_at(e.vertex_count, e.offset_bytes);
    }
    d.major_first = major_first;
    d.minor_first = minor_first;
    d.vertex_count = e.vertex_count;
    d.edge_count = e.edge_count;
    d.offset_bytes = e.offset_bytes;
    d.id_bytes = e.id_bytes;
    d.vertex_bytes = e.vertex_bytes;
    return d;
  }

  TG_HOST_DEVICE bool dcsr() const { return vertices != nullptr; }

  // The k-th directory offset (k <= vertex_count).
  TG_HOST_DEVICE uint64_t offset(uint64_t k) const {
    return offset_bytes == 2 ? load_element<uint16_t>(directory, k)
                             : load_element<uint32_t>(directory, k);
  }
  // The vertex of directory entry k.
  TG_HOST_DEVICE uint64_t vertex(uint64_t k) const {
    return major_first + (dcsr() ? local_vertex(k) : k);
  }
  // The global id of the e-th neighbour.
  TG_HOST_DEVICE uint64_t neighbour(uint64_t e) const {
    switch (id_bytes) {
      case 2:
        return minor_first + load_element<uint16_t>(neighbours, e);
      case 4:
        return minor_first + load_element<uint32_t>(neighbours, e);
      default:
        return minor_first + load_element<uint64_t>(neighbours, e);
    }
  }
  template <typename W>
  TG_HOST_DEVICE W weight(uint64_t e) const {
    return load_element<W>(weights, e);
  }

  // DCSR blocks, for vertex-major passes: bit k of `presence` says whether local vertex k is
  // listed, presence_rank[w] counts the listed vertices before word w. Built in memory beside
  // the block (GraphView does, for grids finer than 1x1), so finding a vertex's entry is one
  // popcount, never a search.
  const uint64_t* presence = nullptr;
  const uint32_t* presence_rank = nullptr;

  // The arcs [begin, end) of vertex v of the major range; empty when v has none here. CSR reads
  // two offsets; DCSR needs `presence` (block-major passes walk the directory in order instead).
  TG_HOST_DEVICE void arcs_of(uint64_t v, uint64_t& begin, uint64_t& end) const {
    uint64_t k = v - major_first;
    if (dcsr()) {
      const uint64_t word = presence[k / 64], below = word & ((uint64_t{1} << (k % 64)) - 1);
      if (((word >> (k % 64)) & 1) == 0) {
        begin = end = 0;
        return;
      }
      k = presence_rank[k / 64] + static_cast<uint64_t>(__builtin_popcountll(below));
    }
    begin = offset(k);
    end = offset(k + 1);
  }

  // Calls f(v, begin, end) for every directory entry in order: the block-major walk.
  template <typename F>
  TG_HOST_DEVICE void for_each_vertex(F&& f) const {
    uint64_t begin = vertex_count ? offset(0) : 0;
    for (uint64_t k = 0; k < vertex_count; ++k) {
      const uint64_t end = offset(k + 1);
      f(vertex(k), begin, end);
      begin = end;
    }
  }

  // The vertex of DCSR directory entry k, local to the major range.
  TG_HOST_DEVICE uint64_t local_vertex(uint64_t k) const {
    switch (vertex_bytes) {
      case 2:
        return load_element<uint16_t>(vertices, k);
      case 4:
        return load_element<uint32_t>(vertices, k);
      default:
        return load_element<uint64_t>(vertices, k);
    }
  }
};

}  // namespace tg
