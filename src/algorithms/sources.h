// Sources as GAPBS picks them: a fixed seed, uniformly random vertices, skipping those without
// out-edges, one per trial from the same sequence (so trial k's source is reproducible).
#pragma once

#include <cstdint>
#include <random>

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

}  // namespace tg
