// Betweenness centrality: for each vertex v, the sum over the chosen sources s of the dependency
// of s on v, the share of shortest paths from s to every other vertex that pass through v
// (Brandes 2001). From every source the sum is exact; from k sampled sources it is the estimate
// GAPBS's bc computes (networkx's betweenness_centrality(k) scales it; the Python backend does).
// Unnormalized: a vertex's score is the plain sum, so scores from disjoint source sets add.
// Technique, per source: a forward sweep counts shortest paths level by level (a sum-combine edge
// pass into the vertices not yet reached; each level's frontier is the next level), then a
// backward sweep from the deepest level accumulates dependencies against the arcs (a reversed
// sum-combine pass from level d into level d - 1 only, the pass's targets), as GAPBS's Brandes
// does; the levels are the forward passes' frontiers, kept. Verifier: verify/bc.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/result.h"
#include "engine/concept.h"
#include "engine/program.h"

namespace tg {

// Forward: the frontier (level d) offers its path counts to the vertices not yet settled; a
// vertex that receives any is at level d + 1, with the sum as its count. One array holds both:
// a sum arriving (0 or more), then, once the level is settled, the count negated, which no
// message may change (a count is at least 1) and which needs no second array nor a second
// random write per vertex.
template <typename Id>
struct PathCountProgram {
  using Op = SumOp<double>;
  VertexArray<double> paths;  // the sum arriving this level; -(shortest paths) once settled

  TG_HOST_DEVICE double source_value(Id u) const { return -paths[u]; }
  TG_HOST_DEVICE double message(double p, auto) const { return p; }
  TG_HOST_DEVICE VertexArray<double> target() const { return paths; }
  TG_HOST_DEVICE bool wants(double now) const { return now >= 0; }
  // Runs after all of v's messages of the level: its count is final, and v is settled.
  TG_HOST_DEVICE bool apply(Id v) const {
    paths[v] = -paths[v];
    return true;
  }
};

// Backward: level d's vertices send (1 + dependency) / paths against the arcs into their
// predecessors at level d - 1 (the pass's targets), summed in `successors`; a vertex's
// dependency is then paths * successors, so the source value reads it back from there.
template <typename Id>
struct DependencyProgram {
  using Op = SumOp<double>;
  static constexpr bool kReversed = true;
  VertexArray<double> paths;       // as the forward sweep left them: negated
  VertexArray<double> successors;  // sum over successors w of (1 + dependency(w)) / paths(w)

  TG_HOST_DEVICE double source_value(Id w) const { return successors[w] - 1.0 / paths[w]; }
  TG_HOST_DEVICE double message(double x, auto) const { return x; }
  TG_HOST_DEVICE VertexArray<double> target() const { return successors; }
  TG_HOST_DEVICE bool apply(Id) const { return false; }
};

template <GraphEngine Engine>
AlgorithmResult run_bc(Engine& engine, std::span<const uint64_t> sources) {
  using Id = typename Engine::VertexId;
  auto scope = engine.scope();
  const PathCountProgram<Id> forward{engine.vertex_array(0.0)};
  const DependencyProgram<Id> backward{forward.paths, engine.vertex_array(0.0)};
  const auto paths = forward.paths, successors = backward.successors;
  auto scores = engine.vertex_array(0.0);
  // A level's dependencies are final: add them, and clear its vertices for the next source
  // (the successors' sums start at 0: nothing else writes them).
  const auto finish = [=] TG_HOST_DEVICE(Id v) {
    scores[v] -= paths[v] * successors[v];
    paths[v] = 0;
    successors[v] = 0;
  };
  uint64_t traversed = 0;
  size_t deepest = 0;
  for (uint64_t s : sources) {
    engine.set(paths, s, -1.0);  // settled, one path
    // levels[d]: the vertices at depth d, as the forward passes made them (each vertex is in
    // one: at most an id a vertex, or a bitmap where a pass pulled).
    std::vector<typename Engine::Set> levels;
    for (auto frontier = engine.frontier_of(s); !frontier.empty();) {
      traversed += frontier.out_edges();
      auto next = engine.edge_pass(forward, frontier);
      levels.push_back(std::move(frontier));
      frontier = std::move(next);
    }
    deepest = std::max(deepest, levels.size());
    // Deepest first; the source (level 0) has no score and needs no pass into it.
    for (size_t d = levels.size() - 1; d >= 1; --d) {
      if (d >= 2) engine.edge_pass(backward, levels[d], {.targets = &levels[d - 1]});
      engine.for_each(levels[d], finish);
      levels.pop_back();
    }
    engine.set(paths, s, 0.0);
  }
  AlgorithmResult r(engine.collect(scores), {{"sources", sources.size()}, {"levels", deepest}});
  r.edges_traversed = traversed;
  return r;
}

}  // namespace tg
