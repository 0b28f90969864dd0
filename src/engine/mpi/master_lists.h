// The triangle pass's lists on an MPI rank: its masters' degree-ordered lists, as
// engine/cpu/oriented_adjacency.h orients them (each edge kept at its end of lower rank in the
// job-wide DegreeRanking, entries ranks, sorted) and stored in the rank order of their masters
// (hubs, ranked last, together at the end, as one process keeps them: kron-20 took 1.4x longer
// with lists in id order), so that a rank's lists are three arrays that travel to a peer as they
// are, the peer finding a master's list by its place in that order. A triangle r < s < t is found
// at r's owner, merging r's list past s with s's list; s's list is on s's owner, so the ranks'
// lists pass round (engine/mpi/triangle_ring.h) and each rank merges, with each peer's lists in
// turn, the entries whose second corner that peer masters.
//
// Built from the rank's own rows, streamed twice (to count, to fill): a master's out-arcs and
// (directed) its in-arcs, which together hold every arc at that master.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "engine/cpu/oriented_adjacency.h"
#include "engine/degree_ranking.h"
#include "engine/triangles.h"

namespace tg {

template <typename Id>
struct MasterLists {
  // What travels: each list's place, the entries, their arcs.
  std::vector<uint64_t> first;  // by slot (a master's place in rank order): its list starts
  std::vector<Id> ids;          // entries: ranks, sorted in each list
  std::vector<uint8_t> arcs;    // directed: ArcsBetween the list's master and each entry
  // What each holder works out from the ranking (every rank's the same, so lists need not bring
  // their order with them): the slots (index_slots, a scan of the ranking), and for its own
  // lists their masters (from the slots). Empty when ranks are ids (slot = v - first).
  uint64_t first_vertex = 0;  // the masters are [first_vertex, first_vertex + count())
  std::vector<Id> vertex_at;  // by slot: its master
  std::vector<Id> slot;       // by master - first_vertex: its slot

  uint64_t count() const { return first.empty() ? 0 : first.size() - 1; }
  bool holds(uint64_t v) const { return v - first_vertex < count(); }  // (below: wraps, false)
  uint64_t master(uint64_t k) const { return vertex_at.empty() ? first_vertex + k : vertex_at[k]; }
  uint64_t slot_of(uint64_t v) const {
    return slot.empty() ? v - first_vertex : slot[v - first_vertex];
  }
  uint8_t bits(uint64_t k) const { return arcs.empty() ? uint8_t{kArcsBoth} : arcs[k]; }
  uint64_t bytes() const {
    return first.size() * 8 + (ids.size() + vertex_at.size() + slot.size()) * sizeof(Id) +
           arcs.size();
  }

  void index_slots(uint64_t lo, uint64_t hi, const DegreeRanking<Id>& ranking) {
    first_vertex = lo;
    std::vector<Id>().swap(slot);
    if (!ranking.ranked()) return;
    slot.resize(hi - lo);
    Id next = 0;
    for (uint64_t r = 0; r < ranking.size(); ++r) {
      const uint64_t v = ranking.vertex_of(r);
      if (v >= lo && v < hi) slot[v - lo] = next++;
    }
  }

  // The lists of the masters [lo, hi). for_arcs(in, f) calls f(u, v) for every stored arc of
  // every master u: its out-arcs, or with `in` its in-arcs (a directed graph's), a vertex's arcs
  // from one thread at a time.
  template <typename ForArcs>
  static MasterLists build(uint64_t lo, uint64_t hi, bool directed,
                           const DegreeRanking<Id>& ranking, ForArcs for_arcs) {
    MasterLists l;
    l.index_slots(lo, hi, ranking);
    l.first.assign(hi - lo + 1, 0);
    const auto kept = [&](uint64_t u, uint64_t v) { return ranking.rank(v) > ranking.rank(u); };
    const auto count = [&](uint64_t u, uint64_t v) { l.first[l.slot_of(u) + 1] += kept(u, v); };
    for_arcs(false, count);
    if (directed) for_arcs(true, count);
    const uint64_t n = hi - lo;
    for (uint64_t k = 0; k < n; ++k) l.first[k + 1] += l.first[k];
    l.ids.resize(l.first[n]);
    if (directed) l.arcs.resize(l.first[n]);
    // Filled through first[k] as k's cursor, which then holds k's end, k + 1's start: shifted
    // back after.
    const auto fill = [&](uint8_t bits) {
      return [&, bits](uint64_t u, uint64_t v) {
        if (!kept(u, v)) return;
        uint64_t& at = l.first[l.slot_of(u)];
        if (directed) l.arcs[at] = bits;
        l.ids[at++] = ranking.rank(v);
      };
    };
    for_arcs(false, fill(kArcForward));
    if (directed) for_arcs(true, fill(kArcBackward));
    for (uint64_t k = n; k > 0; --k) l.first[k] = l.first[k - 1];
    l.first[0] = 0;
    l.vertex_at.resize(l.slot.size());
    for (uint64_t k = 0; k < l.slot.size(); ++k) l.vertex_at[l.slot[k]] = static_cast<Id>(lo + k);
    if (directed) {
      l.merge_pairs();
    } else {
#pragma omp parallel for schedule(dynamic, 1024)
      for (uint64_t k = 0; k < n; ++k)
        std::sort(l.ids.begin() + static_cast<int64_t>(l.first[k]),
                  l.ids.begin() + static_cast<int64_t>(l.first[k + 1]));
    }
    return l;
  }

