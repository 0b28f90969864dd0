// PageRank with damping d (0.85): r'(v) = (1 - d)/n + d * (sum over in-neighbours u of r(u)/out(u)
// + D/n), where D is the rank held by dangling vertices (no out-edges), spread uniformly: the
// common definition, the one networkx and LDBC Graphalytics use, so ranks always sum to 1.
// Runs a fixed number of iterations (--iterations) or until the L1 change is below --tolerance.
// Technique: each iteration gathers the sums with one sum-combine edge pass over all vertices
// (pull in auto mode) and applies them with a vertex pass that sets the ranks and the next
// contributions, reducing the L1 change and the dangling rank as it goes. Applying iteration i
// and gathering i + 1 are one call (edge_pass_after), so that a backend may send a vertex's new
// contribution as soon as it is applied (on MPI ranks: GraCXL's relaxed barrier); the step reads
// and resets a vertex's sum, which edge_pass_after allows (no message of the next gather reaches
// a vertex before its step). The contributions are doubles or floats (the sums and ranks stay
// doubles).
// The formula: algorithms/pagerank_model.h. Verifier: verify/pagerank.h.
#pragma once

#include <cstdint>

#include "algorithms/pagerank_model.h"
#include "algorithms/result.h"
#include "engine/concept.h"
#include "engine/program.h"

namespace tg {

template <typename Id, typename Contribution>
struct PageRankProgram {
  using Op = SumOp<double>;
  VertexArray<Contribution> contribution;  // r(u) / out(u), fixed during a pass
  VertexArray<double> incoming;            // the combine target

  TG_HOST_DEVICE double source_value(Id u) const { return contribution[u]; }
  TG_HOST_DEVICE double message(double c, auto) const { return c; }
  TG_HOST_DEVICE VertexArray<double> target() const { return incoming; }
  TG_HOST_DEVICE bool apply(Id) const { return false; }  // every vertex takes part in every pass
};

// Contribution: double, or float for PageRankPrecision::kFloat (run/kernels.h chooses).
template <typename Contribution = double, GraphEngine Engine>
AlgorithmResult run_pagerank(Engine& engine, const PageRankOptions& o) {
  using Id = typename Engine::VertexId;
  const uint64_t n = engine.num_vertices();
  auto scope = engine.scope();
  const auto ops = engine.ops();
  // r(u) / out(u), or r(u) where u is dangling (rank_of)
  auto contribution = engine.vertex_array(Contribution{0});
  const PageRankProgram<Id, Contribution> gather{contribution, engine.vertex_array(0.0)};
  const int limit = o.tolerance > 0 ? o.max_iterations : o.iterations;
  const SumOp<Pair<double>> sum;
  Pair<double> sums{0, 0};  // {L1 change, dangling rank}
  int iteration = 0;
  // Applies iteration's sums (iteration 0: none, every rank 1/n), gathers the next's.
  for (;; ++iteration) {
    const double base = iteration ? o.base(n, sums.second) : 1.0 / static_cast<double>(n);
    const PageRankStep<Id, decltype(ops), Contribution> step{o, contribution, gather.incoming, base,
                                                             ops};
    const auto wanted = [&](Pair<double> s) { return iteration == 0 || !o.converged(s.first); };
    sums = iteration == limit
               ? engine.reduce(sum, step)
               : engine.edge_pass_after(sum, step, wanted, gather, engine.all()).second;
    if (iteration == limit || !wanted(sums)) break;
  }
  // The ranks go into the sums' array, which the last step has read.
  engine.for_each(
      RankFromContribution<Id, decltype(ops), Contribution>{contribution, gather.incoming, ops});
  AlgorithmResult r(engine.collect(gather.incoming),
                    {{"iterations", iteration}, {"last_change", sums.first}});
  r.edges_traversed = engine.num_arcs() * static_cast<uint64_t>(iteration);
  return r;
}

}  // namespace tg
