// The tiergraph graph file, version 2. Everything later (disk and far-memory tiers, MPI ranks,
// GPUs) moves this file block by block, so its shape is chosen for that:
//
//   [Header: 4096 bytes]  magic, version, counts, properties, section table, header checksum
//   [Section]...          each starts on a 4096-byte boundary (mmap and O_DIRECT friendly)
//
// Vertices 0..n-1 are cut into P ranges (section kRanges), balanced on out-degree plus a fixed
// cost per vertex, each a multiple of 64 vertices (the last one ends at n) so that a thread or a
// rank owns whole bitmap words. The edges form a P x P grid: block (i, j) holds the arcs whose
// source lies in range i and destination in range j. The out grid stores each block grouped by
// source (its major range is i, its minor range j); the in grid, present only for directed
// graphs, stores the same blocks grouped by destination, for pull. An undirected graph stores
// one symmetric copy that serves both.
//
// A grid is an index section (one BlockEntry per block, in storage order: major range, then
// minor range) and a blocks section. A block is ONE extent of the blocks section:
//
//   [directory | neighbours | weights]     each part starts 8-byte aligned
//
// so a reader fetches a block with one read, and an unweighted run reads only the prefix
// before the weights. The directory is plain CSR (|major range| + 1 offsets) or doubly
// compressed (DCSR: offsets for only the vertices that have arcs in the block, then the list of
// those vertices), whichever is smaller; a 1x1 grid is always CSR. Offsets are local to the
// block and 16-bit when the block has fewer than 65,536 arcs; neighbour ids (and DCSR vertex
// ids) are local to their range and 16-bit when the range has at most 65,536 vertices. Blocks
// are packed 8-byte aligned; each block row starts on a 4096-byte boundary, so a reader of one
// block rounds its byte range out to 4 KiB and never reads into another row. Every part carries
// its own XXH3-64 hash in the index, so a fetched block is verified alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tg::format {

inline constexpr char kMagic[8] = {'T', 'I', 'E', 'R', 'G', 'R', 'P', 'H'};
inline constexpr uint32_t kVersion = 2;
inline constexpr uint64_t kAlignment = 4096;
inline constexpr uint64_t kHeaderBytes = 4096;
inline constexpr uint32_t kMaxSections = 16;
inline constexpr uint64_t kRangeQuantum = 64;  // range boundaries are multiples of this
inline constexpr uint64_t kPartAlignment = 8;

enum class SectionKind : uint32_t {
  kRanges = 1,     // uint64[P + 1]: vertex range boundaries
  kOutIndex = 2,   // BlockEntry[P * P], source range major
  kOutBlocks = 3,  // the out grid's blocks
  kInIndex = 4,    // BlockEntry[P * P], destination range major; absent when undirected
  kInBlocks = 5,
  kIdMap = 6,       // uint64[n]: original id of each vertex (label mode, when not contiguous)
  kOutDegrees = 7,  // uint32 or uint64 (element_size) per vertex
  kInDegrees = 8,   // absent when undirected
};

std::string_view section_name(SectionKind kind);

enum class WeightType : uint8_t { kNone = 0, kInt32 = 1, kInt64 = 2, kFloat64 = 3 };

std::string_view weight_type_name(WeightType type);
inline uint32_t weight_bytes(WeightType type) {
  return type == WeightType::kNone ? 0 : (type == WeightType::kInt32 ? 4 : 8);
}

struct SectionEntry {
  uint32_t kind;          // SectionKind
  uint32_t element_size;  // bytes per element (1 for the blocks sections)
  uint64_t offset;        // from the start of the file, a multiple of kAlignment
  uint64_t bytes;         // payload size (the padding after it is not counted)
  uint64_t checksum;      // XXH3-64 of the payload (blocks sections: 0, their parts carry hashes)
};
static_assert(sizeof(SectionEntry) == 32);

enum class BlockLayout : uint8_t { kCsr = 0, kDcsr = 1 };
enum Part : int { kDirectory = 0, kNeighbors = 1, kWeights = 2 };
inline constexpr int kParts = 3;

// One row of a grid's index: where a block is and how it is encoded.
struct BlockEntry {
  uint64_t offset;              // of the block's first byte from the start of the file
  uint64_t part_bytes[kParts];  // directory, neighbours, weights (exact, without padding)
  uint64_t edge_count;          // arcs in the block (< 2^32)
  uint64_t vertex_count;        // directory entries: |major range| (CSR) or listed vertices (DCSR)
  uint8_t layout;               // BlockLayout
  uint8_t offset_bytes;         // 2 or 4
  uint8_t id_bytes;             // neighbour ids, local to the minor range: 2, 4 or 8
  uint8_t vertex_bytes;         // DCSR vertex ids, local to the major range: 2, 4 or 8; CSR 0
  uint32_t reserved;
  uint64_t hash[kParts];  // XXH3-64 of each part's bytes
};
static_assert(sizeof(BlockEntry) == 80);

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
  uint64_t num_arcs;     // arcs stored in the out grid (undirected: both directions)
  uint64_t num_edges;    // edges after cleaning (undirected: each edge once)
  uint64_t input_edges;  // edges read from the input
  uint64_t self_loops_removed;
  uint64_t duplicates_removed;
  uint64_t id_base;          // original id = dense id + id_base when there is no kIdMap
  uint32_t flags;            // Flags
  uint32_t blocks_per_side;  // P
  uint8_t id_bytes;          // 4 or 8: the width of a global vertex id
  uint8_t id_mode;           // IdMode
  uint8_t weight_type;       // WeightType
  uint8_t reserved0[5];
  double min_weight;
  double max_weight;
  uint32_t section_count;
  uint32_t requested_blocks;  // P asked for; larger than P when capped at ceil(n / 64)
  SectionEntry sections[kMaxSections];
  uint64_t header_checksum;  // XXH3-64 of the first sizeof(Header) bytes with this field zero
};
static_assert(sizeof(Header) <= kHeaderBytes);

inline uint64_t align_up(uint64_t x, uint64_t to = kAlignment) { return (x + to - 1) / to * to; }

// The narrowest width (2, 4 or 8 bytes) of an id local to a range of `size` vertices.
inline uint8_t local_id_bytes(uint64_t size) {
  if (size <= (uint64_t{1} << 16)) return 2;
  if (size <= (uint64_t{1} << 32)) return 4;
  return 8;
}
inline uint8_t offset_bytes_for(uint64_t edge_count) {
  return edge_count < (uint64_t{1} << 16) ? 2 : 4;
}

// Byte positions of a block's parts, relative to the block's first byte. Inside a DCSR
// directory the vertex list follows the offsets at the next 8-byte boundary.
struct PartPositions {
  uint64_t at[kParts];
  uint64_t end;  // the block's extent, padded so the next block starts 8-byte aligned
};
inline PartPositions part_positions(const uint64_t (&bytes)[kParts]) {
  PartPositions p{};
  p.at[kDirectory] = 0;
  p.at[kNeighbors] = align_up(bytes[kDirectory], kPartAlignment);
  p.at[kWeights] = p.at[kNeighbors] + align_up(bytes[kNeighbors], kPartAlignment);
  p.end = p.at[kWeights] + align_up(bytes[kWeights], kPartAlignment);
  return p;
}
inline uint64_t dcsr_vertices_at(uint64_t vertex_count, uint8_t offset_bytes) {
  return align_up((vertex_count + 1) * offset_bytes, kPartAlignment);
}

}  // namespace tg::format
