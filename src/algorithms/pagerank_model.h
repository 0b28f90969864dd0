// PageRank's parameters and formula, written once: the kernel (algorithms/pagerank.h) and its
// verifier (verify/pagerank.h) both compute ranks through these two functions.
#pragma once

#include <cstdint>

namespace tg {

struct PageRankOptions {
  double damping = 0.85;
  int iterations = 20;     // used when tolerance is 0
  double tolerance = 0;    // > 0: iterate until the L1 change is below it
  int max_iterations = 1000;

  // What every vertex gets (teleport and its share of the dangling rank)...
  double base(uint64_t n, double dangling) const {
    return (1 - damping) / static_cast<double>(n) + damping * dangling / static_cast<double>(n);
  }
  // ...and a vertex's new rank from its incoming sum.
  double rank(double base_share, double incoming) const { return base_share + damping * incoming; }
};

}  // namespace tg
