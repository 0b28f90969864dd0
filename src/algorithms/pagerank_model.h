// PageRank's parameters and formula, written once: the kernel (algorithms/pagerank.h) and its
// verifier (verify/pagerank.h) both compute ranks through base() and rank(); PageRankStep is the
// kernel's per-vertex update with them.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/combine.h"
#include "engine/vertex_array.h"
#include "util/host_device.h"

namespace tg {

struct PageRankOptions {
  double damping = 0.85;
  int iterations = 20;   // used when tolerance is 0
  double tolerance = 0;  // > 0: iterate until the L1 change is below it
  int max_iterations = 1000;

  // What every vertex gets (teleport and its share of the dangling rank)...
  TG_HOST_DEVICE double base(uint64_t n, double dangling) const {
    return (1 - damping) / static_cast<double>(n) + damping * dangling / static_cast<double>(n);
  }
  // Whether an L1 change this small ends the iterations (only with a tolerance).
  TG_HOST_DEVICE bool converged(double change) const { return tolerance > 0 && change < tolerance; }
  // ...and a vertex's new rank from its incoming sum.
  TG_HOST_DEVICE double rank(double base_share, double incoming) const {
    return base_share + damping * incoming;
  }
};

// The kernel keeps one value a vertex between gathers, its contribution: r(v) / out(v), or, for a
// dangling vertex (no out-edges, so no edge ever reads it), r(v) itself. The rank is recovered
// from it (to within a rounding of the division); a rank array beside it would cost 8 bytes a
// vertex more (1 GiB at 2^27 vertices). A contribution of 0 is a rank of 0 (before the first step).
TG_HOST_DEVICE inline double rank_of(double contribution, double out_degree) {
  return out_degree > 0 ? contribution * out_degree : contribution;
}

// One vertex's step of the kernel (a host-device functor the engine runs over every vertex): sets
// v's rank from the sums gathered into `sums` (which start again from zero) and readies v for
// the next gather; returns {the change of v's rank, v's rank if v is dangling}.
template <typename Id, typename Ops>
struct PageRankStep {
  PageRankOptions o;
  VertexArray<double> contribution, sums;
  double base;
  Ops ops;

  TG_HOST_DEVICE Pair<double> operator()(Id v) const {
    const double next = o.rank(base, sums[v]), out = static_cast<double>(ops.out_degree(v));
    const double previous = rank_of(contribution[v], out);
    // fabs, not a comparison: which of the two is larger is a coin toss per vertex, and a
    // mispredicted branch there cost a third of an iteration's time on soc-Slashdot0902.
    const double change = fabs(next - previous);
    sums[v] = 0;
    contribution[v] = out > 0 ? next / out : next;
    return Pair<double>{change, out > 0 ? 0.0 : next};
  }
};

// The ranks from the contributions, in place, once the iterations are done.
template <typename Id, typename Ops>
struct RankFromContribution {
  VertexArray<double> contribution;
  Ops ops;
  TG_HOST_DEVICE void operator()(Id v) const {
    contribution[v] = rank_of(contribution[v], static_cast<double>(ops.out_degree(v)));
  }
};

}  // namespace tg
