// The most frequent value among a few entries of a vertex array drawn with a fixed seed (WCC's
// largest component, found without counting every vertex): the draw and the count every engine
// shares, so all of them pick the same value from the same array.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace tg {

// `samples` positions in [0, n), drawn with a fixed seed (none when n is 0).
inline std::vector<uint64_t> sample_positions(uint64_t n, int samples) {
  std::vector<uint64_t> at;
  std::mt19937_64 rng(7);
  for (int k = 0; k < samples && n > 0; ++k) at.push_back(rng() % n);
  return at;
}

// The value that occurs most often in `drawn` (the smallest of those tied); sorts it.
template <typename T>
T mode_of(std::vector<T>& drawn) {
  std::sort(drawn.begin(), drawn.end());
  T best{};
  size_t best_run = 0;
  for (size_t i = 0; i < drawn.size();) {
    size_t j = i;
    while (j < drawn.size() && drawn[j] == drawn[i]) ++j;
    if (j - i > best_run) {
      best_run = j - i;
      best = drawn[i];
    }
    i = j;
  }
  return best;
}

}  // namespace tg
