// Radii: each vertex's eccentricity estimated from K sampled sources (at most 64): the largest
// hop distance from any sampled source to it, with the diameter estimate the largest of those.
// Technique: bit-parallel BFS (as Ligra's Radii): every vertex holds a 64-bit mask of the sources
// that have reached it; an or-combine edge pass advances all K searches one hop at once; a vertex
// whose mask changed in round r has eccentricity estimate r. A vertex cannot improve once it has
// every source's bit (the "saturated" point that lets pull stop early).
// Verifier: the K BFSs run one at a time, serially.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "algorithms/reference.h"
#include "algorithms/result.h"
#include "engine/engine.h"

namespace tg {

template <typename Id>
struct RadiiProgram {
  using Op = OrOp<uint64_t>;
  std::vector<uint64_t> seen;  // sources that reached v before this round (what scatter reads)
  std::vector<uint64_t> next;  // sources that reached v so far (the combine target)
  std::vector<int64_t> eccentricity;
  uint64_t all_sources = 0;
  int64_t round = 0;

  template <typename W>
  uint64_t scatter(Id u, W) const { return seen[u]; }
  uint64_t& target(Id v) { return next[v]; }
  bool wants(Id v) const { return relaxed_load(next[v]) != all_sources; }
  bool saturated(Id v, uint64_t acc) const { return (acc | next[v]) == all_sources; }
  bool apply(Id v) {
    eccentricity[v] = round;
    return true;
  }
};

// K distinct sources with out-edges, chosen by a seeded generator.
template <typename Graph>
std::vector<uint64_t> radii_sources(const Graph& g, int k, uint64_t seed) {
  std::vector<uint64_t> candidates;
  for (uint64_t v = 0; v < g.num_vertices(); ++v)
    if (g.out_degree(v) > 0) candidates.push_back(v);
  std::mt19937_64 rng(seed);
  std::shuffle(candidates.begin(), candidates.end(), rng);
  candidates.resize(std::min<size_t>(candidates.size(), static_cast<size_t>(k)));
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

template <typename Id, typename W>
AlgorithmResult run_radii(Engine<Id, W>& engine, const std::vector<uint64_t>& sources) {
  const uint64_t n = engine.num_vertices();
  RadiiProgram<Id> radii{std::vector<uint64_t>(n, 0), std::vector<uint64_t>(n, 0), std::vector<int64_t>(n, kUnreached), 0, 0};
  radii.all_sources = sources.size() == 64 ? ~uint64_t{0} : (uint64_t{1} << sources.size()) - 1;
  std::vector<Id> start;
  for (size_t k = 0; k < sources.size(); ++k) {
    radii.seen[sources[k]] |= uint64_t{1} << k;
    radii.next[sources[k]] |= uint64_t{1} << k;
    radii.eccentricity[sources[k]] = 0;
    start.push_back(static_cast<Id>(sources[k]));
  }
  auto frontier = engine.from_list(std::move(start));
  while (!frontier.empty()) {
    ++radii.round;
    frontier = engine.edge_pass(radii, frontier);
    engine.vertex_pass(frontier, [&](Id v) { radii.seen[v] = radii.next[v]; });
  }
  AlgorithmResult r;
  r.ints = std::move(radii.eccentricity);
  int64_t diameter = 0;
  for (int64_t e : r.ints)
    if (e != kUnreached) diameter = std::max(diameter, e);
  r.summary["diameter_estimate"] = diameter;
  r.summary["sources"] = sources.size();
  return r;
}

template <typename Id, typename W>
Verdict verify_radii(const GraphView<Id, W>& g, const std::vector<uint64_t>& sources, const AlgorithmResult& r) {
  const auto adj = reference_adjacency(g, false);
  std::vector<int64_t> expected(g.num_vertices(), kUnreached);
  for (uint64_t s : sources) {
    const auto depth = reference_bfs(adj, s);
    for (uint64_t v = 0; v < depth.size(); ++v)
      if (depth[v] >= 0) expected[v] = expected[v] == kUnreached ? depth[v] : std::max(expected[v], depth[v]);
  }
  for (uint64_t v = 0; v < expected.size(); ++v) {
    if (r.ints[v] != expected[v]) {
      return Verdict::fail(fmt::format("vertex {}: eccentricity estimate {}, the sampled BFSs give {}", v, r.ints[v], expected[v]));
    }
  }
  return {};
}

}  // namespace tg
