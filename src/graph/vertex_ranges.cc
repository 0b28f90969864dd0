#include "graph/vertex_ranges.h"

#include <algorithm>

#include "util/error.h"

namespace tg {

uint32_t most_ranges(uint64_t n) {
  return static_cast<uint32_t>(
      std::min<uint64_t>(UINT32_MAX, std::max<uint64_t>(1, (n + 63) / 64)));
}

std::vector<uint64_t> balanced_ranges(std::span<const uint64_t> degrees, uint32_t p) {
  const uint64_t n = degrees.size();
  if (p == 0 || p > most_ranges(n)) fail("internal: {} ranges for {} vertices", p, n);
  const uint64_t words = (n + 63) / 64;
  // cost[w] = cost of words [0, w)
  std::vector<uint64_t> cost(words + 1, 0);
#pragma omp parallel for
  for (uint64_t w = 0; w < words; ++w) {
    uint64_t c = 0;
    for (uint64_t v = w * 64; v < std::min(n, w * 64 + 64); ++v) c += degrees[v] + kVertexCost;
    cost[w + 1] = c;
  }
  for (uint64_t w = 0; w < words; ++w) cost[w + 1] += cost[w];
  const uint64_t total = cost.back();
  // Boundary k (in words) is where the cost crosses k/P of the total, kept strictly above the
  // previous one and low enough to leave a word for every later range.
  std::vector<uint64_t> bounds(p + 1, 0);
  uint64_t previous = 0;
  for (uint32_t k = 1; k < p; ++k) {
    const uint64_t target = total / p * k + total % p * k / p;  // total * k / p without overflow
    uint64_t w =
        static_cast<uint64_t>(std::lower_bound(cost.begin(), cost.end(), target) - cost.begin());
    w = std::min(std::max(w, previous + 1), words - (p - k));
    bounds[k] = w * 64;
    previous = w;
  }
  bounds[p] = n;
  return bounds;
}

std::vector<uint32_t> range_of_words(std::span<const uint64_t> bounds, uint64_t n) {
  std::vector<uint32_t> of((n + 63) / 64, 0);
  const uint32_t p = static_cast<uint32_t>(bounds.size() - 1);
  for (uint32_t i = 0; i < p; ++i)
    for (uint64_t w = bounds[i] / 64; w < (bounds[i + 1] + 63) / 64; ++w) of[w] = i;
  return of;
}

}  // namespace tg
