// WCC: weakly connected components (components of an undirected graph). Each vertex's label is
// the smallest original id in its component, so results compare exactly across runs and systems.
// Technique: FastSV (Zhang, Azad, Hu, SIAM PP 2020), a min-label algorithm over a forest of
// parent pointers that needs O(log n)-like rounds where plain label propagation needs one round
// per hop of the diameter (thousands on road networks). Each round: one min-combine edge pass
// (both directions) gives every vertex the least grandparent among its neighbours; then a vertex
// pass hooks (a vertex and its parent adopt that value) and shortcuts (a vertex adopts its
// grandparent). Only vertices whose grandparent changed send in the next round. Pointers only
// ever move to a smaller vertex of the same component, so the component's least vertex is the
// root all others reach; dense ids increase with original ids, so it is the least original id.
// Before the rounds, as Afforest (Sutton et al., IPDPS 2018) does, every vertex is linked to its
// first two neighbours: that forest already holds most of a giant component, whose edges the
// first round then skips (it reads only the edges of vertices outside it, both ways).
// Verifier: verify/wcc.h.
#pragma once

#include <cstdint>

#include "algorithms/result.h"
#include "algorithms/wcc_model.h"
#include "engine/concept.h"
#include "engine/program.h"

namespace tg {

template <typename Id>
struct WccProgram {
  using Op = MinOp<Id>;
  static constexpr bool kBothDirections = true;
  // what an edge carries, and the combine target: the least grandparent seen over the edges
  VertexArray<Id> grandparent, least;

  TG_HOST_DEVICE Id source_value(Id u) const { return grandparent[u]; }
  TG_HOST_DEVICE Id message(Id g, auto) const { return g; }
  TG_HOST_DEVICE VertexArray<Id> target() const { return least; }
  TG_HOST_DEVICE bool apply(Id) const { return false; }  // activity: the grandparent change below
};

template <GraphEngine Engine>
AlgorithmResult run_wcc(Engine& engine) {
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  const auto ops = engine.ops();
  const auto parent = engine.vertex_array_from([] TG_HOST_DEVICE(Id v) { return v; });
  engine.sample_pass(2, [=] TG_HOST_DEVICE(Id u, Id v) { ops.link(parent, u, v); });
  engine.compress(parent);
  uint64_t rounds = 0;
  {
    // The rounds' arrays go before the labels are made from the parents (a result beside three
    // arrays would be the run's peak).
    auto rounds_scope = engine.scope();
    const WccProgram<Id> wcc{engine.copy(parent), engine.copy(parent)};
    const Id giant = engine.most_frequent(parent, 1024);
    auto frontier =
        engine.select(engine.all(), [=] TG_HOST_DEVICE(Id v) { return parent[v] != giant; });
    engine.edge_pass(wcc, engine.all(), {.direction = Direction::kPull, .targets = &frontier});
    for (; !frontier.empty(); ++rounds) {
      engine.edge_pass(wcc, frontier, {.direction = rounds ? Direction::kAuto : Direction::kPush});
      engine.for_each(FastSvHook<Id, decltype(ops)>{parent, wcc.least, wcc.grandparent, ops});
      frontier = engine.select(engine.all(), [=] TG_HOST_DEVICE(Id v) {
        return ops.update(wcc.grandparent, v, parent[parent[v]]);
      });
    }
  }
  const auto components = engine.reduce(
      SumOp<uint64_t>{}, [=] TG_HOST_DEVICE(Id v) { return uint64_t{parent[v] == v}; });
  // v's root is p's
  const auto label = [=] TG_HOST_DEVICE(Id p) { return static_cast<int64_t>(ops.root(parent, p)); };
  return AlgorithmResult::of_vertices(engine.collect(parent, label),
                                      {{"components", components}, {"rounds", rounds}});
}

}  // namespace tg
