// Radii verifier: the K sampled BFSs (K <= 64) recomputed serially from the stored arcs, without
// the engine, and each vertex's eccentricity estimate checked against the last depth at which
// one of them reaches it.
//
// The K searches run together, one bit each in a 64-bit word per vertex, and each level is one
// sweep over the stored arcs in file order: three words a vertex and no adjacency. An adjacency
// list of the whole graph (16 bytes an arc and a vector a vertex) is what made the verifier, not
// the run, outgrow a 2 GiB budget on a graph twice that size (issue 35); a sweep costs one read
// of the arcs a level, as the run's own passes do.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "algorithms/result.h"
#include "graph/graph_view.h"

namespace tg {

// Bytes the verifier holds beyond the run's result: what a budget must leave it.
inline uint64_t radii_verifier_bytes(uint64_t vertices) { return vertices * 3 * sizeof(uint64_t); }

template <typename Id, typename W>
Verdict verify_radii(const GraphView<Id, W>& g, std::span<const uint64_t> sources,
                     const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  if (sources.size() > 64)
    return Verdict::fail(fmt::format("{} sources; radii samples at most 64", sources.size()));
  if (r.ints.size() != n)
    return Verdict::fail(fmt::format("{} estimates for {} vertices", r.ints.size(), n));
  // seen: the searches that have reached v; fresh: those that reached it at the current level
  // (what its arcs carry in the next sweep); arriving: what the sweep brings it.
  std::vector<uint64_t> seen(n, 0), fresh(n, 0), arriving(n, 0);
  for (size_t k = 0; k < sources.size(); ++k) arriving[sources[k]] |= uint64_t{1} << k;
  // A vertex's estimate is the last level at which a search reached it, so at each level L: a
  // vertex reached anew must not claim less than L, and one claiming L must be reached anew.
  // Returns whether a search reached something anew (false too on a failure, kept in `failure`).
  Verdict failure;
  auto settle = [&](int64_t level) {
    bool any = false;
    for (uint64_t v = 0; v < n; ++v) {
      const uint64_t now = arriving[v] & ~seen[v];
      arriving[v] = 0;
      fresh[v] = now;
      seen[v] |= now;
      any |= now != 0;
      if (now != 0 && (r.ints[v] < level || r.ints[v] == kUnreached)) {
        const std::string claim = r.ints[v] == kUnreached ? "unreached" : std::to_string(r.ints[v]);
        failure = Verdict::fail(fmt::format(
            "vertex {}: eccentricity estimate {}, but a sampled source reaches it at depth {}", v,
            claim, level));
        return false;
      }
      if (now == 0 && r.ints[v] == level) {
        failure = Verdict::fail(fmt::format(
            "vertex {}: eccentricity estimate {}, but no sampled BFS reaches it at that depth", v,
            level));
        return false;
      }
    }
    return any;
  };
  int64_t level = 0;
  while (settle(level)) {
    ++level;
    g.for_each_arc([&](uint64_t u, uint64_t v, W) { arriving[v] |= fresh[u]; });
  }
  if (!failure.ok) return failure;
  // The searches ended at `level` (nothing new there): every estimate above it, or on a vertex
  // no search reached, is wrong.
  for (uint64_t v = 0; v < n; ++v) {
    const int64_t e = r.ints[v];
    if (seen[v] == 0 && e != kUnreached) {
      return Verdict::fail(fmt::format(
          "vertex {}: eccentricity estimate {}, but no sampled source reaches it", v, e));
    }
    if (seen[v] != 0 && e >= level) {
      return Verdict::fail(
          fmt::format("vertex {}: eccentricity estimate {}, but the sampled BFSs end at depth {}",
                      v, e, level - 1));
    }
  }
  return {};
}

}  // namespace tg
