// PageRank with damping d (0.85): r'(v) = (1 - d)/n + d * (sum over in-neighbours u of r(u)/out(u)
// + D/n), where D is the rank held by dangling vertices (no out-edges), spread uniformly: the
// common definition, the one networkx and LDBC Graphalytics use, so ranks always sum to 1.
// Runs a fixed number of iterations (--iterations) or until the L1 change is below --tolerance.
// Technique: each iteration is one sum-combine edge pass over all vertices (pull in auto mode),
// then one vertex pass that updates the ranks and readies the next pass, reducing the L1 change
// and the dangling rank as it goes. The formula: algorithms/pagerank_model.h. Verifier:
// verify/pagerank.h.
#pragma once

#include <cmath>
#include <cstdint>

#include "algorithms/pagerank_model.h"
#include "algorithms/result.h"
#include "engine/program.h"

namespace tg {

template <typename Id>
struct PageRankProgram {
  using Op = SumOp<double>;
  VertexArray<double> contribution;  // r(u) / out(u), fixed during a pass
  VertexArray<double> incoming;      // the combine target

  TG_HOST_DEVICE double source_value(Id u) const { return contribution[u]; }
  template <typename W>
  TG_HOST_DEVICE double message(double c, W) const { return c; }
  TG_HOST_DEVICE VertexArray<double> target() const { return incoming; }
  TG_HOST_DEVICE bool apply(Id) const { return false; }  // every vertex takes part in every pass
};

template <typename Engine>
AlgorithmResult run_pagerank(Engine& engine, const PageRankOptions& o) {
  const uint64_t n = engine.num_vertices();
  auto scope = engine.scope();
  PageRankProgram<typename Engine::VertexId> pr{engine.vertex_array(0.0), engine.vertex_array(0.0)};
  auto rank = engine.vertex_array(1.0 / static_cast<double>(n));
  auto prepare = [&](auto v, double r) {  // readies v (rank r) for the next pass; returns r if v is dangling
    const uint64_t out = engine.out_degree(v);
    pr.contribution[v] = out ? r / static_cast<double>(out) : 0.0;
    pr.incoming[v] = 0;
    return out ? 0.0 : r;
  };
  Pair<double> sums{0, engine.reduce(SumOp<double>{}, [&](auto v) { return prepare(v, rank[v]); })};  // {L1 change, dangling rank}
  const int limit = o.tolerance > 0 ? o.max_iterations : o.iterations;
  int iteration = 0;
  while (iteration < limit && !(iteration > 0 && o.tolerance > 0 && sums.first < o.tolerance)) {
    engine.edge_pass(pr, engine.all());
    const double base = o.base(n, sums.second);
    sums = engine.reduce(SumOp<Pair<double>>{}, [&](auto v) {
      const double next = o.rank(base, pr.incoming[v]), change = std::fabs(next - rank[v]);
      rank[v] = next;
      return Pair<double>{change, prepare(v, next)};
    });
    ++iteration;
  }
  AlgorithmResult r(engine.collect(rank), {{"iterations", iteration}, {"last_change", sums.first}});
  r.edges_traversed = engine.num_arcs() * static_cast<uint64_t>(iteration);
  return r;
}

}  // namespace tg
