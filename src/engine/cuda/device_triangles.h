// The device engine's triangle pass and neighbour counts (device_engine.h declares them and
// includes this file after the class): the lists of engine/cpu/oriented_adjacency.h, built on the
// device from the resident out-grid and merged there.
//
// Building. Every arc u -> v of the out-grid (a directed graph's every arc once; an undirected
// graph's every edge at both ends, the end of lower rank kept) becomes one entry keyed by its
// owner, the end of lower rank, then the other end (two ranks in one 64-bit key), with the arc
// bits seen from the owner; self-loops are dropped. One sort orders the keys, so each owner's
// list is contiguous and sorted; a directed pair's two entries, now adjacent, merge into one with
// both bits (reduce_by_key); lower_bound finds where each list starts. The ranking is the CPU
// engine's (degree_ranking.h), computed on the host from the file's index and copied in, so every
// engine names each triangle's corners in the same order.
//
// Merging. One thread per entry (r, s) merges r's list past s with s's list, the edges, not the
// vertices, divided among threads (a hub's list no longer holds one thread for all its work);
// each triangle's shares are added with device atomics, the first two corners' summed in
// registers over the merge.
#pragma once

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>

#include <cstdint>
#include <vector>

#include "engine/degree_ranking.h"
#include "engine/triangles.h"
#include "engine/undirected_view.h"

