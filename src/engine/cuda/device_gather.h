// The device engine's gather pass (device_engine.h declares it and includes this file after the
// class): the lists of engine/cpu/neighbour_lists.h, built on the device from the resident
// out-grid, and rounds over them.
//
// Building. Every arc u -> v of the out-grid, u != v, lists v at u and, in a directed graph, u at
// v (its in-arc there); an undirected graph stores each edge at both ends, so there each arc lists
// one. One sort by owner groups the lists; lower_bound finds where each starts.
//
// A round. The last round's values are gathered through the lists, each vertex's run sorted (two
// stable sorts of the whole array, by value then by owner: a segmented sort from whole-array
// ones, so no thread sorts a hub's run alone), and f runs once per vertex, a thread each, on its
// sorted run, as the gather contract hands it (engine/concept.h).
#pragma once

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/gather.h>
#include <thrust/remove.h>
#include <thrust/sort.h>

#include <cstdint>
#include <span>
#include <utility>

namespace tg::device {

// The device memory a gather pass takes at most, for a graph of n vertices and `arcs` arcs in its
// out-grid, values of `value_bytes`: the lists (an owner and a neighbour per entry: one an arc,
// two in a directed graph) and their starts, and a round's gathered values with their owners,
// twice (the sorts' second buffers). The lists' build, two ids an entry twice over, takes less.
inline uint64_t neighbour_lists_bytes(uint64_t n, uint64_t arcs, bool directed,
                                      uint64_t value_bytes) {
  const uint64_t entries = directed ? 2 * arcs : arcs;
  return entries * 2 * sizeof(uint32_t) + (n + 1) * 8 +
         2 * entries * (value_bytes + sizeof(uint32_t));
}

// Arc e of one out-grid block as list entries: owners and their neighbours, `per_arc` (1 or 2)
// slots from (base + e) * per_arc; a slot that lists nothing gets the owner kNoOwner.
template <typename Id>
struct ListArc {
  static constexpr Id kNoOwner = static_cast<Id>(~Id{0});
  BlockDecoder block;
  uint64_t base;
  uint32_t per_arc;
  Id* owner;
  Id* other;
  TG_HOST_DEVICE void operator()(uint64_t e) const {
    const auto u = static_cast<Id>(block.vertex(entry_of_arc(block, e)));
    const auto v = static_cast<Id>(block.neighbour(e));
    const uint64_t at = (base + e) * per_arc;
    owner[at] = u == v ? kNoOwner : u;
    other[at] = v;
    if (per_arc == 2) {
      owner[at + 1] = u == v ? kNoOwner : v;
      other[at + 1] = u;
    }
  }
};
template <typename Id>
struct NoOwner {
  template <typename Pair>
  TG_HOST_DEVICE bool operator()(const Pair& p) const {
    return thrust::get<0>(p) == ListArc<Id>::kNoOwner;
  }
};
// Where vertex v's entries start: lower_bound of v among the owners.
struct IdBelow {
  template <typename Id>
  TG_HOST_DEVICE bool operator()(Id owner, uint64_t v) const {
    return static_cast<uint64_t>(owner) < v;
  }
};

// to[v] = f(from[v], v's neighbours' values in `from`, sorted).
template <typename Id, typename T, typename F>
struct GatherVertex {
  F f;
  VertexArray<T> from, to;
  const T* sorted;        // the gathered values, each vertex's run sorted
  const uint64_t* first;  // by vertex: where its run starts (n + 1)
  TG_HOST_DEVICE void operator()(uint64_t v) const {
    to[v] = f(from[v], std::span<const T>(sorted + first[v], first[v + 1] - first[v]));
  }
};

// The neighbour lists in device memory.
template <typename Id, typename Backend>
struct DeviceNeighbourLists {
  template <typename T>
  using Vector = typename Backend::template Vector<T>;
  Vector<Id> owner, other;  // per entry, grouped by owner
  Vector<uint64_t> first;   // by vertex: where its list starts (n + 1)
  uint64_t entries = 0;
};

template <typename Id, typename W, typename Backend>
auto DeviceEngine<Id, W, Backend>::neighbour_lists() -> DeviceNeighbourLists<Id, Backend> {
  DeviceNeighbourLists<Id, Backend> lists;
  const uint32_t per_arc = g_.directed() ? 2 : 1;
  const uint64_t slots = out_.arcs() * per_arc;
  Vector<Id> owner(slots ? slots : 1), other(slots ? slots : 1);
  uint64_t base = 0;
  for (uint64_t k = 0; k < uint64_t{out_.side()} * out_.side(); ++k) {
    const BlockDecoder& d = out_.block(k);
    thrust::for_each_n(policy(), thrust::counting_iterator<uint64_t>(0), d.edge_count,
                       ListArc<Id>{d, base, per_arc, thrust::raw_pointer_cast(owner.data()),
                                   thrust::raw_pointer_cast(other.data())});
    base += d.edge_count;
  }
  const auto pairs = thrust::make_zip_iterator(owner.begin(), other.begin());
  const uint64_t entries = thrust::remove_if(policy(), pairs, pairs + slots, NoOwner<Id>{}) - pairs;
  thrust::stable_sort_by_key(policy(), owner.begin(), owner.begin() + entries, other.begin());
  lists.first = Vector<uint64_t>(n_ + 1);
  thrust::lower_bound(policy(), owner.begin(), owner.begin() + entries,
                      thrust::counting_iterator<uint64_t>(0),
                      thrust::counting_iterator<uint64_t>(n_ + 1), lists.first.begin(), IdBelow{});
  owner.resize(entries ? entries : 1);
  other.resize(entries ? entries : 1);
  lists.owner = std::move(owner);
  lists.other = std::move(other);
  lists.entries = entries;
  return lists;
}

template <typename Id, typename W, typename Backend>
template <typename T, typename F>
void DeviceEngine<Id, W, Backend>::gather_rounds(VertexArray<T> values, uint32_t rounds, F f) {
  Timer built;
  pass_bytes(neighbour_lists_bytes(n_, out_.arcs(), g_.directed(), sizeof(T)));
  const DeviceNeighbourLists<Id, Backend> lists = neighbour_lists();
  const uint64_t k = lists.entries;
  // Per round: the gathered values and their owners, sorted together.
  Vector<T> gathered(k ? k : 1);
  Vector<Id> owners(k ? k : 1);
  double build_seconds = built.seconds();
  auto scope = this->scope();
  VertexArray<T> from = values, to = this->vertex_array(T{});
  for (uint32_t round = 0; round < rounds; ++round) {
    Timer timer;
    thrust::gather(policy(), lists.other.begin(), lists.other.begin() + k, from.data(),
                   gathered.begin());
    thrust::copy_n(policy(), lists.owner.begin(), k, owners.begin());
    thrust::stable_sort_by_key(policy(), gathered.begin(), gathered.begin() + k, owners.begin());
    thrust::stable_sort_by_key(policy(), owners.begin(), owners.begin() + k, gathered.begin());
    thrust::for_each_n(
        policy(), thrust::counting_iterator<uint64_t>(0), n_,
        GatherVertex<Id, T, F>{f, from, to, thrust::raw_pointer_cast(gathered.data()),
                               thrust::raw_pointer_cast(lists.first.data())});
    Backend::synchronize();
    std::swap(from, to);
    DevicePassStats s;
    s.direction = Direction::kPull;  // each vertex reads its neighbours' values
    s.frontier_size = n_;
    s.frontier_edges = s.edges_examined = k;
    s.seconds = timer.seconds() + build_seconds;  // the first round carries the lists' build
    build_seconds = 0;
    stats_.push_back(s);
  }
  // After an odd number of rounds the last one's values are in the pass's own array.
  if (rounds % 2 == 1) thrust::copy_n(policy(), from.data(), n_, values.data());
}

}  // namespace tg::device
