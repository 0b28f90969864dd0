// The tiergraph graph file, version 1. Everything later (disk and far-memory tiers, MPI ranks,
// GPUs) reads this file block by block, so its shape is chosen for that:
//
//   [Header: 4096 bytes]  magic, version, counts, properties, section table, header checksum
//   [Section]...          each starts on a 4096-byte boundary (mmap and O_DIRECT friendly) and
//                         carries its own XXH3-64 checksum in the section table
//
// Vertices 0..n-1 are cut into P ranges (kRanges). The edges form a P x P grid: block (i, j)
// holds the arcs whose source lies in range i and destination in range j. In the out sections a
// block is a small CSR over the sources of range i: (|range i| + 1) uint32 offsets local to the
// block, then the destinations, then (if weighted) the weights, each a contiguous byte range of
// its section. Blocks are laid out row-major, so a block row (all out-edges of a vertex range) is
// also contiguous. The in sections hold the same grid grouped by destination (a CSR over the
// destinations of range j), for pull; an undirected graph stores one symmetric copy that serves
// both. A block holds fewer than 2^32 arcs, which is what lets offsets be 32-bit; the builder
// raises P when a block would not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tg::format {

inline constexpr char kMagic[8] = {'T', 'I', 'E', 'R', 'G', 'R', 'P', 'H'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint64_t kAlignment = 4096;
inline constexpr uint64_t kHeaderBytes = 4096;
inline constexpr uint32_t kMaxSections = 16;

enum class SectionKind : uint32_t {
  kRanges = 1,        // uint64[P + 1]: vertex range boundaries
  kOutIndex = 2,      // BlockEntry[P * P], row-major
  kOutOffsets = 3,    // uint32, per block |range i| + 1 local offsets
  kOutNeighbors = 4,  // vertex ids (id_bytes wide)
  kOutWeights = 5,    // weights (weight_type), parallel to kOutNeighbors
  kInIndex = 6,       // as above, grouped by destination; absent when undirected
  kInOffsets = 7,
  kInNeighbors = 8,
  kInWeights = 9,
  kIdMap = 10,      // uint64[n]: original id of each vertex (label mode, when not contiguous)
  kOutDegrees = 11,  // uint32 or uint64 (element_size) per vertex
  kInDegrees = 12,   // absent when undirected
};

std::string_view section_name(SectionKind kind);

enum class WeightType : uint8_t { kNone = 0, kInt32 = 1, kInt64 = 2, kFloat64 = 3 };

std::string_view weight_type_name(WeightType type);
inline uint32_t weight_bytes(WeightType type) {
  return type == WeightType::kNone ? 0 : (type == WeightType::kInt32 ? 4 : 8);
}

struct SectionEntry {
  uint32_t kind;          // SectionKind
  uint32_t element_size;  // bytes per element
  uint64_t offset;        // from the start of the file, a multiple of kAlignment
  uint64_t bytes;         // payload size (the padding after it is not counted)
  uint64_t checksum;      // XXH3-64 of the payload
};
static_assert(sizeof(SectionEntry) == 32);

// Positions are in elements of the section they index.
struct BlockEntry {
  uint64_t offsets_begin;  // first of this block's |range| + 1 offsets in the offsets section
  uint64_t edges_begin;    // first arc of this block in the neighbors (and weights) section
  uint64_t edge_count;     // number of arcs in the block
};
static_assert(sizeof(BlockEntry) == 24);

struct Flags {
  static constexpr uint32_t kDirected = 1u << 0;
  static constexpr uint32_t kSelfLoopsKept = 1u << 1;
  static constexpr uint32_t kDuplicatesKept = 1u << 2;
  static constexpr uint32_t kGeneratedWeights = 1u << 3;  // weights made by --weights, not read
};

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;
  uint64_t num_vertices;
  uint64_t num_arcs;            // arcs stored in the out sections (undirected: both directions)
  uint64_t num_edges;           // edges after cleaning (undirected: each edge once)
  uint64_t input_edges;         // edges read from the input
  uint64_t self_loops_removed;
  uint64_t duplicates_removed;
  uint64_t id_base;             // original id = dense id + id_base when there is no kIdMap
  uint32_t flags;               // Flags
  uint32_t blocks_per_side;     // P
  uint8_t id_bytes;             // 4 or 8
  uint8_t id_mode;              // IdMode
  uint8_t weight_type;          // WeightType
  uint8_t reserved0[5];
  double min_weight;
  double max_weight;
  uint32_t section_count;
  uint32_t reserved1;
  SectionEntry sections[kMaxSections];
  uint64_t header_checksum;     // XXH3-64 of the first sizeof(Header) bytes with this field zero
};
static_assert(sizeof(Header) <= kHeaderBytes);

inline uint64_t align_up(uint64_t x) { return (x + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace tg::format