namespace tg::device {

// Ranks by degree, or (null arrays) the ids themselves, as DegreeRanking decided.
template <typename Id>
struct RankView {
  const Id* rank_of = nullptr;
  const Id* vertex_of = nullptr;
  TG_HOST_DEVICE Id rank(uint64_t v) const { return rank_of ? rank_of[v] : static_cast<Id>(v); }
  TG_HOST_DEVICE Id vertex(uint64_t r) const {
    return vertex_of ? vertex_of[r] : static_cast<Id>(r);
  }
};

// An entry's key: its owner's rank, then its other end's (ranks are 32-bit ids on the device).
TG_HOST_DEVICE inline uint64_t entry_key(uint64_t owner, uint64_t other) {
  return (owner << 32) | other;
}
TG_HOST_DEVICE inline uint64_t key_owner(uint64_t key) { return key >> 32; }
TG_HOST_DEVICE inline uint64_t key_other(uint64_t key) { return key & 0xffffffffu; }
inline constexpr uint64_t kNoEntry = ~uint64_t{0};  // an arc that lists nothing (a self-loop)

// The device memory a triangle pass's lists take at most, for a graph of n vertices and `arcs`
// arcs in its out-grid: a key and its arc bits per arc, twice (the sort's second buffer; a
// directed graph's merge writes a second copy instead), the ranks both ways and the lists' starts.
inline uint64_t oriented_lists_bytes(uint64_t n, uint64_t arcs) {
  return 2 * arcs * (sizeof(uint64_t) + 1) + n * 2 * sizeof(uint32_t) + (n + 1) * 8;
}

// Arc e of one out-grid block as an oriented entry, written at base + e.
template <typename Id>
struct OrientArc {
  BlockDecoder block;
  RankView<Id> ranks;
  bool directed;
  uint64_t base;
  uint64_t* keys;
  uint8_t* bits;
  TG_HOST_DEVICE void operator()(uint64_t e) const {
    const uint64_t u = block.vertex(entry_of_arc(block, e)), v = block.neighbour(e);
    const uint64_t ru = ranks.rank(u), rv = ranks.rank(v);
    const bool from_owner = ru < rv;
    if (u == v || (!directed && !from_owner)) {  // undirected: the other end lists it
      keys[base + e] = kNoEntry;
      return;
    }
    keys[base + e] = from_owner ? entry_key(ru, rv) : entry_key(rv, ru);
    bits[base + e] = !directed ? kArcsBoth : from_owner ? kArcForward : kArcBackward;
  }
};
struct IsNoEntry {
  template <typename Entry>  // (key, bits)
  TG_HOST_DEVICE bool operator()(const Entry& entry) const {
    return thrust::get<0>(entry) == kNoEntry;
  }
};
// Where owner r's entries start: lower_bound of r among the keys' owners.
struct OwnerBelow {
  TG_HOST_DEVICE bool operator()(uint64_t key, uint64_t r) const { return key_owner(key) < r; }
};
struct SameKey {
  TG_HOST_DEVICE bool operator()(uint64_t a, uint64_t b) const { return a == b; }
};
struct OrBits {
  TG_HOST_DEVICE uint8_t operator()(uint8_t a, uint8_t b) const { return a | b; }
};

TG_HOST_DEVICE inline void add_at(int64_t* sums, uint64_t v, int64_t x) {
  if (x != 0) AtomicRef<int64_t>(sums[v]).fetch_add(x, cuda::memory_order_relaxed);
}

// The triangles through entry a = (r, s): r's entries past a merged with s's list. Returns the
// entries merged (the pass's work).
template <typename Id, typename F>
struct MergeEntry {
  F f;
  RankView<Id> ranks;
  const uint64_t* keys;
  const uint8_t* bits;
  const uint64_t* first;  // by rank, n + 1
  int64_t* sums;          // by vertex
  TG_HOST_DEVICE uint64_t operator()(uint64_t a) const {
    const uint64_t r = key_owner(keys[a]), s = key_other(keys[a]);
    const uint64_t r_end = first[r + 1], s_end = first[s + 1];
    uint64_t i = a + 1, j = first[s];
    const uint64_t work = (r_end - i) + (s_end - j);
    const Id u = ranks.vertex(r), v = ranks.vertex(s);
    int64_t at_u = 0, at_v = 0;
    while (i < r_end && j < s_end) {
      const uint64_t x = key_other(keys[i]), y = key_other(keys[j]);
      if (x < y) {
        ++i;
      } else if (y < x) {
        ++j;
      } else {
        const Id w = ranks.vertex(x);
        const CornerShares c = f(Triangle<Id>{u, v, w, bits[a], bits[i], bits[j]});
        at_u += c.u;
        at_v += c.v;
        add_at(sums, w, c.w);
        ++i;
        ++j;
      }
    }
    add_at(sums, u, at_u);
    add_at(sums, v, at_v);
    return work;
  }
};

// One neighbour at each end of entry a.
template <typename Id>
struct CountEnds {
  RankView<Id> ranks;
  const uint64_t* keys;
  int64_t* counts;
  TG_HOST_DEVICE void operator()(uint64_t a) const {
    add_at(counts, ranks.vertex(key_owner(keys[a])), 1);
    add_at(counts, ranks.vertex(key_other(keys[a])), 1);
  }
};
// The oriented lists in device memory.
template <typename Id, typename Backend>
struct DeviceOrientedLists {
  template <typename T>
  using Vector = typename Backend::template Vector<T>;
  Vector<Id> rank_of, vertex_of;  // empty unless ranked by degree
  Vector<uint64_t> keys;          // (owner, other) ranks, sorted: each owner's list, in order
  Vector<uint8_t> bits;           // per entry: ArcsBetween its owner and its other end
  Vector<uint64_t> first;         // by rank: where its list starts (n + 1)
  uint64_t entries = 0;

