// Label-propagation verifier: from the stored arcs (no engine code) it lists each vertex's
// neighbours once per arc (a directed graph's at both ends), replays the rounds serially,
// counting each vertex's neighbours' labels in a hash map where the algorithm sorts them, and
// compares every label.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "algorithms/result.h"
#include "graph/graph_view.h"
#include "verify/neighbour_sets.h"

namespace tg {

// Bytes the verifier holds beyond the run's result: the neighbour lists with their offsets and
// cursors, and two rounds' labels.
inline uint64_t cdlp_verifier_bytes(uint64_t vertices, uint64_t arcs, unsigned id_bytes) {
  return (vertices + 1) * 8 * 2 + 2 * arcs * id_bytes + 2 * vertices * 8;
}

template <typename Id, typename W>
Verdict verify_cdlp(const GraphView<Id, W>& g, uint32_t rounds, const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  if (r.real || r.ints.size() != n)
    return Verdict::fail(fmt::format("{} labels for {} vertices", r.ints.size(), n));
  // An undirected file stores each edge at both ends; a directed one's arcs count at both.
  const NeighbourSets<Id> near = neighbour_lists(g, g.directed());
  std::vector<uint64_t> label(n), next(n);
  for (uint64_t v = 0; v < n; ++v) label[v] = v;
  std::unordered_map<uint64_t, uint64_t> seen;
  for (uint32_t round = 0; round < rounds; ++round) {
    for (uint64_t v = 0; v < n; ++v) {
      seen.clear();
      next[v] = label[v];
      uint64_t most = 0;
      for (uint64_t k = near.first[v]; k < near.first[v + 1]; ++k) {
        const uint64_t l = label[near.members[k]];
        const uint64_t times = ++seen[l];
        if (times > most || (times == most && l < next[v])) next[v] = l, most = times;
      }
    }
    label.swap(next);
  }
  for (uint64_t v = 0; v < n; ++v) {
    if (r.ints[v] != static_cast<int64_t>(label[v])) {
      return Verdict::fail(fmt::format(
          "vertex {}: label {}, but replaying {} rounds with counted neighbour labels gives {}", v,
          r.ints[v], rounds, label[v]));
    }
  }
  return {};
}

}  // namespace tg
