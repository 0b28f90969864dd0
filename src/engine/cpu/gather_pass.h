// The gather pass (engine.h declares it): rounds in which every vertex's new value is a function
// of its own and its neighbours' values in the last round, as label propagation asks. The
// neighbours come from the lists of neighbour_lists.h, built once from the stored arcs (streamed
// from the mapped file, or block by block through a fetching store, so a pool of any size will do);
// each round gathers a vertex's neighbours' values into its thread's buffer and sorts them there,
// as the gather contract hands them to f (engine/concept.h).
#pragma once

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "engine/cpu/engine.h"
#include "engine/cpu/neighbour_lists.h"

namespace tg {

template <typename Id, typename W>
template <typename T, typename F>
inline void Engine<Id, W>::gather_rounds(VertexArray<T> values, uint32_t rounds, F f) {
  gather_rounds(values, rounds, f, [](VertexArray<T>) {});  // one process: masters are all
}

template <typename Id, typename W>
template <typename T, typename F, typename Share>
inline void Engine<Id, W>::gather_rounds(VertexArray<T> values, uint32_t rounds, F f, Share share) {
  const TeamSize team(options_.threads);
  const StoreCounters before = store_->counters();
  Timer built;
  const NeighbourLists<Id> lists(lo_, hi_, g_.directed(),
                                 [&](bool in, auto visit) { for_each_stored_arc(in, visit); });
  const double build_seconds = built.seconds();
  const StoreCounters after = store_->counters();
  this->hold_bytes(lists.bytes());
  {
    auto scope = this->scope();
    VertexArray<T> from = values, to = this->vertex_array(T{});
    for (uint32_t round = 0; round < rounds; ++round) {
      Timer timer;
      gather_round(lists, from, to, f);
      share(to);
      std::swap(from, to);
      IterationStats s;
      s.iteration = stats_.size();
      s.direction = Direction::kPull;  // each vertex reads its neighbours' values
      s.frontier_size = g_.num_vertices();
      s.frontier_edges = s.edges_examined = lists.entries();
      s.seconds = timer.seconds();
      if (round == 0) {  // the lists' build is the pass's only read of the store
        s.blocks_read = after.leases - before.leases;
        s.requests = after.requests - before.requests;
        s.bytes_fetched = after.bytes - before.bytes;
        s.seconds += build_seconds;
      }
      stats_.push_back(s);
    }
    // After an odd number of rounds the last one's values are in the pass's own array (whole:
    // every vertex's copied).
    if (rounds % 2 == 1) std::copy_n(from.data(), g_.num_vertices(), values.data());
  }
  this->release_bytes(lists.bytes());
}

// One round: to[v] = f(from[v], the values in `from` at v's neighbours, sorted).
template <typename Id, typename W>
template <typename T, typename F>
inline void Engine<Id, W>::gather_round(const NeighbourLists<Id>& lists, VertexArray<T> from,
                                        VertexArray<T> to, F& f) {
#pragma omp parallel
  {
    std::vector<T> gathered;
    F call = f;  // a thread's own copy: its captures stay in registers
#pragma omp for schedule(dynamic, 1024)
    for (uint64_t v = lo_; v < hi_; ++v) {
      const std::span<const Id> near = lists.of(v);
      gathered.resize(near.size());
      std::transform(near.begin(), near.end(), gathered.begin(), [&](Id u) { return from[u]; });
      std::sort(gathered.begin(), gathered.end());
      to[v] = call(from[v], std::span<const T>(gathered));
    }
  }
}

}  // namespace tg
