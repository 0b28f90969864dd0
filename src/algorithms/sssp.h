// SSSP: shortest-path distances from a source over non-negative weights.
// Technique: delta-stepping (Meyer & Sanders 2003), as GAPBS runs it: vertices wait in the
// engine's bins of width delta by tentative distance; the lowest bin is relaxed (min-combine into
// dist) until it stays empty, then the next. Distances are int64 for integer weights, double for
// real ones. Verifier: verify/sssp.h.
#pragma once

#include <cstdint>

#include "algorithms/result.h"
#include "algorithms/weights.h"
#include "engine/program.h"

namespace tg {

template <typename Id, typename W>
struct SsspProgram {
  using Dist = DistanceOf<W>;
  using Op = MinOp<Dist>;
  static constexpr bool kSourceReadsTarget = true;  // relaxes from dist, the target
  VertexArray<Dist> dist;

  TG_HOST_DEVICE Dist source_value(Id u) const { return dist.load(u); }  // others may lower it
  TG_HOST_DEVICE Dist message(Dist d, W w) const { return d + edge_length<Dist>(w); }
  TG_HOST_DEVICE VertexArray<Dist> target() const { return dist; }
  TG_HOST_DEVICE bool apply(Id) const { return true; }
};

template <typename Engine>
AlgorithmResult run_sssp(Engine& engine, uint64_t source, DistanceOf<typename Engine::Weight> delta) {
  using Id = typename Engine::VertexId;
  using Dist = DistanceOf<typename Engine::Weight>;
  auto scope = engine.scope();
  SsspProgram<Id, typename Engine::Weight> sssp{engine.vertex_array(MinOp<Dist>::identity())};
  engine.set(sssp.dist, source, Dist{0});
  auto bins = engine.bins();
  auto bin_of = [&](Id v) { return static_cast<uint64_t>(sssp.dist[v] / delta); };
  uint64_t rounds = 0, traversed = 0;
  for (auto frontier = engine.frontier_of(source); !frontier.empty(); frontier = engine.next_bin(bins, bin_of), ++rounds) {
    traversed += frontier.out_edges();
    engine.to_bins(bins, engine.edge_pass(sssp, frontier), bin_of);
  }
  // Unreached vertices keep the identity: +inf for real distances, kUnreached for integers.
  AlgorithmResult r(engine.collect(sssp.dist), {{"delta", delta}, {"rounds", rounds}});
  r.edges_traversed = traversed;
  return r;
}

}  // namespace tg
