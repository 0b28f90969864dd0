// PageRank with damping d (0.85): r'(v) = (1 - d)/n + d * (sum over in-neighbours u of r(u)/out(u)
// + D/n), where D is the rank held by dangling vertices (no out-edges), spread uniformly: the
// common definition, the one networkx and LDBC Graphalytics use, so ranks always sum to 1.
// Runs a fixed number of iterations (--iterations) or until the L1 change is below --tolerance.
// Technique: each iteration is one sum-combine edge pass over all vertices (pull in auto mode).
// Verifier: one more serial iteration changes the ranks (L1) by less than the tolerance, or, for
// a fixed iteration count, by no more than d times the last change; and the ranks sum to 1.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "algorithms/result.h"
#include "engine/engine.h"

namespace tg {

struct PageRankOptions {
  double damping = 0.85;
  int iterations = 20;     // used when tolerance is 0
  double tolerance = 0;    // > 0: iterate until the L1 change is below it
  int max_iterations = 1000;
};

struct PageRankProgram {
  using Op = SumOp<double>;
  std::vector<double> contribution;  // r(u) / out(u), fixed during a pass
  std::vector<double> incoming;      // the combine target

  template <typename Id, typename W>
  double scatter(Id u, W) const { return contribution[u]; }
  template <typename Id>
  double& target(Id v) { return incoming[v]; }
  template <typename Id>
  bool apply(Id) { return false; }  // every vertex takes part in every pass anyway
};

// One PageRank step from `rank` given the incoming sums; returns the L1 change.
template <typename Id, typename W>
double pagerank_step(const GraphView<Id, W>& g, const PageRankOptions& o, std::vector<double>& rank,
                     const std::vector<double>& incoming, double dangling) {
  const uint64_t n = g.num_vertices();
  const double base = (1 - o.damping) / static_cast<double>(n) + o.damping * dangling / static_cast<double>(n);
  double change = 0;
#pragma omp parallel for reduction(+ : change)
  for (uint64_t v = 0; v < n; ++v) {
    const double next = base + o.damping * incoming[v];
    change += std::fabs(next - rank[v]);
    rank[v] = next;
  }
  return change;
}

// Readies the next pass: each vertex's contribution r(u)/out(u), incoming sums at zero; returns
// the rank held by dangling vertices. Fused into the rank update so each iteration walks the
// vertex arrays once besides the edge pass.
template <typename Id, typename W>
double prepare_pass(const GraphView<Id, W>& g, const std::vector<double>& rank, PageRankProgram& pr) {
  double dangling = 0;
#pragma omp parallel for reduction(+ : dangling)
  for (uint64_t v = 0; v < g.num_vertices(); ++v) {
    const uint64_t out = g.out_degree(v);
    pr.contribution[v] = out ? rank[v] / static_cast<double>(out) : 0.0;
    if (!out) dangling += rank[v];
    pr.incoming[v] = 0;
  }
  return dangling;
}

template <typename Id, typename W>
AlgorithmResult run_pagerank(Engine<Id, W>& engine, const PageRankOptions& o) {
  const auto& g = engine.graph();
  const uint64_t n = g.num_vertices();
  std::vector<double> rank(n, n ? 1.0 / static_cast<double>(n) : 0.0);
  PageRankProgram pr{std::vector<double>(n), std::vector<double>(n)};
  const int limit = o.tolerance > 0 ? o.max_iterations : o.iterations;
  const double teleport = (1 - o.damping) / static_cast<double>(n);
  int iteration = 0;
  double change = 0;
  double dangling = prepare_pass(g, rank, pr);
  while (iteration < limit) {
    auto everyone = engine.all();
    engine.edge_pass(pr, everyone);
    // The rank update fused with preparing the next pass.
    const double base = teleport + o.damping * dangling / static_cast<double>(n);
    double next_dangling = 0;
    change = 0;
#pragma omp parallel for reduction(+ : change, next_dangling)
    for (uint64_t v = 0; v < n; ++v) {
      const double next = base + o.damping * pr.incoming[v];
      change += std::fabs(next - rank[v]);
      rank[v] = next;
      const uint64_t out = g.out_degree(v);
      pr.contribution[v] = out ? next / static_cast<double>(out) : 0.0;
      if (!out) next_dangling += next;
      pr.incoming[v] = 0;
    }
    dangling = next_dangling;
    ++iteration;
    if (o.tolerance > 0 && change < o.tolerance) break;
  }
  AlgorithmResult r;
  r.real = true;
  r.reals = std::move(rank);
  r.summary["iterations"] = iteration;
  r.summary["last_change"] = change;
  r.edges_traversed = g.num_arcs() * static_cast<uint64_t>(iteration);
  return r;
}

template <typename Id, typename W>
Verdict verify_pagerank(const GraphView<Id, W>& g, const PageRankOptions& o, const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  if (r.reals.size() != n) return Verdict::fail("wrong number of ranks");
  double sum = 0;
  for (double x : r.reals) sum += x;
  if (n && std::fabs(sum - 1) > 1e-6) return Verdict::fail(fmt::format("ranks sum to {}, not 1", sum));
  // One more iteration, serially and straight from the arcs.
  std::vector<double> incoming(n, 0);
  double dangling = 0;
  for (uint64_t v = 0; v < n; ++v)
    if (g.out_degree(v) == 0) dangling += r.reals[v];
  g.for_each_arc([&](uint64_t u, uint64_t v, W) { incoming[v] += r.reals[u] / static_cast<double>(g.out_degree(u)); });
  std::vector<double> rank = r.reals;
  const double change = pagerank_step(g, o, rank, incoming, dangling);
  const double last = r.summary.value("last_change", 0.0);
  const double allowed = o.tolerance > 0 ? o.tolerance : o.damping * last + 1e-12;
  if (change > allowed) {
    return Verdict::fail(fmt::format("one more iteration changes the ranks by {} (L1), more than {}", change, allowed));
  }
  return {};
}

}  // namespace tg
