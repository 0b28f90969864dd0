// BFS: hop depth of every vertex from a source, and (with parents) a BFS tree (bfs_tree.h).
// Technique: direction-optimizing BFS (Beamer, Asanovic, Patterson, SC'12) falls out of the
// engine: push claims unvisited vertices; pull lets each unvisited vertex look for any in-neighbour
// in the frontier and stop at the first (saturated: any one will do). The depth is the whole
// state, and the messages are the frontier's depth + 1: one array and one random write a vertex.
// Verifier: verify/bfs.h.
#pragma once

#include <cstdint>

#include "algorithms/bfs_tree.h"
#include "algorithms/result.h"
#include "engine/concept.h"
#include "engine/program.h"

namespace tg {

template <typename Id>
struct BfsProgram {
  using Op = MinOp<int64_t>;  // every message of a pass is the same depth
  static constexpr bool kActivatesOnce = true;
  static constexpr bool kSourceIsVertex = true;  // no source value is read: nothing to ship
  VertexArray<int64_t> depth;
  int64_t level = 0;  // the frontier's depth

  TG_HOST_DEVICE Id source_value(Id u) const { return u; }
  TG_HOST_DEVICE int64_t message(Id, auto) const { return level + 1; }
  TG_HOST_DEVICE VertexArray<int64_t> target() const { return depth; }
  TG_HOST_DEVICE bool wants(int64_t now) const { return now == kUnreached; }
  TG_HOST_DEVICE bool saturated(int64_t now) const { return now != kUnreached; }
  TG_HOST_DEVICE bool apply(Id) const { return true; }
};

template <GraphEngine Engine>
AlgorithmResult run_bfs(Engine& engine, uint64_t source, bool with_parents) {
  if (with_parents) return run_bfs_tree(engine, source);
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  BfsProgram<Id> bfs{engine.vertex_array(kUnreached)};
  engine.set(bfs.depth, source, int64_t{0});
  uint64_t traversed = 0;
  for (auto frontier = engine.frontier_of(source); !frontier.empty(); ++bfs.level) {
    traversed += frontier.out_edges();
    frontier = engine.edge_pass(bfs, frontier);
  }
  AlgorithmResult r(engine.collect(bfs.depth), {{"levels", bfs.level}});
  r.edges_traversed = traversed;
  return r;
}

}  // namespace tg
