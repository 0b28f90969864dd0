// BFS verifier, as Graph500/GAPBS check: the source at depth 0, every arc (u, v) with u reached
// has v reached and depth[v] <= depth[u] + 1, every other reached vertex has a tree edge (or an
// in-edge) from depth - 1. Serial and straight from the stored arcs, sharing no engine code.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "algorithms/result.h"
#include "graph/graph_view.h"

namespace tg {

template <typename Id, typename W>
Verdict verify_bfs(const GraphView<Id, W>& g, uint64_t source, const AlgorithmResult& r) {
  const auto& depth = r.ints;
  const uint64_t n = g.num_vertices();
  if (depth.size() != n) return Verdict::fail("wrong number of depths");
  if (depth[source] != 0) return Verdict::fail("the source's depth is not 0");
  if (!r.parents.empty() && r.parents[source] != static_cast<int64_t>(source))
    return Verdict::fail("the source is not its own parent");
  std::vector<char> has_parent_edge(n, 0);
  std::string problem;
  g.for_each_arc([&](uint64_t u, uint64_t v, W) {
    if (!problem.empty() || depth[u] == kUnreached) return;
    if (depth[v] == kUnreached || depth[v] > depth[u] + 1) {
      problem = fmt::format("arc {} -> {} breaks depth consistency ({} -> {})", u, v, depth[u],
                            depth[v] == kUnreached ? -1 : depth[v]);
      return;
    }
    if (depth[v] == depth[u] + 1 && (r.parents.empty() || r.parents[v] == static_cast<int64_t>(u)))
      has_parent_edge[v] = 1;
  });
  if (!problem.empty()) return Verdict::fail(problem);
  for (uint64_t v = 0; v < n; ++v) {
    if (v == source || depth[v] == kUnreached) continue;
    if (!has_parent_edge[v]) {
      return Verdict::fail(fmt::format(
          "vertex {} at depth {} has no {} at depth {}", v, depth[v],
          r.parents.empty() ? "in-neighbour" : "tree edge from its parent", depth[v] - 1));
    }
  }
  return {};
}

}  // namespace tg
