// Triangle-count verifier: from the stored arcs (no engine code) it makes each vertex's sorted
// set of neighbours in the undirected view, counts every triangle u < v < w by id order
// (verify/neighbour_sets.h), and compares the count through every vertex and the total.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/result.h"
#include "graph/graph_view.h"
#include "verify/neighbour_sets.h"

namespace tg {

// Bytes the verifier holds beyond the run's result: the neighbour sets (both ends of every arc,
// before duplicates are dropped) with their offsets, and a count per vertex.
inline uint64_t tc_verifier_bytes(uint64_t vertices, uint64_t arcs, unsigned id_bytes) {
  return (vertices + 1) * 8 + 2 * arcs * id_bytes + vertices * 8;
}

template <typename Id, typename W>
Verdict verify_tc(const GraphView<Id, W>& g, const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  if (r.real || r.ints.size() != n)
    return Verdict::fail(fmt::format("{} triangle counts for {} vertices", r.ints.size(), n));
  std::vector<int64_t> through(n, 0);
  uint64_t total = 0;
  neighbour_sets(g, true).for_each_triangle([&](uint64_t u, uint64_t v, uint64_t w) {
    ++through[u];
    ++through[v];
    ++through[w];
    ++total;
  });
  for (uint64_t v = 0; v < n; ++v) {
    if (r.ints[v] != through[v]) {
      return Verdict::fail(
          fmt::format("vertex {}: {} triangles, but merging its neighbours' sets finds {}", v,
                      r.ints[v], through[v]));
    }
  }
  if (r.summary.contains("triangles") && r.summary["triangles"].get<uint64_t>() != total) {
    return Verdict::fail(fmt::format("{} triangles in all, but merging neighbour sets finds {}",
                                     r.summary["triangles"].get<uint64_t>(), total));
  }
  return {};
}

}  // namespace tg
