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
// Before the rounds, as Afforest (Sutton et al., IPDPS 2018) does, every vertex is linked to its
// first two neighbours: that forest already holds most of a giant component, whose edges the
// first round then skips (it reads only the edges of vertices outside it, both ways).
// Verifier: union-find over every arc, then the least member of each set.
#pragma once

#include <cstdint>
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
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
  Id giant = std::numeric_limits<Id>::max();  // root of the sampled giant tree, skipped at first

  bool wants(Id v) const { return giant == std::numeric_limits<Id>::max() || relaxed_load(parent[v]) != giant; }
  template <typename W>
  Id scatter(Id u, W) const { return grandparent[u]; }
  Id& target(Id v) { return least_neighbour[v]; }
  bool apply(Id) { return false; }  // activity is decided by the grandparent change below
};

// The vertices for which keep(v) holds, in increasing order, gathered by all threads.
template <typename Id, typename Keep>
std::vector<Id> vertices_where(uint64_t n, Keep keep) {
  std::vector<std::vector<Id>> parts(max_threads());
#pragma omp parallel
  {
    auto& mine = parts[omp_get_thread_num()];
#pragma omp for schedule(static)
    for (uint64_t v = 0; v < n; ++v)
      if (keep(v)) mine.push_back(static_cast<Id>(v));
  }
  std::vector<Id> all;
  for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Hooks the trees of u and v together, the larger root under the smaller (lock-free).
template <typename Id>
void link(std::vector<Id>& parent, Id u, Id v) {
  Id a = relaxed_load(parent[u]), b = relaxed_load(parent[v]);
  while (a != b) {
    const Id high = std::max(a, b), low = std::min(a, b);
    const Id above = relaxed_load(parent[high]);
    if (above == high && std::atomic_ref<Id>(parent[high]).compare_exchange_strong(const_cast<Id&>(above), low)) return;
    a = relaxed_load(parent[above]);
    b = relaxed_load(parent[low]);
  }
}

template <typename Id>
Id most_frequent_root(const std::vector<Id>& parent) {
  std::vector<Id> sample;
  std::mt19937_64 rng(7);
  for (int k = 0; k < 1024 && !parent.empty(); ++k) sample.push_back(parent[rng() % parent.size()]);
  std::sort(sample.begin(), sample.end());
  Id best = sample.empty() ? Id{0} : sample[0];
  size_t best_run = 0;
  for (size_t i = 0; i < sample.size();) {
    size_t j = i;
    while (j < sample.size() && sample[j] == sample[i]) ++j;
    if (j - i > best_run) {
      best_run = j - i;
      best = sample[i];
    }
    i = j;
  }
  return best;
}

template <typename Id, typename W>
AlgorithmResult run_wcc(Engine<Id, W>& engine) {
  using Op = MinOp<Id>;
  const uint64_t n = engine.num_vertices();
  WccProgram<Id> wcc{std::vector<Id>(n), std::vector<Id>(n), std::vector<Id>(n)};
  auto& parent = wcc.parent;
  engine.vertex_pass([&](Id v) { parent[v] = v; });
  // Sampling: link along each vertex's first two edges, then point every vertex at its root.
  engine.sample_pass(2, [&](Id u, Id v) { link(parent, u, v); });
  engine.vertex_pass([&](Id v) {
    Id root = parent[v];
    while (root != parent[root]) root = parent[root];
    parent[v] = root;
  });
  engine.vertex_pass([&](Id v) { wcc.grandparent[v] = wcc.least_neighbour[v] = parent[v]; });
  wcc.giant = most_frequent_root(parent);

  // First round: only the edges of vertices outside the giant tree, read in both directions
  // (pull gathers what their neighbours hold, push tells their neighbours).
  std::vector<Id> outside = vertices_where<Id>(n, [&](uint64_t v) { return parent[v] != wcc.giant; });
  auto everyone = engine.all();
  engine.edge_pass_in(wcc, everyone, Direction::kPull);
  wcc.giant = std::numeric_limits<Id>::max();
  auto frontier = engine.from_list(std::move(outside));
  uint64_t rounds = 0;
  bool first = true;
  while (!frontier.empty()) {
    ++rounds;
    if (first) {
      engine.edge_pass_in(wcc, frontier, Direction::kPush);
      first = false;
    } else {
      engine.edge_pass(wcc, frontier);
    }
    // Hooking and shortcutting; parents only ever decrease, so concurrent updates commute.
    engine.vertex_pass([&](Id v) {
      const Id least = wcc.least_neighbour[v];
      Op::atomic_combine(parent[relaxed_load(parent[v])], least);  // stochastic hooking
      Op::atomic_combine(parent[v], least);                       // aggressive hooking
      Op::atomic_combine(parent[v], wcc.grandparent[v]);          // shortcutting
    });
    // Each vertex's own grandparent entry is written only by the thread that tests it.
    frontier = engine.from_list(vertices_where<Id>(n, [&](uint64_t v) {
      const Id next = parent[parent[v]];
      if (next == wcc.grandparent[v]) return false;
      wcc.grandparent[v] = next;
      return true;
    }));
  }
  AlgorithmResult r;
  r.ints.resize(n);
  uint64_t components = 0;
#pragma omp parallel for reduction(+ : components)
  for (uint64_t v = 0; v < n; ++v) {
    uint64_t root = v;
    while (parent[root] != root) root = parent[root];
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
