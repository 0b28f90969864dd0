#include "graph/block_check.h"

#include <fmt/format.h>
#include <xxhash.h>

namespace tg {

using format::BlockEntry;
using format::BlockLayout;

namespace {
bool valid_width(uint8_t w) { return w == 2 || w == 4 || w == 8; }
}  // namespace

std::string check_entry(const BlockEntry& e, const BlockShape& shape) {
  if (e.edge_count >= (uint64_t{1} << 32))
    return fmt::format("it claims {} arcs (a block holds fewer than 2^32)", e.edge_count);
  if (e.offset_bytes != 2 && e.offset_bytes != 4)
    return fmt::format("its offsets are {} bytes wide", e.offset_bytes);
  if (e.offset_bytes == 2 && e.edge_count >= (uint64_t{1} << 16))
    return "its 16-bit offsets cannot count its arcs";
  if (!valid_width(e.id_bytes) || e.id_bytes < format::local_id_bytes(shape.minor_size)) {
    return fmt::format("its {}-byte neighbour ids cannot span its {}-vertex column", e.id_bytes,
                       shape.minor_size);
  }
  uint64_t directory = 0;
  if (e.layout == static_cast<uint8_t>(BlockLayout::kCsr)) {
    if (e.vertex_count != shape.major_size) {
      return fmt::format("its CSR directory has {} entries for a {}-vertex range", e.vertex_count,
                         shape.major_size);
    }
    if (e.vertex_bytes != 0) return "its CSR directory names a vertex width";
    directory = (e.vertex_count + 1) * e.offset_bytes;
  } else if (e.layout == static_cast<uint8_t>(BlockLayout::kDcsr)) {
    if (shape.csr_only) return "a 1x1 grid's block is not CSR";
    if (e.vertex_count > shape.major_size || e.vertex_count > e.edge_count) {
      return fmt::format("its DCSR directory lists {} vertices ({} in range, {} arcs)",
                         e.vertex_count, shape.major_size, e.edge_count);
    }
    if (!valid_width(e.vertex_bytes) || e.vertex_bytes < format::local_id_bytes(shape.major_size)) {
      return fmt::format("its {}-byte vertex ids cannot span its {}-vertex range", e.vertex_bytes,
                         shape.major_size);
    }
    directory =
        format::dcsr_vertices_at(e.vertex_count, e.offset_bytes) + e.vertex_count * e.vertex_bytes;
  } else {
    return fmt::format("it has unknown layout {}", e.layout);
  }
  // Ranges are below 2^63 vertices (checked at open) and edge counts below 2^32, so none of
  // these products overflows.
  const uint64_t expected[format::kParts] = {directory, e.edge_count * e.id_bytes,
                                             e.edge_count * shape.weight_bytes};
  static constexpr const char* kNames[format::kParts] = {"directory", "neighbours", "weights"};
  for (int p = 0; p < format::kParts; ++p) {
    if (e.part_bytes[p] != expected[p]) {
      return fmt::format("its {} part is {} bytes, its counts say {}", kNames[p], e.part_bytes[p],
                         expected[p]);
    }
  }
  if (e.offset % format::kPartAlignment != 0)
    return fmt::format("it starts at byte {}, not 8-byte aligned", e.offset);
  return {};
}

std::string check_neighbours(const BlockDecoder& d, const BlockShape& shape, uint64_t first,
                             uint64_t last) {
  auto scan = [&]<typename T>() -> std::string {
    const T* ids = reinterpret_cast<const T*>(d.neighbours);
    // Branch-free over the range (it is the hot part of opening a file), then find the culprit.
    T worst = 0;
    for (uint64_t e = first; e < last; ++e) worst = ids[e] > worst ? ids[e] : worst;
    if (last > first && worst >= shape.minor_size) {
      for (uint64_t e = first; e < last; ++e)
        if (ids[e] >= shape.minor_size) {
          return fmt::format("neighbour {} has local id {}, outside its {}-vertex column", e,
                             uint64_t{ids[e]}, shape.minor_size);
        }
    }
    return {};
  };
  switch (d.id_bytes) {
    case 2:
      return scan.operator()<uint16_t>();
    case 4:
      return scan.operator()<uint32_t>();
    default:
      return scan.operator()<uint64_t>();
  }
}

bool part_hash_matches(const unsigned char* block, const BlockEntry& e, int part) {
  const auto at = format::part_positions(e.part_bytes).at[part];
  return XXH3_64bits(block + at, e.part_bytes[part]) == e.hash[part];
}

std::string validate_block(const unsigned char* bytes, uint64_t size, const BlockEntry& e,
                           const BlockShape& shape, uint64_t major_first, uint64_t minor_first,
                           bool check_hashes, bool with_weights) {
  if (auto problem = check_entry(e, shape); !problem.empty()) return problem;
  const auto positions = format::part_positions(e.part_bytes);
  const int parts = with_weights && shape.weight_bytes ? format::kParts : format::kWeights;
  const uint64_t needed = positions.at[parts - 1] + e.part_bytes[parts - 1];
  if (size < needed)
    return fmt::format("it arrived with {} bytes, its parts need {}", size, needed);
  if (check_hashes) {
    static constexpr const char* kNames[format::kParts] = {"directory", "neighbours", "weights"};
    for (int p = 0; p < parts; ++p)
      if (!part_hash_matches(bytes, e, p))
        return fmt::format("its {} fail their checksum", kNames[p]);
  }
  const auto d = BlockDecoder::at(bytes, e, major_first, minor_first);
  if (auto problem = check_directory(d, shape, 0, d.vertex_count, [](uint64_t, uint64_t) {});
      !problem.empty()) {
    return problem;
  }
  return check_neighbours(d, shape, 0, d.edge_count);
}

}  // namespace tg
