// Clustering-coefficient verifier: from the stored arcs (no engine code) it makes each vertex's
// sorted set of neighbours in the undirected view and of out-neighbours, counts for every vertex
// the arcs among its neighbours (the sides opposite it of the triangles through it, found by id
// order: verify/neighbour_sets.h), and compares the coefficient with the run's.
// The count and the neighbours are integers and the coefficient one division of them, so the
// run must give the same double.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/result.h"
#include "graph/graph_view.h"
#include "verify/neighbour_sets.h"

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
  const NeighbourSets<Id> near = neighbour_sets(g, true), out = neighbour_sets(g, false);
  // The arcs among v's neighbours are those of the triangles through v, each triangle's side
  // opposite v: every triangle found once, by id order.
  const auto arcs_between = [&](uint64_t x, uint64_t y) {
    return uint64_t{out.contains(x, y)} + uint64_t{out.contains(y, x)};
  };
  std::vector<uint64_t> among(n, 0);
  near.for_each_triangle([&](uint64_t u, uint64_t v, uint64_t w) {
    among[u] += arcs_between(v, w);
    among[v] += arcs_between(u, w);
    among[w] += arcs_between(u, v);
  });
  for (uint64_t v = 0; v < n; ++v) {
    const auto k = static_cast<uint64_t>(near.end(v) - near.begin(v));
    const uint64_t arcs = among[v];
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
