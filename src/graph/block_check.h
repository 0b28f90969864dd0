// Structural checks of version-2 blocks. They hold whatever --no-checksums says: only hashes
// may be skipped, never these, because the engine indexes vertex arrays with what a block holds
// and must not read outside them. Each check returns an empty string when the block is sound,
// otherwise what is wrong (the caller adds which file and block).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "graph/block_decoder.h"
#include "graph/format.h"

namespace tg {

// What a block must agree with: the sizes of its ranges and the file's widths.
struct BlockShape {
  uint64_t major_size = 0;  // vertices in the major range
  uint64_t minor_size = 0;  // vertices in the minor range
  uint32_t weight_bytes = 0;
  bool csr_only = false;  // a 1x1 grid is always CSR
};

// The index row alone: widths, counts and part lengths consistent with each other and with the
// shape. Reads no block bytes; after it passes, part_positions() cannot overflow.
std::string check_entry(const format::BlockEntry& e, const BlockShape& shape);

// Directory entries [first, last) of a block whose entry passed check_entry: offsets start at
// 0, never decrease, end at the edge count; DCSR vertices increase and lie in the major range.
// Calls degree(v, arcs) for each entry so the caller can compare with the degrees section.
template <typename Degree>
std::string check_directory(const BlockDecoder& d, const BlockShape& shape, uint64_t first,
                            uint64_t last, Degree&& degree);

// Neighbours [first, last): every id inside the minor range.
std::string check_neighbours(const BlockDecoder& d, const BlockShape& shape, uint64_t first,
                             uint64_t last);

// The part's hash against the index row.
bool part_hash_matches(const unsigned char* block, const format::BlockEntry& e, int part);

// A whole block that has just arrived in a buffer (a tier's fetch): every structural check,
// and the hashes of the parts present when check_hashes is set. `bytes` holds `size` bytes
// from the block's first byte; without with_weights (or in an unweighted file) the block was
// fetched as the prefix before its weights part.
std::string validate_block(const unsigned char* bytes, uint64_t size, const format::BlockEntry& e,
                           const BlockShape& shape, uint64_t major_first, uint64_t minor_first,
                           bool check_hashes, bool with_weights = true);

// ---------------------------------------------------------------------------------------------

template <typename Degree>
std::string check_directory(const BlockDecoder& d, const BlockShape& shape, uint64_t first,
                            uint64_t last, Degree&& degree) {
  if (first == 0 && d.offset(0) != 0) return "its first offset is not 0";
  if (last == d.vertex_count && d.offset(d.vertex_count) != d.edge_count) {
    return "its last offset is not its arc count";
  }
  uint64_t previous_vertex = 0;
  for (uint64_t k = first; k < last; ++k) {
    const uint64_t begin = d.offset(k), end = d.offset(k + 1);
    if (end < begin)
      return fmt::format("its offsets decrease at entry {} ({} then {})", k, begin, end);
    if (d.dcsr()) {
      const uint64_t local = d.vertex(k) - d.major_first;
      if (local >= shape.major_size) return "a listed vertex lies outside its range";
      if (k > 0 && k == first) previous_vertex = d.vertex(k - 1) - d.major_first;
      if (k > 0 && local <= previous_vertex) return "its vertex list is not increasing";
      previous_vertex = local;
    }
    degree(d.vertex(k), end - begin);
  }
  return {};
}

}  // namespace tg
