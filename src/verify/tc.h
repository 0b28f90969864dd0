// Triangle-count verifier: from the stored arcs (no engine code) it makes each vertex's sorted
// set of neighbours in the undirected view, counts every triangle u < v < w by id order (each
// edge's two sets merged past v), and compares the count through every vertex and the total.
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
  const NeighbourSets<Id> sets = neighbour_sets(g, true);
  const std::vector<Id>& near = sets.members;
  const std::vector<uint64_t>&first = sets.first, &last = sets.last;
  std::vector<int64_t> through(n, 0);
  uint64_t total = 0;
  for (uint64_t u = 0; u < n; ++u) {
    for (uint64_t a = first[u]; a < last[u]; ++a) {
      const uint64_t v = near[a];
      if (v <= u) continue;
      // The third corners w > v: both sets from past v.
      uint64_t i = a + 1;
      uint64_t j = static_cast<uint64_t>(
          std::upper_bound(near.begin() + static_cast<ptrdiff_t>(first[v]),
                           near.begin() + static_cast<ptrdiff_t>(last[v]), static_cast<Id>(v)) -
          near.begin());
      while (i < last[u] && j < last[v]) {
        if (near[i] < near[j]) {
          ++i;
        } else if (near[j] < near[i]) {
          ++j;
        } else {
          ++through[u];
          ++through[v];
          ++through[near[i]];
          ++total;
          ++i;
          ++j;
        }
      }
    }
  }
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
