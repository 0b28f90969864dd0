// PageRank with damping d (0.85): r'(v) = (1 - d)/n + d * (sum over in-neighbours u of r(u)/out(u)
// + D/n), where D is the rank held by dangling vertices (no out-edges), spread uniformly: the
// common definition, the one networkx and LDBC Graphalytics use, so ranks always sum to 1.
// Runs a fixed number of iterations (--iterations) or until the L1 change is below --tolerance.
// Technique: each iteration is one gather_then: a sum-combine edge pass over all vertices (pull
// in auto mode) whose per-vertex step sets the rank from the sum and writes the next
// contribution, reducing the L1 change and the dangling rank as it goes. The contributions are
// double-buffered (the step writes the array the next gather reads), so an engine may run a
// vertex's step as soon as its own sum is in, while other vertices still read this iteration's
// contributions: in one process the step runs inside the pull, and the sums never reach memory.
// The contributions are doubles or floats (the sums and ranks stay doubles).
// The formula: algorithms/pagerank_model.h. Verifier: verify/pagerank.h.
#pragma once

#include <cstdint>
#include <utility>

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
  using Step = PageRankStep<Id, decltype(engine.ops()), Contribution>;
  const uint64_t n = engine.num_vertices();
  auto scope = engine.scope();
  // r(u) / out(u), or r(u) where u is dangling (rank_of): this iteration's, and the next's
  auto current = engine.vertex_array(Contribution{0}), next = engine.vertex_array(Contribution{0});
  const auto incoming = engine.vertex_array(0.0);  // the gather's target
  const int limit = o.tolerance > 0 ? o.max_iterations : o.iterations;
  const SumOp<Pair<double>> sum;
  // {L1 change, dangling rank}, from every rank 1/n
  Pair<double> sums =
      engine.reduce(sum, FirstPageRankStep<Id, Step>{Step{
                             o, current, current, 1.0 / static_cast<double>(n), engine.ops()}});
  int iteration = 0;
  while (iteration < limit && (iteration == 0 || !o.converged(sums.first))) {
    sums = engine.gather_then(sum, PageRankProgram<Id, Contribution>{current, incoming},
                              Step{o, current, next, o.base(n, sums.second), engine.ops()});
    std::swap(current, next);
    ++iteration;
  }
  engine.for_each(RankFromContribution<Id, decltype(engine.ops()), Contribution>{current, incoming,
                                                                                 engine.ops()});
  AlgorithmResult r(engine.collect(incoming),
                    {{"iterations", iteration}, {"last_change", sums.first}});
  r.edges_traversed = engine.num_arcs() * static_cast<uint64_t>(iteration);
  return r;
}

}  // namespace tg
