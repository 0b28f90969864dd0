// Sources as GAPBS picks them: a fixed seed, uniformly random vertices, skipping those without
// out-edges, one per trial from the same sequence (so trial k's source is reproducible).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace tg {

class SourcePicker {
 public:
  SourcePicker(uint64_t n, uint64_t seed) : n_(n), rng_(seed) {}
  template <typename Graph>
  uint64_t next(const Graph& g) {
    if (n_ == 0) return 0;
    std::uniform_int_distribution<uint64_t> pick(0, n_ - 1);
    for (int attempt = 0; attempt < 1000; ++attempt) {
      const uint64_t v = pick(rng_);
      if (g.out_degree(v) > 0) return v;
    }
    return pick(rng_);  // almost no vertex has edges: any vertex is as good
  }

 private:
  uint64_t n_;
  std::mt19937_64 rng_;
};

// K distinct sources with out-edges (Radii's, BC's), chosen by a seeded generator, in increasing
// order; all of them where the graph has no more than K.
template <typename Graph>
std::vector<uint64_t> sampled_sources(const Graph& g, int k, uint64_t seed) {
  std::vector<uint64_t> candidates;
  for (uint64_t v = 0; v < g.num_vertices(); ++v)
    if (g.out_degree(v) > 0) candidates.push_back(v);
  std::mt19937_64 rng(seed);
  std::shuffle(candidates.begin(), candidates.end(), rng);
  candidates.resize(std::min<size_t>(candidates.size(), static_cast<size_t>(k)));
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

}  // namespace tg
