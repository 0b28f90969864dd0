// PageRank's parameters and formula, written once: the kernel (algorithms/pagerank.h) and its
// verifier (verify/pagerank.h) both compute ranks through base() and rank(); PageRankStep is the
// kernel's per-vertex update with them.
#pragma once

#include <cstdint>

#include "engine/combine.h"
#include "engine/device.h"
#include "engine/vertex_array.h"

namespace tg {

struct PageRankOptions {
  double damping = 0.85;
  int iterations = 20;     // used when tolerance is 0
  double tolerance = 0;    // > 0: iterate until the L1 change is below it
  int max_iterations = 1000;

  // What every vertex gets (teleport and its share of the dangling rank)...
  TG_HOST_DEVICE double base(uint64_t n, double dangling) const {
    return (1 - damping) / static_cast<double>(n) + damping * dangling / static_cast<double>(n);
  }
  // ...and a vertex's new rank from its incoming sum.
  TG_HOST_DEVICE double rank(double base_share, double incoming) const { return base_share + damping * incoming; }
};

// One vertex's step of the kernel (a host-device functor the engine runs over every vertex): sets
// v's rank from the sums gathered into `sums` (which start again from zero) and readies v for
// the next gather; returns {the change of v's rank, v's rank if v is dangling}.
template <typename Id, typename Ops>
struct PageRankStep {
  PageRankOptions o;
  VertexArray<double> rank, contribution, sums;
  double base;
  Ops ops;

  TG_HOST_DEVICE Pair<double> operator()(Id v) const {
    const double next = o.rank(base, sums[v]), out = static_cast<double>(ops.out_degree(v));
    const double change = next > rank[v] ? next - rank[v] : rank[v] - next;
    sums[v] = 0;
    rank[v] = next;
    contribution[v] = out > 0 ? next / out : 0.0;
    return Pair<double>{change, out > 0 ? 0.0 : next};
  }
};

}  // namespace tg
