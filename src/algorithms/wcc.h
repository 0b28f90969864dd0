// WCC: weakly connected components (components of an undirected graph). Each vertex's label is
// the smallest original id in its component, so results compare exactly across runs and systems.
// Technique: Afforest (Sutton, Ben-Nun, Barak, IPDPS 2018) over a forest of parent pointers,
// where every link hooks the larger of two roots under the smaller, so each tree's root is its
// least vertex. Every vertex is linked to its first out-neighbour, the forest compressed, then
// to its second, compressed again (short paths to the roots make the later links cheap): that
// already joins most of a giant component. A sample of the parents names the giant's root, and
// then only the vertices outside the giant tree link their other arcs, both ways.
// Skipping the giant's arcs loses no link: an arc from the giant to another tree is that other
// vertex's arc too (its out-arc, or its in-arc on a directed graph), and arcs inside the giant
// join nothing new. No edge pass and no rounds, where min-label rounds need several
// (FastSV) or one per hop of the diameter (label propagation, thousands on road networks).
// Dense ids increase with original ids, so the root is the least original id.
// Verifier: verify/wcc.h.
#pragma once

#include <cstdint>

#include "algorithms/result.h"
#include "engine/concept.h"

namespace tg {

template <GraphEngine Engine>
AlgorithmResult run_wcc(Engine& engine) {
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  const auto ops = engine.ops();
  const auto parent = engine.vertex_array_from([] TG_HOST_DEVICE(Id v) { return v; });
  const auto link = [=] TG_HOST_DEVICE(Id u, Id v) { ops.link(parent, u, v); };
  // The sample: a vertex's first two out-arcs, one a pass, the trees flattened after each.
  constexpr uint32_t kSampled = 2;
  for (uint32_t r = 0; r < kSampled; ++r) {
    engine.sample_pass(r, link);
    engine.compress(parent);
  }
  const Id giant = engine.most_frequent(parent, 1024);
  const auto rest =
      engine.select(engine.all(), [=] TG_HOST_DEVICE(Id v) { return parent[v] != giant; });
  engine.arc_pass(rest, kSampled, link);
  const auto components = engine.reduce(
      SumOp<uint64_t>{}, [=] TG_HOST_DEVICE(Id v) { return uint64_t{parent[v] == v}; });
  // v's root is p's
  const auto label = [=] TG_HOST_DEVICE(Id p) { return static_cast<int64_t>(ops.root(parent, p)); };
  return AlgorithmResult::of_vertices(engine.collect(parent, label),
                                      {{"components", components}, {"outside_giant", rest.size()}});
}

}  // namespace tg
