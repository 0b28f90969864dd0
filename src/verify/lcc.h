// Clustering-coefficient verifier: from the stored arcs (no engine code) it makes each vertex's
// sorted set of neighbours in the undirected view and of out-neighbours, counts for every vertex
// the arcs from each neighbour into the others, and compares the coefficient with the run's.
// The count and the neighbours are integers and the coefficient one division of them, so the
// run must give the same double.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/result.h"
#include "graph/graph_view.h"

namespace tg {

// Bytes the verifier holds beyond the run's result: the neighbour sets (both ends of every arc)
// and the out-neighbour sets, with their offsets.
inline uint64_t lcc_verifier_bytes(uint64_t vertices, uint64_t arcs, unsigned id_bytes) {
  return 2 * (vertices + 1) * 8 + 3 * arcs * id_bytes + vertices * 8;
}

template <typename Id, typename W>
Verdict verify_lcc(const GraphView<Id, W>& g, const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  if (!r.real || r.reals.size() != n)
    return Verdict::fail(fmt::format("{} coefficients for {} vertices", r.reals.size(), n));
  // Sorted, distinct sets: `both` adds each arc at both ends.
  auto sets = [&](bool both, std::vector<uint64_t>& first, std::vector<Id>& members) {
    first.assign(n + 1, 0);
    g.for_each_arc([&](uint64_t u, uint64_t v, W) {
      if (u == v) return;
      ++first[u + 1];
      if (both) ++first[v + 1];
    });
    for (uint64_t v = 0; v < n; ++v) first[v + 1] += first[v];
    members.resize(first[n]);
    std::vector<uint64_t> at(first.begin(), first.end() - 1);
    g.for_each_arc([&](uint64_t u, uint64_t v, W) {
      if (u == v) return;
      members[at[u]++] = static_cast<Id>(v);
      if (both) members[at[v]++] = static_cast<Id>(u);
    });
    std::vector<uint64_t> last(n);
    for (uint64_t v = 0; v < n; ++v) {
      auto* b = members.data() + first[v];
      auto* e = members.data() + first[v + 1];
      std::sort(b, e);
      last[v] = first[v] + static_cast<uint64_t>(std::unique(b, e) - b);
    }
    return last;
  };
  std::vector<uint64_t> near_first, out_first;
  std::vector<Id> near, out;
  const std::vector<uint64_t> near_last = sets(true, near_first, near);
  const std::vector<uint64_t> out_last = sets(false, out_first, out);
  for (uint64_t v = 0; v < n; ++v) {
    const auto* nb = near.data() + near_first[v];
    const auto* ne = near.data() + near_last[v];
    const uint64_t k = near_last[v] - near_first[v];
    uint64_t arcs = 0;
    for (const auto* u = nb; u != ne; ++u)
      for (uint64_t e = out_first[*u]; e < out_last[*u]; ++e)
        arcs += std::binary_search(nb, ne, out[e]) ? 1 : 0;
    const double want =
        k >= 2 ? static_cast<double>(arcs) / (static_cast<double>(k) * static_cast<double>(k - 1))
               : 0.0;
    if (r.reals[v] != want) {
      return Verdict::fail(fmt::format(
          "vertex {}: clustering coefficient {}, but {} arcs join its {} neighbours: {}", v,
          r.reals[v], arcs, k, want));
    }
  }
  return {};
}

}  // namespace tg
