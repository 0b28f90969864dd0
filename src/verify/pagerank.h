// PageRank verifier: the ranks sum to 1, and one more serial iteration straight from the arcs
// changes them (L1) by less than the tolerance, or, for a fixed iteration count, by no more than
// d times the run's last change (plus, for float contributions, what their rounding changes).
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "algorithms/pagerank_model.h"
#include "algorithms/result.h"
#include "graph/graph_view.h"

namespace tg {

template <typename Id, typename W>
Verdict verify_pagerank(const GraphView<Id, W>& g, const PageRankOptions& o,
                        const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  if (r.reals.size() != n) return Verdict::fail("wrong number of ranks");
  double sum = 0;
  for (double x : r.reals) sum += x;
  if (n && std::fabs(sum - 1) > 1e-6)
    return Verdict::fail(fmt::format("ranks sum to {}, not 1", sum));
  // One more iteration, serially and straight from the arcs.
  std::vector<double> incoming(n, 0);
  double dangling = 0;
  for (uint64_t v = 0; v < n; ++v)
    if (g.out_degree(v) == 0) dangling += r.reals[v];
  g.for_each_arc([&](uint64_t u, uint64_t v, W) {
    incoming[v] += r.reals[u] / static_cast<double>(g.out_degree(u));
  });
  const double base = o.base(n, dangling);
  double change = 0;
  for (uint64_t v = 0; v < n; ++v) change += std::fabs(o.rank(base, incoming[v]) - r.reals[v]);
  const double last = r.summary.value("last_change", 0.0);
  // Float contributions are rounded each iteration: so much change is theirs, not the run's.
  const double allowed = (o.tolerance > 0 ? o.tolerance : o.damping * last + 1e-12) + o.rounding();
  if (change > allowed) {
    return Verdict::fail(fmt::format(
        "one more iteration changes the ranks by {} (L1), more than {}", change, allowed));
  }
  return {};
}

}  // namespace tg
