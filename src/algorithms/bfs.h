// BFS: hop depth of every vertex from a source, and (with parents) a BFS tree.
// Technique: direction-optimizing BFS (Beamer, Asanovic, Patterson, SC'12) falls out of the
// engine: push atomically claims unvisited children; pull lets each unvisited vertex look for any
// parent in the frontier and stop at the first (the "cannot improve" point).
// Verifier as Graph500/GAPBS: source at depth 0, every arc (u, v) with u reached has v reached
// and depth[v] <= depth[u] + 1, every other reached vertex has a tree/in-edge from depth - 1.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "algorithms/reference.h"
#include "algorithms/result.h"
#include "engine/engine.h"

namespace tg {

template <typename Id>
struct BfsProgram {
  using Op = MinOp<Id>;  // messages are candidate parents; any one will do
  static constexpr bool kActivatesOnce = true;
  static constexpr Id kNone = std::numeric_limits<Id>::max();
  std::vector<Id> parent;
  std::vector<int64_t> depth;
  int64_t level = 0;

  template <typename W>
  Id scatter(Id u, W) const { return u; }
  Id& target(Id v) { return parent[v]; }
  bool wants(Id v) const { return relaxed_load(parent[v]) == kNone; }
  bool saturated(Id, Id acc) const { return acc != kNone; }
  bool apply(Id v) {
    depth[v] = level + 1;
    return true;
  }
};

template <typename Id, typename W>
AlgorithmResult run_bfs(Engine<Id, W>& engine, uint64_t source, bool with_parents) {
  const uint64_t n = engine.num_vertices();
  BfsProgram<Id> bfs{std::vector<Id>(n, BfsProgram<Id>::kNone), std::vector<int64_t>(n, kUnreached), 0};
  bfs.parent[source] = static_cast<Id>(source);
  bfs.depth[source] = 0;
  auto frontier = engine.from_list({static_cast<Id>(source)});
  uint64_t traversed = 0;
  while (!frontier.empty()) {
    traversed += frontier.out_edges();
    frontier = engine.edge_pass(bfs, frontier);
    ++bfs.level;
  }
  AlgorithmResult r;
  r.ints = std::move(bfs.depth);
  if (with_parents) {
    r.parents.resize(n);
    for (uint64_t v = 0; v < n; ++v) r.parents[v] = bfs.parent[v] == BfsProgram<Id>::kNone ? -1 : static_cast<int64_t>(bfs.parent[v]);
  }
  r.summary["levels"] = bfs.level;
  r.edges_traversed = traversed;
  return r;
}

template <typename Id, typename W>
Verdict verify_bfs(const GraphView<Id, W>& g, uint64_t source, const AlgorithmResult& r) {
  const auto& depth = r.ints;
  const uint64_t n = g.num_vertices();
  if (depth.size() != n) return Verdict::fail("wrong number of depths");
  if (depth[source] != 0) return Verdict::fail("the source's depth is not 0");
  if (!r.parents.empty() && r.parents[source] != static_cast<int64_t>(source)) return Verdict::fail("the source is not its own parent");
  std::vector<char> has_parent_edge(n, 0);
  std::string problem;
  g.for_each_arc([&](uint64_t u, uint64_t v, W) {
    if (!problem.empty() || depth[u] == kUnreached) return;
    if (depth[v] == kUnreached || depth[v] > depth[u] + 1) {
      problem = fmt::format("arc {} -> {} breaks depth consistency ({} -> {})", u, v, depth[u],
                            depth[v] == kUnreached ? -1 : depth[v]);
      return;
    }
    if (depth[v] == depth[u] + 1 && (r.parents.empty() || r.parents[v] == static_cast<int64_t>(u))) has_parent_edge[v] = 1;
  });
  if (!problem.empty()) return Verdict::fail(problem);
  for (uint64_t v = 0; v < n; ++v) {
    if (v == source || depth[v] == kUnreached) continue;
    if (!has_parent_edge[v]) {
      return Verdict::fail(fmt::format("vertex {} at depth {} has no {} at depth {}", v, depth[v],
                                       r.parents.empty() ? "in-neighbour" : "tree edge from its parent", depth[v] - 1));
    }
  }
  return {};
}

}  // namespace tg
