// The P vertex ranges of a grid: boundaries on multiples of 64 vertices (a thread or a rank owns
// whole bitmap words), balanced on the work a range carries in a pass: its arcs plus a fixed
// cost per vertex (its state, its frontier bit, its directory entry), Gemini's a*|V| + |E|.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tg {

// What a vertex costs in a pass, in arcs.
inline constexpr uint64_t kVertexCost = 8;

// At most ceil(n / 64) ranges fit (at least one for n = 0).
uint32_t most_ranges(uint64_t n);

// P + 1 boundaries, 0 = b_0 < b_1 < ... < b_P = n (all b_0..b_{P-1} multiples of 64), each range
// costing about the same; `degrees` holds each vertex's arcs. P must be at most most_ranges(n).
std::vector<uint64_t> balanced_ranges(std::span<const uint64_t> degrees, uint32_t p);

// The range of each 64-vertex word of vertices (ranges are whole words, so this finds the
// range of any vertex with one load).
std::vector<uint32_t> range_of_words(std::span<const uint64_t> bounds, uint64_t n);

}  // namespace tg
