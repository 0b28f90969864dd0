// How an edge pass walks the edges: vertex by vertex (every block of the pass resident, a
// vertex's edges read across its row or column), or block by block (tasks over the block grid,
// each block read as its lease arrives from the store). auto: block-major when the store fetches
// blocks (only then can fetching overlap computing); over a zero-copy store, vertex-major on
// grids of at most kVertexMajorMaxSide ranges a side and block-major on finer ones.
// Why the cut (bench/results/schedules.md, Kronecker-20, one thread): on a 1x1 grid vertex-major
// is 1.2-1.7x faster than block-major (flat CSR, no per-block work) and the fastest of all; at
// 4x4 the two are even (0.67-1.25 by kernel); from 16x16 on, a vertex reads its edges across 16+
// blocks and block-major, which keeps each block's targets in cache, is 0.30-0.86x of it (SSSP
// and WCC at 16x16 aside, 1.14 and 1.04).
#pragma once

#include <cstdint>

namespace tg {

inline constexpr uint32_t kVertexMajorMaxSide = 4;

enum class Schedule { kAuto, kVertex, kBlock };

inline const char* schedule_name(Schedule s) {
  return s == Schedule::kVertex ? "vertex" : s == Schedule::kBlock ? "block" : "auto";
}

}  // namespace tg
