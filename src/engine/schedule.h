// How an edge pass walks the edges: vertex by vertex (every block of the pass resident, a
// vertex's edges read across its row or column), or block by block (tasks over the block grid,
// each block read as its lease arrives from the store). auto: vertex-major when the store is
// zero-copy (every block resident: in memory the vertex-major loops are the fastest), block-major
// when the store fetches blocks (only then can fetching overlap computing).
#pragma once

namespace tg {

enum class Schedule { kAuto, kVertex, kBlock };

inline const char* schedule_name(Schedule s) {
  return s == Schedule::kVertex ? "vertex" : s == Schedule::kBlock ? "block" : "auto";
}

}  // namespace tg
