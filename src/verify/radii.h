// Radii verifier: the K sampled BFSs run one at a time, serially, from the stored arcs.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "algorithms/result.h"
#include "graph/graph_view.h"
#include "verify/reference.h"

namespace tg {

template <typename Id, typename W>
Verdict verify_radii(const GraphView<Id, W>& g, std::span<const uint64_t> sources, const AlgorithmResult& r) {
  const auto adj = reference_adjacency(g, false);
  std::vector<int64_t> expected(g.num_vertices(), kUnreached);
  for (uint64_t s : sources) {
    const auto depth = reference_bfs(adj, s);
    for (uint64_t v = 0; v < depth.size(); ++v)
      if (depth[v] >= 0) expected[v] = expected[v] == kUnreached ? depth[v] : std::max(expected[v], depth[v]);
  }
  for (uint64_t v = 0; v < expected.size(); ++v) {
    if (r.ints[v] != expected[v]) {
      return Verdict::fail(fmt::format("vertex {}: eccentricity estimate {}, the sampled BFSs give {}", v, r.ints[v], expected[v]));
    }
  }
  return {};
}

}  // namespace tg
