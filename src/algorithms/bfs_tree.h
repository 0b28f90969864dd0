// BFS with its tree: the hop depth of every vertex from a source and a parent for each reached
// vertex (`--parents`). As bfs.h, but the messages are candidate parents and the depth is
// written when a vertex is reached: an array and a random write more a vertex.
// Verifier: verify/bfs.h (the tree is checked as a BFS tree of the depths).
#pragma once

#include <cstdint>
#include <limits>

#include "algorithms/result.h"
#include "engine/concept.h"
#include "engine/program.h"

namespace tg {

template <typename Id>
struct BfsTreeProgram {
  using Op = MinOp<Id>;  // messages are candidate parents; any one will do
  static constexpr bool kActivatesOnce = true;
  static constexpr bool kSourceIsVertex = true;  // a vertex offers itself as the parent
  static constexpr Id kNone = std::numeric_limits<Id>::max();
  VertexArray<Id> parent;
  VertexArray<int64_t> depth;
  int64_t level = 0;

  TG_HOST_DEVICE Id source_value(Id u) const { return u; }
  TG_HOST_DEVICE Id message(Id u, auto) const { return u; }
  TG_HOST_DEVICE VertexArray<Id> target() const { return parent; }
  TG_HOST_DEVICE bool wants(Id parent_now) const { return parent_now == kNone; }
  TG_HOST_DEVICE bool saturated(Id parent_now) const { return parent_now != kNone; }
  TG_HOST_DEVICE bool apply(Id v) const {
    depth[v] = level + 1;
    return true;
  }
};

template <GraphEngine Engine>
AlgorithmResult run_bfs_tree(Engine& engine, uint64_t source) {
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  BfsTreeProgram<Id> bfs{engine.vertex_array(BfsTreeProgram<Id>::kNone),
                         engine.vertex_array(kUnreached)};
  engine.set(bfs.parent, source, static_cast<Id>(source));
  engine.set(bfs.depth, source, int64_t{0});
  uint64_t traversed = 0;
  for (auto frontier = engine.frontier_of(source); !frontier.empty(); ++bfs.level) {
    traversed += frontier.out_edges();
    frontier = engine.edge_pass(bfs, frontier);
  }
  AlgorithmResult r(engine.collect(bfs.depth), {{"levels", bfs.level}});
  r.parents = engine.collect(bfs.parent, [] TG_HOST_DEVICE(Id p) {
    return p == BfsTreeProgram<Id>::kNone ? int64_t{-1} : static_cast<int64_t>(p);
  });
  r.edges_traversed = traversed;
  return r;
}

}  // namespace tg
