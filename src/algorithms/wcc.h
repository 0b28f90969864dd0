// WCC: weakly connected components (components of an undirected graph). Each vertex's label is
// the smallest original id in its component, so results compare exactly across runs and systems.
// Technique: min-label propagation along edges in both directions; dense ids are numbered in
// increasing original id, so the least dense id is the least original id.
// Verifier: union-find over every arc, then the least member of each set.
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

#include "algorithms/result.h"
#include "engine/engine.h"

namespace tg {

template <typename Id>
struct WccProgram {
  using Op = MinOp<Id>;
  static constexpr bool kBothDirections = true;
  std::vector<Id> label;

  template <typename W>
  Id scatter(Id u, W) const { return relaxed_load(label[u]); }
  Id& target(Id v) { return label[v]; }
  bool apply(Id) { return true; }
};

template <typename Id, typename W>
AlgorithmResult run_wcc(Engine<Id, W>& engine) {
  const uint64_t n = engine.num_vertices();
  WccProgram<Id> wcc{std::vector<Id>(n)};
  engine.vertex_pass([&](Id v) { wcc.label[v] = v; });
  auto frontier = engine.all();
  while (!frontier.empty()) frontier = engine.edge_pass(wcc, frontier);
  AlgorithmResult r;
  r.ints.resize(n);
  uint64_t components = 0;
  for (uint64_t v = 0; v < n; ++v) {
    r.ints[v] = static_cast<int64_t>(wcc.label[v]);
    components += wcc.label[v] == v;
  }
  r.summary["components"] = components;
  r.values_are_vertices = true;
  return r;
}

template <typename Id, typename W>
Verdict verify_wcc(const GraphView<Id, W>& g, const AlgorithmResult& r) {
  const uint64_t n = g.num_vertices();
  std::vector<uint64_t> up(n);
  std::iota(up.begin(), up.end(), 0);
  auto find = [&](uint64_t x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  };
  g.for_each_arc([&](uint64_t u, uint64_t v, W) {
    const uint64_t a = find(u), b = find(v);
    if (a != b) up[std::max(a, b)] = std::min(a, b);  // the root stays the least member
  });
  if (r.ints.size() != n) return Verdict::fail("wrong number of labels");
  for (uint64_t v = 0; v < n; ++v) {
    if (r.ints[v] != static_cast<int64_t>(find(v))) {
      return Verdict::fail(fmt::format("vertex {} has label {}, its component's least vertex is {}", v, r.ints[v], find(v)));
    }
  }
  return {};
}

}  // namespace tg