  RankView<Id> ranks() const {
    return {rank_of.empty() ? nullptr : thrust::raw_pointer_cast(rank_of.data()),
            vertex_of.empty() ? nullptr : thrust::raw_pointer_cast(vertex_of.data())};
  }
};

template <typename Id, typename W, typename Backend>
auto DeviceEngine<Id, W, Backend>::oriented_lists() -> DeviceOrientedLists<Id, Backend> {
  static_assert(sizeof(Id) <= 4, "the device engine's lists key two ids in 64 bits");
  DeviceOrientedLists<Id, Backend> lists;
  const DegreeRanking<Id> ranking(n_, [&](uint64_t v) { return undirected_degree(g_, v); });
  if (ranking.ranked()) {
    lists.rank_of = Vector<Id>(ranking.ranks().begin(), ranking.ranks().end());
    lists.vertex_of = Vector<Id>(ranking.vertices().begin(), ranking.vertices().end());
  }
  const uint64_t arcs = out_.arcs();
  Vector<uint64_t> keys(arcs ? arcs : 1);
  Vector<uint8_t> bits(arcs ? arcs : 1);
  uint64_t base = 0;
  for (uint64_t k = 0; k < uint64_t{out_.side()} * out_.side(); ++k) {
    const BlockDecoder& d = out_.block(k);
    thrust::for_each_n(
        policy(), thrust::counting_iterator<uint64_t>(0), d.edge_count,
        OrientArc<Id>{d, lists.ranks(), g_.directed(), base, thrust::raw_pointer_cast(keys.data()),
                      thrust::raw_pointer_cast(bits.data())});
    base += d.edge_count;
  }
  const auto arc_entries = thrust::make_zip_iterator(keys.begin(), bits.begin());
  uint64_t entries =
      thrust::remove_if(policy(), arc_entries, arc_entries + arcs, IsNoEntry{}) - arc_entries;
  thrust::sort_by_key(policy(), keys.begin(), keys.begin() + entries, bits.begin());
  if (g_.directed()) {  // a pair's arcs both ways: two adjacent entries, merged
    Vector<uint64_t> merged_keys(entries ? entries : 1);
    Vector<uint8_t> merged_bits(entries ? entries : 1);
    entries = thrust::reduce_by_key(policy(), keys.begin(), keys.begin() + entries, bits.begin(),
                                    merged_keys.begin(), merged_bits.begin(), SameKey{}, OrBits{})
                  .first -
              merged_keys.begin();
    keys = std::move(merged_keys);
    bits = std::move(merged_bits);
  }
  keys.resize(entries ? entries : 1);
  bits.resize(entries ? entries : 1);
  lists.first = Vector<uint64_t>(n_ + 1);
  thrust::lower_bound(
      policy(), keys.begin(), keys.begin() + entries, thrust::counting_iterator<uint64_t>(0),
      thrust::counting_iterator<uint64_t>(n_ + 1), lists.first.begin(), OwnerBelow{});
  lists.keys = std::move(keys);
  lists.bits = std::move(bits);
  lists.entries = entries;
  return lists;
}

template <typename Id, typename W, typename Backend>
template <typename F>
auto DeviceEngine<Id, W, Backend>::triangle_sums(F f) -> VertexArray<int64_t> {
  Timer timer;
  auto sums = this->vertex_array(int64_t{0});
  pass_bytes(oriented_lists_bytes(n_, out_.arcs()));
  const DeviceOrientedLists<Id, Backend> lists = oriented_lists();
  const uint64_t merged = thrust::transform_reduce(
      policy(), thrust::counting_iterator<uint64_t>(0),
      thrust::counting_iterator<uint64_t>(lists.entries),
      MergeEntry<Id, F>{f, lists.ranks(), thrust::raw_pointer_cast(lists.keys.data()),
                        thrust::raw_pointer_cast(lists.bits.data()),
                        thrust::raw_pointer_cast(lists.first.data()), sums.data()},
      uint64_t{0}, thrust::plus<uint64_t>());
  Backend::synchronize();
  DevicePassStats s;
  s.frontier_size = n_;
  s.frontier_edges = lists.entries;
  s.edges_examined = merged;
  s.seconds = timer.seconds();
  stats_.push_back(s);
  return sums;
}

template <typename Id, typename W, typename Backend>
auto DeviceEngine<Id, W, Backend>::neighbour_counts() -> VertexArray<int64_t> {
  auto counts = this->vertex_array(int64_t{0});
  if (out_degrees_count_neighbours(g_)) {
    thrust::copy_n(policy(), degree_.begin(), n_, counts.data());  // the out-degrees, widened
    return counts;
  }
  pass_bytes(oriented_lists_bytes(n_, out_.arcs()));
  const DeviceOrientedLists<Id, Backend> lists = oriented_lists();
  thrust::for_each_n(
      policy(), thrust::counting_iterator<uint64_t>(0), lists.entries,
      CountEnds<Id>{lists.ranks(), thrust::raw_pointer_cast(lists.keys.data()), counts.data()});
  return counts;
}

}  // namespace tg::device
