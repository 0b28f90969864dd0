// Each vertex's neighbours as a sorted set, made from the stored arcs with no engine code (the
// triangle-pass verifiers' view of the graph): its out-neighbours, or with `both` its neighbours
// in the undirected view (each arc at both ends); self-loops and repeats left out.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "graph/graph_view.h"

namespace tg {

template <typename Id>
struct NeighbourSets {
  std::vector<uint64_t> first, last;  // v's set is members[first[v], last[v])
  std::vector<Id> members;
  const Id* begin(uint64_t v) const { return members.data() + first[v]; }
  const Id* end(uint64_t v) const { return members.data() + last[v]; }
  bool contains(uint64_t v, uint64_t x) const {
    return std::binary_search(begin(v), end(v), static_cast<Id>(x));
  }

  // f(u, v, w) for every triangle u < v < w of undirected sets, once, serially: for each u and
  // each of its neighbours v > u, the third corners w > v on both sets (the two merged from past
  // v). Ids order the corners, not degrees: slow where hubs are, and another order than the
  // engine's.
  template <typename F>
  void for_each_triangle(F f) const {
    for (uint64_t u = 0; u + 1 < first.size(); ++u) {
      for (const Id* a = begin(u); a != end(u); ++a) {
        const uint64_t v = *a;
        if (v <= u) continue;
        const Id* i = a + 1;
        const Id* j = std::upper_bound(begin(v), end(v), static_cast<Id>(v));
        while (i != end(u) && j != end(v)) {
          if (*i < *j) {
            ++i;
          } else if (*j < *i) {
            ++j;
          } else {
            f(u, v, static_cast<uint64_t>(*i));
            ++i;
            ++j;
          }
        }
      }
    }
  }
};

// Each vertex's neighbours one per stored arc (with `both`, at each end of the arc), self-loops
// left out, in the arcs' order: lists, not yet sets (`last` empty: a list ends where the next
// starts). Label propagation's verifier counts them so.
template <typename Id, typename W>
NeighbourSets<Id> neighbour_lists(const GraphView<Id, W>& g, bool both) {
  const uint64_t n = g.num_vertices();
  NeighbourSets<Id> s;
  s.first.assign(n + 1, 0);
  g.for_each_arc([&](uint64_t u, uint64_t v, W) {
    if (u == v) return;
    ++s.first[u + 1];
    if (both) ++s.first[v + 1];
  });
  for (uint64_t v = 0; v < n; ++v) s.first[v + 1] += s.first[v];
  s.members.resize(s.first[n]);
  std::vector<uint64_t> at(s.first.begin(), s.first.end() - 1);
  g.for_each_arc([&](uint64_t u, uint64_t v, W) {
    if (u == v) return;
    s.members[at[u]++] = static_cast<Id>(v);
    if (both) s.members[at[v]++] = static_cast<Id>(u);
  });
  return s;
}

template <typename Id, typename W>
NeighbourSets<Id> neighbour_sets(const GraphView<Id, W>& g, bool both) {
  const uint64_t n = g.num_vertices();
  NeighbourSets<Id> s = neighbour_lists(g, both);
  s.last.resize(n);
  for (uint64_t v = 0; v < n; ++v) {
    Id* b = s.members.data() + s.first[v];
    Id* e = s.members.data() + s.first[v + 1];
    std::sort(b, e);
    s.last[v] = s.first[v] + static_cast<uint64_t>(std::unique(b, e) - b);
  }
  return s;
}

}  // namespace tg
