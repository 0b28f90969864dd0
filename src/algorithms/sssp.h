// SSSP: shortest-path distances from a source over non-negative weights.
// Technique: delta-stepping (Meyer & Sanders 2003), as GAPBS runs it: vertices wait in the
// engine's bins of width delta by tentative distance; the lowest bin is relaxed (min-combine into
// dist) until it stays empty, then the next. Distances are double for real weights; for integer
// weights int64, or uint32 where no path can reach 2^32 - 1 (the caller decides from the largest
// weight: half the bytes per random relaxation, the pass's main cost). The result is int64 either
// way. Verifier: verify/sssp.h.
#pragma once

#include <cstdint>
#include <type_traits>

#include "algorithms/result.h"
#include "algorithms/weights.h"
#include "engine/concept.h"
#include "engine/program.h"

namespace tg {

template <typename Id, typename W, typename Dist = DistanceOf<W>>
struct SsspProgram {
  using Op = MinOp<Dist>;
  static constexpr bool kSourceReadsTarget = true;  // relaxes from dist, the target
  VertexArray<Dist> dist;

  TG_HOST_DEVICE Dist source_value(Id u) const { return dist.load(u); }  // others may lower it
  TG_HOST_DEVICE Dist message(Dist d, W w) const { return d + edge_length<Dist>(w); }
  TG_HOST_DEVICE VertexArray<Dist> target() const { return dist; }
  TG_HOST_DEVICE bool apply(Id) const { return true; }
};

// Dist: the distance type (delta's), DistanceOf<W> or, for integer weights, uint32_t.
template <GraphEngine Engine, typename Dist>
AlgorithmResult run_sssp(Engine& engine, uint64_t source, Dist delta) {
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  SsspProgram<Id, typename Engine::Weight, Dist> sssp{engine.vertex_array(MinOp<Dist>::identity())};
  engine.set(sssp.dist, source, Dist{0});
  auto bins = engine.bins();
  const auto bin_of = [=] TG_HOST_DEVICE(Id v) {
    return static_cast<uint64_t>(sssp.dist[v] / delta);
  };
  uint64_t rounds = 0, traversed = 0;
  for (auto frontier = engine.frontier_of(source); !frontier.empty();
       frontier = engine.next_bin(bins, bin_of), ++rounds) {
    traversed += frontier.out_edges();
    engine.to_bins(bins, engine.edge_pass(sssp, frontier), bin_of);
  }
  AlgorithmResult r(collect_distances(engine, sssp.dist),
                    {{"delta", delta}, {"rounds", rounds}, {"distance_bits", 8 * sizeof(Dist)}});
  r.edges_traversed = traversed;
  return r;
}

}  // namespace tg
