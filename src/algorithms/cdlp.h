// Community detection by label propagation (CDLP), as LDBC Graphalytics defines it: every vertex
// starts labelled with its own id; in each of a fixed number of synchronous rounds it takes the
// label most frequent among its neighbours' labels of the last round, the smallest of those tied,
// and keeps its own when it has no neighbour. A directed graph's in- and out-neighbours both
// count, one joined by arcs both ways twice. Labels are dense ids, which increase with the
// original ids, so "the smallest" is the same in both. Technique: the engine's gather pass, which
// hands each vertex its neighbours' labels sorted; the first of the longest runs is taken.
// Verifier: verify/cdlp.h.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/result.h"
#include "engine/concept.h"
#include "util/host_device.h"

namespace tg {

// Graphalytics' rounds where none are asked for (its reference answers use 10).
inline constexpr uint32_t kDefaultCdlpRounds = 10;

// The smallest of the most frequent labels among `near` (sorted), or `own` if it is empty.
template <typename Id>
TG_HOST_DEVICE Id most_frequent_label(Id own, std::span<const Id> near) {
  Id best = own;
  size_t best_run = 0;
  for (size_t i = 0, j = 0; i < near.size(); i = j) {
    while (j < near.size() && near[j] == near[i]) ++j;
    if (j - i > best_run) best = near[i], best_run = j - i;  // ties keep the smaller, met first
  }
  return best;
}

template <GatheringEngine Engine>
AlgorithmResult run_cdlp(Engine& engine, uint32_t rounds) {
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  const auto labels = engine.vertex_array_from([] TG_HOST_DEVICE(Id v) { return v; });
  engine.gather_rounds(labels, rounds, [] TG_HOST_DEVICE(Id own, std::span<const Id> near) {
    return most_frequent_label(own, near);
  });
  const auto widen = [] TG_HOST_DEVICE(Id label) { return static_cast<int64_t>(label); };
  AlgorithmResult r =
      AlgorithmResult::of_vertices(engine.collect(labels, widen), {{"rounds", rounds}});
  r.edges_traversed = engine.num_arcs() * rounds;
  return r;
}

}  // namespace tg
