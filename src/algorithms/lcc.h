// Local clustering coefficient, as LDBC Graphalytics defines it: for a vertex v with neighbours
// N(v) in the undirected view (in- and out-neighbours, v itself excluded), the arcs among N(v)
// over the |N(v)| (|N(v)| - 1) ordered pairs they could join; 0 below two neighbours. An
// undirected edge is two arcs, so there it is networkx's clustering(). Technique: the engine's
// triangle pass, each triangle giving each corner the arcs of its opposite side, and the
// engine's neighbour counts. Verifier: verify/lcc.h.
#pragma once

#include <cstdint>

#include "algorithms/result.h"
#include "engine/combine.h"
#include "engine/concept.h"
#include "engine/triangles.h"

namespace tg {

template <IntersectingEngine Engine>
AlgorithmResult run_lcc(Engine& engine) {
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  const auto neighbours = engine.neighbour_counts();
  const auto opposite_arcs = [] TG_HOST_DEVICE(const Triangle<Id>& t) {
    return CornerShares{arc_count(t.vw), arc_count(t.uw), arc_count(t.uv)};
  };
  const auto arcs_among = engine.triangle_sums(opposite_arcs);
  const auto coefficient = engine.vertex_array(0.0);
  engine.for_each([=] TG_HOST_DEVICE(Id v) {
    const auto k = static_cast<double>(neighbours[v]);
    coefficient[v] = k >= 2 ? static_cast<double>(arcs_among[v]) / (k * (k - 1)) : 0.0;
  });
  const double sum =
      engine.reduce(SumOp<double>{}, [=] TG_HOST_DEVICE(Id v) { return coefficient[v]; });
  const auto n = static_cast<double>(engine.num_vertices());
  return AlgorithmResult(engine.collect(coefficient), {{"average", n > 0 ? sum / n : 0.0}});
}

}  // namespace tg
