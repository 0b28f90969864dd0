// Serial helpers for the verifiers: an adjacency built straight from the stored arcs, without
// the engine, so a verifier shares no code path with what it checks.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "graph/graph_view.h"

namespace tg {

template <typename Wt>
struct RefArc {
  uint64_t v;
  Wt w;
};

template <typename Id, typename W>
std::vector<std::vector<RefArc<W>>> reference_adjacency(const GraphView<Id, W>& g, bool reverse_too) {
  std::vector<std::vector<RefArc<W>>> adj(g.num_vertices());
  g.for_each_arc([&](uint64_t u, uint64_t v, W w) {
    adj[u].push_back({v, w});
    if (reverse_too && g.directed()) adj[v].push_back({u, w});
  });
  return adj;
}

// Hop distances from `source` (-1 when unreachable), serially.
template <typename Wt>
std::vector<int64_t> reference_bfs(const std::vector<std::vector<RefArc<Wt>>>& adj, uint64_t source) {
  std::vector<int64_t> depth(adj.size(), -1);
  std::deque<uint64_t> queue{source};
  depth[source] = 0;
  while (!queue.empty()) {
    const uint64_t u = queue.front();
    queue.pop_front();
    for (const auto& a : adj[u]) {
      if (depth[a.v] < 0) {
        depth[a.v] = depth[u] + 1;
        queue.push_back(a.v);
      }
    }
  }
  return depth;
}

}  // namespace tg
