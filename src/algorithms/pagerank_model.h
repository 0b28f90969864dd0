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

// What the contributions are held in between gathers (sums and ranks are doubles either way).
// float halves the array every arc of a gather reads at random: PageRank -i 20 ran in 0.56x the
// time on urand-22 and 0.84x on Kronecker-22 (16 MB of floats fit this machine's 32 MB L3, 32 MB
// of doubles did not; bench/results/pagerank-precision.md), for ranks within 2e-7 (relative) of
// double's.
enum class PageRankPrecision { kDouble, kFloat };
// How far float contributions keep the ranks from a fixed point: each is rounded to float every
// iteration (a relative 2^-24), which moves the ranks by about 2e-8 to 1e-7 (L1) an iteration on
// the graphs tried, so a float run converges to no tolerance below this, and its default is this.
inline constexpr double kFloatPageRankTolerance = 1e-6;

struct PageRankOptions {
  double damping = 0.85;
  int iterations = 20;   // used when tolerance is 0
  double tolerance = 0;  // > 0: iterate until the L1 change is below it
  int max_iterations = 1000;
  PageRankPrecision precision = PageRankPrecision::kDouble;

  // What every vertex gets (teleport and its share of the dangling rank)...
  TG_HOST_DEVICE double base(uint64_t n, double dangling) const {
    return (1 - damping) / static_cast<double>(n) + damping * dangling / static_cast<double>(n);
  }
  // Whether an L1 change this small ends the iterations (only with a tolerance).
  TG_HOST_DEVICE bool converged(double change) const { return tolerance > 0 && change < tolerance; }
  // The L1 change that rounding the contributions alone may make in an iteration (0 for double).
  double rounding() const {
    return precision == PageRankPrecision::kFloat ? (1 + damping) * 0x1p-23 : 0.0;
  }
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

// One vertex's step of the kernel (gather_then's then(), a host-device functor): v's new rank
// from the sum gathered at it, and its contribution for the next gather, written to the other of
// the two arrays (the gather still reads `current`); returns {the change of v's rank, v's rank if
// v is dangling}.
template <typename Id, typename Ops, typename Contribution = double>
struct PageRankStep {
  PageRankOptions o;
  VertexArray<Contribution> current;  // this iteration's: read (v's own entry only)
  VertexArray<Contribution> next;     // the next iteration's: written
  double base;
  Ops ops;

  TG_HOST_DEVICE Pair<double> operator()(Id v, double incoming) const {
    const double rank = o.rank(base, incoming), out = static_cast<double>(ops.out_degree(v));
    const double previous = rank_of(current[v], out);
    // fabs, not a comparison: which of the two is larger is a coin toss per vertex, and a
    // mispredicted branch there cost a third of an iteration's time on soc-Slashdot0902.
    const double change = fabs(rank - previous);
    next[v] = static_cast<Contribution>(out > 0 ? rank / out : rank);
    return Pair<double>{change, out > 0 ? 0.0 : rank};
  }
};

// The first step, before any gather: every rank 1/n (the step with base 1/n and nothing gathered,
// which reads and writes one array: a contribution of 0 is a rank of 0).
template <typename Id, typename Step>
struct FirstPageRankStep {
  Step step;
  TG_HOST_DEVICE Pair<double> operator()(Id v) const { return step(v, 0.0); }
};

// The ranks from the contributions, once the iterations are done (pagerank.h writes them into the
// gather's target, which the iterations no longer need).
template <typename Id, typename Ops, typename Contribution = double>
struct RankFromContribution {
  VertexArray<Contribution> contribution;
  VertexArray<double> ranks;
  Ops ops;
  TG_HOST_DEVICE void operator()(Id v) const {
    ranks[v] = rank_of(contribution[v], static_cast<double>(ops.out_degree(v)));
  }
};

}  // namespace tg
