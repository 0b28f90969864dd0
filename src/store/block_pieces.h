// Blocks leased in pieces: how a store whose buffers are smaller than its largest block cuts a
// block into parts that each fit one buffer, and how a piece is laid out, checked and decoded
// once its bytes have arrived.
//
// A piece is a run of directory entries and the arcs they own, cut between vertices where a
// vertex fits, and inside a vertex's arcs where one vertex alone has more arcs than a buffer
// holds (a hub's row in a power-law graph). The piece arrives as its own small block:
//
//   [offsets (entries + 1) | DCSR vertices (entries) | neighbours (arcs) | weights (arcs)]
//
// each part 8-byte aligned, offsets rebased to the piece's first arc and clipped to its arcs (the
// entry of a cut vertex keeps only the arcs inside the piece). A BlockDecoder then reads it like
// any block: CSR pieces start their major range at their first vertex, DCSR pieces keep the
// range's first vertex and list their own vertices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/block_check.h"
#include "graph/block_decoder.h"
#include "graph/format.h"
#include "store/block_store.h"

namespace tg {

// A piece's parts packed 8-byte aligned: how many bytes it takes (what a buffer must hold).
struct PieceLayout {
  uint64_t offsets_bytes = 0, vertices_at = 0, vertices_bytes = 0, neighbours_at = 0,
           neighbours_bytes = 0;
  uint64_t weights_at = 0, weights_bytes = 0, end = 0;
};
PieceLayout piece_layout(const format::BlockEntry& e, uint64_t entries, uint64_t arcs,
                         uint32_t weight_bytes);

// Cuts block d (index row e) into pieces of at most `capacity` bytes each, in order, covering
// every directory entry and every arc once. weight_bytes: 0 when the pass reads no weights.
// capacity must hold one entry and one arc (64 bytes do).
std::vector<BlockPiece> cut_into_pieces(const BlockDecoder& d, const format::BlockEntry& e,
                                        uint64_t capacity, uint32_t weight_bytes);

// Where a piece's four parts lie once read (a store places each where its transfer's alignment
// allows); vertices is unused for CSR, weights when unread.
struct PieceParts {
  unsigned char* offsets = nullptr;
  const unsigned char* vertices = nullptr;
  const unsigned char* neighbours = nullptr;
  const unsigned char* weights = nullptr;
};

// After a piece's parts have arrived (offsets as the file holds them): checks that the offsets
// agree with the piece's arcs, rebases them, and checks the structure (DCSR vertices increasing
// inside the range, neighbours inside the minor range). Returns what is wrong, or an empty
// string with `out` decoding the piece. A piece's bytes are part of a part, so its hashes cannot
// be checked alone; a whole block's are.
std::string settle_piece(const PieceParts& parts, const format::BlockEntry& e,
                         const BlockShape& shape, const BlockPiece& piece, uint64_t major_first,
                         uint64_t minor_first, BlockDecoder& out);

}  // namespace tg
