// The triangle pass (engine.h declares it): the degree-ordered lists of oriented_adjacency.h,
// built from the stored arcs (streamed from the mapped file, or block by block through a
// fetching store, so a pool of any size will do), merged pairwise from the team's threads, the
// corners' shares summed by rank and handed back by vertex.
#pragma once

#include <omp.h>

#include <algorithm>
#include <vector>

#include "engine/cpu/engine.h"
#include "engine/cpu/oriented_adjacency.h"
#include "engine/undirected_view.h"

namespace tg {

template <typename Id, typename W>
inline auto Engine<Id, W>::oriented_lists() -> OrientedAdjacency<Id> {
  return OrientedAdjacency<Id>(
      g_.num_vertices(), g_.directed(), [&](uint64_t v) { return undirected_degree(g_, v); },
      [&](bool in, auto visit) { for_each_stored_arc(in, visit); });
}

template <typename Id, typename W>
template <typename F>
inline auto Engine<Id, W>::triangle_sums(F f) -> VertexArray<int64_t> {
  const TeamSize team(options_.threads);
  Timer timer;
  const StoreCounters before = store_->counters();
  auto sums = this->vertex_array(int64_t{0});
  const OrientedAdjacency<Id> lists = oriented_lists();
  // Ranked lists add into sums by rank, mapped back after; unranked ones straight into sums.
  std::vector<int64_t> by_rank(lists.ranked() ? g_.num_vertices() : 0, 0);
  const uint64_t bytes = lists.bytes() + by_rank.size() * sizeof(int64_t);
  this->hold_bytes(bytes);
  IterationStats s;
  s.iteration = stats_.size();
  s.frontier_size = g_.num_vertices();
  s.frontier_edges = lists.entries();
  s.edges_examined = lists.add_triangles(f, lists.ranked() ? by_rank.data() : sums.data());
  if (lists.ranked()) {
#pragma omp parallel for schedule(static)
    for (uint64_t r = 0; r < by_rank.size(); ++r) sums[lists.vertex_of(r)] = by_rank[r];
  }
  this->release_bytes(bytes);
  const StoreCounters after = store_->counters();
  s.blocks_read = after.leases - before.leases;
  s.requests = after.requests - before.requests;
  s.bytes_fetched = after.bytes - before.bytes;
  s.seconds = timer.seconds();
  stats_.push_back(s);
  return sums;
}

template <typename Id, typename W>
inline auto Engine<Id, W>::neighbour_counts() -> VertexArray<int64_t> {
  const TeamSize team(options_.threads);
  auto counts = this->vertex_array(int64_t{0});
  if (out_degrees_count_neighbours(g_)) {
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < g_.num_vertices(); ++v)
      counts[v] = static_cast<int64_t>(g_.out_degree(v));
    return counts;
  }
  if (count_neighbours_in_place(counts)) return counts;
  const OrientedAdjacency<Id> lists = oriented_lists();
  this->hold_bytes(lists.bytes());
  lists.add_neighbour_counts(counts.data());
  this->release_bytes(lists.bytes());
  return counts;
}

template <typename Id, typename W>
inline bool Engine<Id, W>::count_neighbours_in_place(VertexArray<int64_t> counts) {
  if (!store_->zero_copy()) return false;
  const TeamSize team(options_.threads);
  // Over the mapped file a vertex's arcs both ways are at hand, so its neighbours are counted
  // as their distinct far ends, one vertex at a time, without the lists (LCC, which builds
  // them for its triangle pass too, spent about a third of its time on a directed web graph
  // building them here); a thread's scratch holds the largest vertex's arcs.
  uint64_t widest = 0;
#pragma omp parallel for schedule(static) reduction(max : widest)
  for (uint64_t u = lo_; u < hi_; ++u) widest = std::max(widest, undirected_degree(g_, u));
  const uint64_t scratch = static_cast<uint64_t>(omp_get_max_threads()) * widest * sizeof(Id);
  this->hold_bytes(scratch);
#pragma omp parallel
  {
    std::vector<Id> ends;
#pragma omp for schedule(dynamic, 1024)
    for (uint64_t u = lo_; u < hi_; ++u) {
      ends.clear();
      const auto keep = [&](Id v, W) {
        if (v != u) ends.push_back(v);
      };
      adj_.template for_out<false>(u, keep);
      if (g_.directed()) {
        adj_.template for_in_until<false>(u, [&](Id v, W w) {
          keep(v, w);
          return false;
        });
      }
      std::sort(ends.begin(), ends.end());
      counts[u] = std::unique(ends.begin(), ends.end()) - ends.begin();
    }
  }
  this->release_bytes(scratch);
  return true;
}

// visit(u, v) for every stored out-arc (with `in`: in-arc, of a directed graph) of every master
// (every vertex, in one process), a vertex's arcs from one thread. Over a fetching store, block by
// block as sample_pass reads (arcs_by_blocks), a block leased at a time.
template <typename Id, typename W>
template <typename Visit>
inline void Engine<Id, W>::for_each_stored_arc(bool in, Visit visit) {
  if (store_->zero_copy()) {
#pragma omp parallel for schedule(dynamic, 1024)
    for (uint64_t u = lo_; u < hi_; ++u) {
      if (in) {
        adj_.template for_in_until<false>(u, [&](Id v, W) {
          visit(u, v);
          return false;
        });
      } else {
        adj_.template for_out<false>(u, [&](Id v, W) { visit(u, v); });
      }
    }
    return;
  }
  auto take = [&](Id u, Id v) { visit(u, v); };
  arcs_by_blocks(0, kEveryArc, in, nullptr, take);
}

}  // namespace tg
