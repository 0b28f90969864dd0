// Betweenness verifier: Brandes' algorithm run serially from the same sources, with a FIFO queue
// for the forward search and the queue read backwards for the dependencies, over an out-arc list
// built here from the stored arcs (no engine code), and every score compared with the run's to
// a relative 1e-9 (the run sums in another order).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/result.h"
#include "graph/graph_view.h"

namespace tg {

// Bytes the verifier holds beyond the run's result: the arc list (offsets and targets), and per
// vertex a depth, a path count, a dependency, a score and a queue slot.
inline uint64_t bc_verifier_bytes(uint64_t vertices, uint64_t arcs, unsigned id_bytes) {
  return (vertices + 1) * 8 + arcs * id_bytes + vertices * 5 * 8;
}

template <typename Id, typename W>
Verdict verify_bc(const GraphView<Id, W>& g, std::span<const uint64_t> sources,
                  const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  if (!r.real || r.reals.size() != n)
    return Verdict::fail(fmt::format("{} scores for {} vertices", r.reals.size(), n));
  std::vector<uint64_t> first(n + 1, 0);
  g.for_each_arc([&](uint64_t u, uint64_t, W) { ++first[u + 1]; });
  for (uint64_t v = 0; v < n; ++v) first[v + 1] += first[v];
  std::vector<Id> heads(first[n]);
  {
    std::vector<uint64_t> at(first.begin(), first.end() - 1);
    g.for_each_arc([&](uint64_t u, uint64_t v, W) { heads[at[u]++] = static_cast<Id>(v); });
  }
  std::vector<int64_t> depth(n, -1);
  std::vector<double> paths(n, 0), dependency(n, 0), score(n, 0);
  std::vector<uint64_t> queue(n);
  for (uint64_t s : sources) {
    if (s >= n) return Verdict::fail(fmt::format("source {} is not a vertex", s));
    uint64_t head = 0, tail = 0;
    queue[tail++] = s;
    depth[s] = 0;
    paths[s] = 1;
    while (head < tail) {
      const uint64_t u = queue[head++];
      for (uint64_t k = first[u]; k < first[u + 1]; ++k) {
        const uint64_t v = heads[k];
        if (depth[v] < 0) {
          depth[v] = depth[u] + 1;
          queue[tail++] = v;
        }
        if (depth[v] == depth[u] + 1) paths[v] += paths[u];
      }
    }
    // In reverse order of discovery every successor is finished before its predecessors.
    for (uint64_t k = tail; k-- > 0;) {
      const uint64_t u = queue[k];
      for (uint64_t e = first[u]; e < first[u + 1]; ++e) {
        const uint64_t v = heads[e];
        if (depth[v] == depth[u] + 1) dependency[u] += paths[u] / paths[v] * (1 + dependency[v]);
      }
      if (u != s) score[u] += dependency[u];
    }
    for (uint64_t k = 0; k < tail; ++k) {
      const uint64_t u = queue[k];
      depth[u] = -1;
      paths[u] = dependency[u] = 0;
    }
  }
  for (uint64_t v = 0; v < n; ++v) {
    const double want = score[v], got = r.reals[v];
    if (!(std::fabs(got - want) <= 1e-9 * std::max(1.0, std::fabs(want)))) {
      return Verdict::fail(
          fmt::format("vertex {}: betweenness {}, but Brandes' algorithm from the same {} sources "
                      "gives {}",
                      v, got, sources.size(), want));
    }
  }
  return {};
}

}  // namespace tg
