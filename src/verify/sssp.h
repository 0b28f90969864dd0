// SSSP verifier: every arc satisfies d[v] <= d[u] + w, every reached vertex but the source has a
// tight in-arc (d[v] == d[u] + w), and nothing unreached has a reached predecessor. Serial and
// straight from the stored arcs.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "algorithms/result.h"
#include "algorithms/weights.h"
#include "graph/graph_view.h"

namespace tg {

template <typename Id, typename W>
Verdict verify_sssp(const GraphView<Id, W>& g, uint64_t source, const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  auto dist = [&](uint64_t v) -> double {
    if (r.real) return r.reals[v];
    return r.ints[v] == kUnreached ? INFINITY : static_cast<double>(r.ints[v]);
  };
  // Real weights: sums in another order round differently; allow a relative slack.
  auto close = [&](double a, double b) {
    return r.real ? std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)) : a == b;
  };
  if ((r.real ? r.reals.size() : r.ints.size()) != n)
    return Verdict::fail("wrong number of distances");
  if (dist(source) != 0) return Verdict::fail("the source's distance is not 0");
  std::vector<char> tight(n, 0);
  std::string problem;
  g.for_each_arc([&](uint64_t u, uint64_t v, W w) {
    if (!problem.empty() || std::isinf(dist(u))) return;
    const double length = static_cast<double>(edge_length<double>(w));
    const double via = dist(u) + length;
    if (dist(v) > via && !close(dist(v), via)) {
      problem = fmt::format("arc {} -> {} (weight {}) is not relaxed: {} > {} + {}", u, v, length,
                            dist(v), dist(u), length);
    } else if (close(dist(v), via)) {
      tight[v] = 1;
    }
  });
  if (!problem.empty()) return Verdict::fail(problem);
  for (uint64_t v = 0; v < n; ++v) {
    if (v != source && !std::isinf(dist(v)) && !tight[v]) {
      return Verdict::fail(fmt::format("vertex {} at distance {} has no tight in-arc", v, dist(v)));
    }
  }
  return {};
}

}  // namespace tg
