// WCC verifier: union-find over every arc, then each vertex's label must be the least member of
// its set. Serial and straight from the stored arcs.
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
Verdict verify_wcc(const GraphView<Id, W>& g, const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  std::vector<uint64_t> up(n);
  std::iota(up.begin(), up.end(), 0);
  auto find = [&](uint64_t x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  };
  g.for_each_arc([&](uint64_t u, uint64_t v, W) {
    const uint64_t a = find(u), b = find(v);
    if (a != b) up[std::max(a, b)] = std::min(a, b);  // the root stays the least member
  });
  if (r.ints.size() != n) return Verdict::fail("wrong number of labels");
  for (uint64_t v = 0; v < n; ++v) {
    if (r.ints[v] != static_cast<int64_t>(find(v))) {
      return Verdict::fail(fmt::format("vertex {} has label {}, its component's least vertex is {}",
                                       v, r.ints[v], find(v)));
    }
  }
  return {};
}

}  // namespace tg
