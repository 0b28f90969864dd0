// WCC: weakly connected components (components of an undirected graph). Each vertex's label is
// the smallest original id in its component, so results compare exactly across runs and systems.
// Technique: FastSV (Zhang, Azad, Hu, SIAM PP 2020), a min-label algorithm over a forest of
// parent pointers that needs O(log n)-like rounds where plain label propagation needs one round
// per hop of the diameter (thousands on road networks). Each round: one min-combine edge pass
// (both directions) gives every vertex the least grandparent among its neighbours; then vertex
// passes hook (a vertex and its parent adopt that value) and shortcut (a vertex adopts its
// grandparent). Only vertices whose grandparent changed send in the next round. Every pointer
// only ever moves to a smaller vertex of the same component, so the component's least vertex is
// the root all others reach; dense ids are numbered in increasing original id, so it is also
// the least original id.
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
  std::vector<Id> parent;
  std::vector<Id> grandparent;        // what an edge carries
  std::vector<Id> least_neighbour;    // the combine target: least grandparent seen over the edges

  template <typename W>
  Id scatter(Id u, W) const { return grandparent[u]; }
  Id& target(Id v) { return least_neighbour[v]; }
  bool apply(Id) { return false; }  // activity is decided by the grandparent change below
};

template <typename Id, typename W>
AlgorithmResult run_wcc(Engine<Id, W>& engine) {
  using Op = MinOp<Id>;
  const uint64_t n = engine.num_vertices();
  WccProgram<Id> wcc{std::vector<Id>(n), std::vector<Id>(n), std::vector<Id>(n)};
  engine.vertex_pass([&](Id v) { wcc.parent[v] = wcc.grandparent[v] = wcc.least_neighbour[v] = v; });
  auto frontier = engine.all();
  uint64_t rounds = 0;
  while (!frontier.empty()) {
    ++rounds;
    engine.edge_pass(wcc, frontier);
    // Hooking and shortcutting; parents only ever decrease, so concurrent updates commute.
    engine.vertex_pass([&](Id v) {
      const Id least = wcc.least_neighbour[v];
      Op::atomic_combine(wcc.parent[relaxed_load(wcc.parent[v])], least);  // stochastic hooking
      Op::atomic_combine(wcc.parent[v], least);                            // aggressive hooking
      Op::atomic_combine(wcc.parent[v], wcc.grandparent[v]);               // shortcutting
    });
    std::vector<std::vector<Id>> changed(max_threads());
#pragma omp parallel
    {
      auto& mine = changed[omp_get_thread_num()];
#pragma omp for schedule(static)
      for (uint64_t v = 0; v < n; ++v) {
        const Id next = wcc.parent[wcc.parent[v]];
        if (next != wcc.grandparent[v]) {
          wcc.grandparent[v] = next;
          mine.push_back(static_cast<Id>(v));
        }
      }
    }
    std::vector<Id> list;
    for (auto& c : changed) list.insert(list.end(), c.begin(), c.end());
    frontier = engine.from_list(std::move(list));
  }
  AlgorithmResult r;
  r.ints.resize(n);
  uint64_t components = 0;
  for (uint64_t v = 0; v < n; ++v) {
    uint64_t root = v;
    while (wcc.parent[root] != root) root = wcc.parent[root];
    r.ints[v] = static_cast<int64_t>(root);
    components += root == v;
  }
  r.summary["components"] = components;
  r.summary["rounds"] = rounds;
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
