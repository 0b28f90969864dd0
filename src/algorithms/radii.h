// Radii: each vertex's eccentricity estimated from K sampled sources (at most 64): the largest
// hop distance from any sampled source to it, with the diameter estimate the largest of those.
// Technique: bit-parallel BFS (as Ligra's Radii): every vertex holds a 64-bit mask of the sources
// that have reached it; an or-combine edge pass advances all K searches one hop at once; a vertex
// whose mask changed in round r has eccentricity estimate r. A vertex cannot improve once it has
// every source's bit (the saturated point that lets pull stop early). Verifier: verify/radii.h.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/result.h"
#include "engine/concept.h"
#include "engine/program.h"

namespace tg {

template <typename Id>
struct RadiiProgram {
  using Op = OrOp<uint64_t>;
  VertexArray<uint64_t> seen;  // sources that reached v before this round (what an edge carries)
  VertexArray<uint64_t> next;  // sources that reached v so far (the combine target)
  VertexArray<int64_t> eccentricity;
  uint64_t all_sources = 0;
  int64_t round = 0;

  TG_HOST_DEVICE uint64_t source_value(Id u) const { return seen[u]; }
  TG_HOST_DEVICE uint64_t message(uint64_t s, auto) const { return s; }
  TG_HOST_DEVICE VertexArray<uint64_t> target() const { return next; }
  TG_HOST_DEVICE bool wants(uint64_t reached) const { return reached != all_sources; }
  TG_HOST_DEVICE bool saturated(uint64_t reached) const { return reached == all_sources; }
  TG_HOST_DEVICE bool apply(Id v) const {
    eccentricity[v] = round + 1;
    return true;
  }
};

template <GraphEngine Engine>
AlgorithmResult run_radii(Engine& engine, std::span<const uint64_t> sources) {
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  RadiiProgram<Id> radii{engine.vertex_array(uint64_t{0}), engine.vertex_array(uint64_t{0}),
                         engine.vertex_array(kUnreached)};
  radii.all_sources = sources.size() == 64 ? ~uint64_t{0} : (uint64_t{1} << sources.size()) - 1;
  for (size_t k = 0; k < sources.size(); ++k) {  // source k's bit
    engine.combine_at(OrOp<uint64_t>{}, radii.seen, sources[k], uint64_t{1} << k);
    engine.combine_at(OrOp<uint64_t>{}, radii.next, sources[k], uint64_t{1} << k);
    engine.set(radii.eccentricity, sources[k], int64_t{0});
  }
  for (auto frontier = engine.frontier_of(sources); !frontier.empty(); ++radii.round) {
    frontier = engine.edge_pass(radii, frontier);
    engine.for_each(frontier, [=] TG_HOST_DEVICE(Id v) { radii.seen[v] = radii.next[v]; });
  }
  const int64_t diameter = engine.reduce(MaxOp<int64_t>{}, [=] TG_HOST_DEVICE(Id v) {
    return radii.eccentricity[v] == kUnreached ? int64_t{0} : radii.eccentricity[v];
  });
  return AlgorithmResult(engine.collect(radii.eccentricity),
                         {{"diameter_estimate", diameter}, {"sources", sources.size()}});
}

}  // namespace tg
