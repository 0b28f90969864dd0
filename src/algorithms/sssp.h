// SSSP: shortest-path distances from a source over non-negative weights.
// Technique: delta-stepping (Meyer & Sanders 2003), as GAPBS runs it: vertices wait in buckets
// of width delta by tentative distance; the lowest bucket is relaxed (min-combine into dist)
// until it stays empty, then the next. Distances are int64 for integer weights, double for real.
// Verifier: every arc satisfies d[v] <= d[u] + w, every reached vertex but the source has a
// tight in-arc (d[v] == d[u] + w), and nothing unreached has a reached predecessor.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "algorithms/result.h"
#include "engine/engine.h"

namespace tg {

template <typename W>
using DistanceOf = std::conditional_t<std::is_floating_point_v<W>, double, int64_t>;

// An edge's length: its weight, or 1 on an unweighted view (--unit-weights).
template <typename W>
auto edge_length(W w) {
  if constexpr (std::is_same_v<W, NoWeight>) {
    return int64_t{1};
  } else {
    return w;
  }
}

template <typename Id, typename W>
struct SsspProgram {
  using Dist = DistanceOf<W>;
  using Op = MinOp<Dist>;
  std::vector<Dist> dist;

  Dist scatter(Id u, W w) const { return relaxed_load(dist[u]) + static_cast<Dist>(edge_length(w)); }
  Dist& target(Id v) { return dist[v]; }
  bool apply(Id) { return true; }
};

// A default bucket width: the mean weight divided by the mean degree, at least the least
// positive step (1 for integers). Light graphs get narrow buckets, dense ones wide.
template <typename W>
DistanceOf<W> default_delta(const GraphFile& file) {
  const double mean_degree = file.num_vertices() ? static_cast<double>(file.num_arcs()) / static_cast<double>(file.num_vertices()) : 1.0;
  const double mean_weight = (file.header().min_weight + file.header().max_weight) / 2;
  const double delta = std::max(mean_weight, 0.0) / std::max(mean_degree, 1.0);
  if constexpr (std::is_floating_point_v<W>) {
    return delta > 0 ? delta : 1.0;
  } else {
    return std::max<int64_t>(1, static_cast<int64_t>(delta));
  }
}

template <typename Id, typename W>
AlgorithmResult run_sssp(Engine<Id, W>& engine, uint64_t source, DistanceOf<W> delta) {
  using Dist = DistanceOf<W>;
  const uint64_t n = engine.num_vertices();
  const Dist kInf = MinOp<Dist>::identity();
  SsspProgram<Id, W> sssp{std::vector<Dist>(n, kInf)};
  sssp.dist[source] = 0;
  std::vector<std::vector<Id>> buckets(1, std::vector<Id>{static_cast<Id>(source)});
  Bitmap queued(n);
  auto bucket_of = [&](Dist d) { return static_cast<size_t>(d / delta); };
  uint64_t traversed = 0, rounds = 0;
  for (size_t b = 0; b < buckets.size(); ++b) {
    while (!buckets[b].empty()) {
      // The live members of bucket b: still at a distance in this bucket, each once.
      std::vector<Id> members;
      members.reserve(buckets[b].size());
      for (Id v : buckets[b]) {
        if (bucket_of(sssp.dist[v]) == b && !queued.get(v)) {
          queued.set(v);
          members.push_back(v);
        }
      }
      buckets[b].clear();
      for (Id v : members) queued.clear(v);
      if (members.empty()) break;
      auto frontier = engine.from_list(std::move(members));
      traversed += frontier.out_edges();
      auto improved = engine.edge_pass(sssp, frontier);
      ++rounds;
      for (Id v : improved.list()) {
        const size_t k = bucket_of(sssp.dist[v]);
        if (k >= buckets.size()) buckets.resize(k + 1);
        buckets[std::max(k, b)].push_back(v);
      }
    }
  }
  AlgorithmResult r;
  if constexpr (std::is_floating_point_v<Dist>) {
    r.real = true;
    r.reals.resize(n);
    for (uint64_t v = 0; v < n; ++v) r.reals[v] = sssp.dist[v] == kInf ? INFINITY : sssp.dist[v];
  } else {
    r.ints.resize(n);
    for (uint64_t v = 0; v < n; ++v) r.ints[v] = sssp.dist[v] == kInf ? kUnreached : sssp.dist[v];
  }
  r.summary["delta"] = delta;
  r.summary["rounds"] = rounds;
  r.edges_traversed = traversed;
  return r;
}

template <typename Id, typename W>
Verdict verify_sssp(const GraphView<Id, W>& g, uint64_t source, const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  auto dist = [&](uint64_t v) -> double {
    if (r.real) return r.reals[v];
    return r.ints[v] == kUnreached ? INFINITY : static_cast<double>(r.ints[v]);
  };
  // Real weights: sums in another order round differently; allow a relative slack.
  auto close = [&](double a, double b) { return r.real ? std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)) : a == b; };
  if ((r.real ? r.reals.size() : r.ints.size()) != n) return Verdict::fail("wrong number of distances");
  if (dist(source) != 0) return Verdict::fail("the source's distance is not 0");
  std::vector<char> tight(n, 0);
  std::string problem;
  g.for_each_arc([&](uint64_t u, uint64_t v, W w) {
    if (!problem.empty() || std::isinf(dist(u))) return;
    const double length = static_cast<double>(edge_length(w));
    const double via = dist(u) + length;
    if (dist(v) > via && !close(dist(v), via)) {
      problem = fmt::format("arc {} -> {} (weight {}) is not relaxed: {} > {} + {}", u, v, length, dist(v), dist(u), length);
    } else if (close(dist(v), via)) {
      tight[v] = 1;
    }
  });
  if (!problem.empty()) return Verdict::fail(problem);
  for (uint64_t v = 0; v < n; ++v) {
    if (v != source && !std::isinf(dist(v)) && !tight[v]) {
      return Verdict::fail(fmt::format("vertex {} at distance {} has no tight in-arc", v, dist(v)));
    }
  }
  return {};
}

}  // namespace tg
