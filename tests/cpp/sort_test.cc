// The builders' in-place sorts (util/parallel.h): the radix sort and the bucket sort around it
// must order exactly as std::sort does, on keys that differ in few bits and in many, with many
// duplicates, skewed buckets, and the small stretches that insertion sort takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "util/parallel.h"

namespace tg {
namespace {

struct Pair {
  uint32_t major, minor;
  friend bool operator==(const Pair&, const Pair&) = default;
};
uint64_t key_of(const Pair& p) { return uint64_t{p.major} << 32 | p.minor; }
bool less(const Pair& a, const Pair& b) { return key_of(a) < key_of(b); }

std::vector<Pair> random_pairs(size_t n, uint32_t majors, uint32_t minors, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Pair> v(n);
  for (auto& p : v) {
    // Skewed majors (a third of them among the first 16), uniform minors.
    const uint32_t m =
        rng() % 3 == 0 ? static_cast<uint32_t>(rng() % 16) : static_cast<uint32_t>(rng() % majors);
    p = {m, static_cast<uint32_t>(rng() % minors)};
  }
  return v;
}

TEST(Sort, RadixSortInPlaceOrdersAsStdSort) {
  for (size_t n : {0u, 1u, 2u, 31u, 33u, 257u, 5000u, 200000u}) {
    for (uint32_t range : {1u, 7u, 300u, 1u << 20, 0xffffffffu}) {
      auto v = random_pairs(n, range, range, n * 31 + range);
      auto expected = v;
      std::sort(expected.begin(), expected.end(), less);
      radix_sort_in_place(v.data(), v.size(), key_of);
      ASSERT_EQ(v, expected) << n << " pairs, ids below " << range;
    }
  }
}

TEST(Sort, BucketRadixSortOrdersAsTheBucketSort) {
  for (uint32_t majors : {1u, 100u, 1u << 22}) {
    auto a = random_pairs(300000, majors, 1u << 22, majors);
    auto b = a;
    const uint32_t largest = std::max(majors, 16u);  // random_pairs puts a third below 16
    const int shift = std::max(0, static_cast<int>(std::bit_width(largest)) - 7);
    auto bucket_of = [shift](const Pair& p) { return static_cast<size_t>(p.major >> shift); };
    const size_t buckets = (largest >> shift) + 1;
    parallel_bucket_sort(a.data(), a.size(), buckets, less, bucket_of);
    parallel_bucket_radix_sort(b.data(), b.size(), buckets, key_of, bucket_of);
    ASSERT_TRUE(std::is_sorted(a.begin(), a.end(), less));
    ASSERT_EQ(a, b) << "majors below " << majors;
  }
}

}  // namespace
}  // namespace tg
