// Triangle counting: the triangles of the graph's undirected view (the arcs of a directed graph
// taken as edges, a pair of vertices joined once however many arcs join it), in all and through
// each vertex. The total is GAPBS's tc's; the counts per vertex are networkx's triangles().
// Technique: the engine's triangle pass finds each triangle once (from lists ordered by degree,
// as GAPBS orders them), and each adds one at each corner. Verifier: verify/tc.h.
#pragma once

#include <cstdint>

#include "algorithms/result.h"
#include "engine/combine.h"
#include "engine/concept.h"
#include "engine/triangles.h"

namespace tg {

template <IntersectingEngine Engine>
AlgorithmResult run_tc(Engine& engine) {
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  const auto one_at_each_corner = [] TG_HOST_DEVICE(const Triangle<Id>&) {
    return CornerShares{1, 1, 1};
  };
  const auto through = engine.triangle_sums(one_at_each_corner);
  const auto corners = engine.reduce(
      SumOp<uint64_t>{}, [=] TG_HOST_DEVICE(Id v) { return static_cast<uint64_t>(through[v]); });
  AlgorithmResult r(engine.collect(through), {{"triangles", corners / 3}});
  r.edges_traversed = engine.num_arcs();
  return r;
}

}  // namespace tg