 private:
  // A directed master's list holds its out-entries, then its in-entries: merged into one sorted
  // list (oriented_adjacency.h), and the lists closed up.
  void merge_pairs() {
    const uint64_t n = count();
    std::vector<uint64_t> end(n);
    merge_arc_pairs(first, ids, arcs, end);
    uint64_t to = 0;  // each list moves down over the gaps the merges left before it
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t from = first[k], length = end[k] - from;
      std::memmove(ids.data() + to, ids.data() + from, length * sizeof(Id));
      std::memmove(arcs.data() + to, arcs.data() + from, length);
      first[k] = to;
      to += length;
    }
    first[n] = to;
    ids.resize(to);
    arcs.resize(to);
  }
};

namespace master_lists {

inline void add(int64_t* sums, uint64_t v, int64_t x) {
  if (x != 0) std::atomic_ref<int64_t>(sums[v]).fetch_add(x, std::memory_order_relaxed);
}

}  // namespace master_lists

// f(Triangle) for every triangle whose first corner has its list in `near` (indexed by master)
// and whose second corner `far` masters (its lists indexed by slot: the same lists will do), from
// the team's threads, its CornerShares added into sums (by vertex); returns the entries merged, the
// pass's work.
template <typename Id, typename F>
uint64_t add_triangles(const MasterLists<Id>& near, const MasterLists<Id>& far,
                       const DegreeRanking<Id>& ranking, const F& f, int64_t* sums) {
  uint64_t merged = 0;
  // Third corners are mostly hubs, ranked last: a thread adds the top ranks' shares into its own
  // sums, as one process does (engine/cpu/oriented_adjacency.h), and the rest atomically.
  constexpr uint64_t kHotRanks = OrientedAdjacency<Id>::kHotRanks;
  const uint64_t n = ranking.size(), hot_first = n > kHotRanks ? n - kHotRanks : 0;
#pragma omp parallel reduction(+ : merged)
  {
    F call = f;  // a thread's own copy: its captures stay in registers
    std::vector<int64_t> hot(n - hot_first, 0);
#pragma omp for schedule(dynamic, 256)
    for (uint64_t k = 0; k < near.count(); ++k) {
      const uint64_t u = near.master(k), u_end = near.first[k + 1];
      int64_t at_u = 0;
      for (uint64_t a = near.first[k]; a < u_end; ++a) {
        const uint64_t v = ranking.vertex_of(near.ids[a]);
        if (!far.holds(v)) continue;
        const uint64_t kv = far.slot_of(v), v_end = far.first[kv + 1];
        uint64_t i = a + 1, j = far.first[kv];
        merged += (u_end - i) + (v_end - j);
        int64_t at_v = 0;
        while (i < u_end && j < v_end) {
          const Id x = near.ids[i], y = far.ids[j];
          if (x < y) {
            ++i;
          } else if (y < x) {
            ++j;
          } else {
            const Id w = ranking.vertex_of(x);
            const CornerShares c = call(Triangle<Id>{static_cast<Id>(u), static_cast<Id>(v), w,
                                                     near.bits(a), near.bits(i), far.bits(j)});
            at_u += c.u;
            at_v += c.v;
            if (x >= hot_first) {
              hot[x - hot_first] += c.w;
            } else {
              master_lists::add(sums, w, c.w);
            }
            ++i;
            ++j;
          }
        }
        master_lists::add(sums, v, at_v);
      }
      master_lists::add(sums, u, at_u);
    }
    for (uint64_t k = 0; k < hot.size(); ++k)
      master_lists::add(sums, ranking.vertex_of(hot_first + k), hot[k]);
  }
  return merged;
}

// Adds into counts each vertex's entries in `lists`: its master's own, and those naming it. Over
// every rank's lists, a vertex's neighbours in the undirected view.
template <typename Id>
void add_neighbour_counts(const MasterLists<Id>& lists, const DegreeRanking<Id>& ranking,
                          int64_t* counts) {
#pragma omp parallel for schedule(dynamic, 1024)
  for (uint64_t k = 0; k < lists.count(); ++k) {
    master_lists::add(counts, lists.master(k),
                      static_cast<int64_t>(lists.first[k + 1] - lists.first[k]));
    for (uint64_t a = lists.first[k]; a < lists.first[k + 1]; ++a)
      master_lists::add(counts, ranking.vertex_of(lists.ids[a]), 1);
  }
}

}  // namespace tg
