#include "store/block_pieces.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.h"

namespace tg {

using format::align_up;
using format::kPartAlignment;

PieceLayout piece_layout(const format::BlockEntry& e, uint64_t entries, uint64_t arcs,
                         uint32_t weight_bytes) {
  PieceLayout l;
  l.offsets_bytes = (entries + 1) * e.offset_bytes;
  l.vertices_at = align_up(l.offsets_bytes, kPartAlignment);
  l.vertices_bytes =
      e.layout == static_cast<uint8_t>(format::BlockLayout::kDcsr) ? entries * e.vertex_bytes : 0;
  l.neighbours_at = l.vertices_at + align_up(l.vertices_bytes, kPartAlignment);
  l.neighbours_bytes = arcs * e.id_bytes;
  l.weights_at = l.neighbours_at + align_up(l.neighbours_bytes, kPartAlignment);
  l.weights_bytes = arcs * weight_bytes;
  l.end = l.weights_at + align_up(l.weights_bytes, kPartAlignment);
  return l;
}

std::vector<BlockPiece> cut_into_pieces(const BlockDecoder& d, const format::BlockEntry& e,
                                        uint64_t capacity, uint32_t weight_bytes) {
  auto fits = [&](uint64_t entries, uint64_t arcs) {
    return piece_layout(e, entries, arcs, weight_bytes).end <= capacity;
  };
  if (!fits(1, 1))
    fail("internal: a buffer of {} bytes cannot hold one entry and one arc", capacity);
  std::vector<BlockPiece> pieces;
  uint64_t k0 = 0,
           a0 = 0;  // the next piece starts at entry k0 and arc a0 (inside k0's arcs after a cut)
  while (k0 < d.vertex_count) {
    uint64_t k1 = k0;
    while (k1 < d.vertex_count && fits(k1 + 1 - k0, d.offset(k1 + 1) - a0)) ++k1;
    uint64_t a1;
    if (k1 > k0) {
      a1 = d.offset(k1);
    } else {  // entry k0 alone does not fit: as many of its arcs as do
      k1 = k0 + 1;
      uint64_t lo = 1, hi = d.offset(k1) - a0;  // fits(1, lo) holds, fits(1, hi) does not
      while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        (fits(1, mid) ? lo : hi) = mid;
      }
      a1 = a0 + lo;
    }
    pieces.push_back({.vertex_first = d.vertex(k0),
                      .vertex_last = d.vertex(k1 - 1) + 1,
                      .entry_first = k0,
                      .entry_last = k1,
                      .arc_first = a0,
                      .arc_last = a1});
    k0 = a1 == d.offset(k1) ? k1 : k1 - 1;
    a0 = a1;
  }
  return pieces;
}

std::string settle_piece(const PieceParts& parts, const format::BlockEntry& e,
                         const BlockShape& shape, const BlockPiece& piece, uint64_t major_first,
                         uint64_t minor_first, BlockDecoder& out) {
  const uint64_t entries = piece.entry_last - piece.entry_first,
                 arcs = piece.arc_last - piece.arc_first;
  unsigned char* buffer = parts.offsets;
  auto offset_at = [&](uint64_t k) -> uint64_t {
    return e.offset_bytes == 2 ? reinterpret_cast<const uint16_t*>(buffer)[k]
                               : reinterpret_cast<const uint32_t*>(buffer)[k];
  };
  // The offsets as the file holds them: non-decreasing, the first entry's arcs starting at or
  // before the piece's first arc and the last entry's ending at or after its last one.
  for (uint64_t k = 1; k <= entries; ++k) {
    if (offset_at(k) < offset_at(k - 1)) {
      return fmt::format("its offsets decrease at entry {} ({} then {})", piece.entry_first + k,
                         offset_at(k - 1), offset_at(k));
    }
  }
  const uint64_t first = offset_at(0), last = offset_at(entries);
  const bool inside = first <= piece.arc_first &&
                      (entries < 2 || offset_at(1) >= piece.arc_first) && last >= piece.arc_last &&
                      last <= e.edge_count &&
                      (entries < 2 || offset_at(entries - 1) <= piece.arc_last);
  if (!inside) {
    return fmt::format("entries {} to {} hold arcs {} to {}, not the piece's arcs {} to {}",
                       piece.entry_first, piece.entry_last, first, last, piece.arc_first,
                       piece.arc_last);
  }
  // Rebased to the piece's first arc, a cut vertex's entry clipped to the piece.
  for (uint64_t k = 0; k <= entries; ++k) {
    const uint64_t local =
        std::clamp(offset_at(k), piece.arc_first, piece.arc_last) - piece.arc_first;
    if (e.offset_bytes == 2)
      reinterpret_cast<uint16_t*>(buffer)[k] = static_cast<uint16_t>(local);
    else
      reinterpret_cast<uint32_t*>(buffer)[k] = static_cast<uint32_t>(local);
  }
  const bool dcsr = e.layout == static_cast<uint8_t>(format::BlockLayout::kDcsr);
  BlockDecoder d;
  d.directory = buffer;
  d.vertices = dcsr ? parts.vertices : nullptr;
  d.neighbours = parts.neighbours;
  d.weights = parts.weights;
  d.major_first = dcsr ? major_first
                       : major_first + piece.entry_first;  // CSR: entry k is vertex major_first + k
  d.minor_first = minor_first;
  d.vertex_count = entries;
  d.edge_count = arcs;
  d.offset_bytes = e.offset_bytes;
  d.id_bytes = e.id_bytes;
  d.vertex_bytes = e.vertex_bytes;
  BlockShape piece_shape = shape;
  if (!dcsr) piece_shape.major_size = entries;
  if (auto problem = check_directory(d, piece_shape, 0, entries, [](uint64_t, uint64_t) {});
      !problem.empty()) {
    return problem;
  }
  if (auto problem = check_neighbours(d, shape, 0, arcs); !problem.empty()) return problem;
  out = d;
  return {};
}

}  // namespace tg
