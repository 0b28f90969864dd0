// The triangle pass on MPI ranks (DistEngine's triangle_sums and neighbour_counts; dist_engine.h
// declares them). Every rank ranks the vertices by degree from the file's index (the same
// ranking everywhere, no message) and lists its masters' edges at their ends of lower rank
// (engine/mpi/master_lists.h). A triangle is found at its lowest corner's owner, which merges
// that corner's list with its second corner's list: in step k of p the ranks' lists shift by k
// (each rank sends its own lists to rank - k and receives rank + k's), so a rank holds its
// lists and one peer's at a time, never more than the one process's pass holds in all. The
// shares added at other ranks' vertices are merged after the last step with one allreduce.
#pragma once

#include <cstdint>
#include <utility>

#include "engine/degree_ranking.h"
#include "engine/mpi/dist_engine.h"
#include "engine/mpi/master_lists.h"
#include "engine/undirected_view.h"
#include "util/parallel.h"
#include "util/timer.h"

namespace tg {

template <typename Id, typename W>
DegreeRanking<Id> DistEngine<Id, W>::degree_ranking() const {
  const auto& g = local_.graph();
  return DegreeRanking<Id>(g.num_vertices(), [&](uint64_t v) { return undirected_degree(g, v); });
}

template <typename Id, typename W>
MasterLists<Id> DistEngine<Id, W>::master_lists(const DegreeRanking<Id>& ranking) {
  return MasterLists<Id>::build(
      local_.first_owned(), local_.end_owned(), local_.graph().directed(), ranking,
      [&](bool in, auto visit) { local_.for_each_stored_arc(in, visit); });
}

template <typename Id, typename W>
template <typename F>
VertexArray<int64_t> DistEngine<Id, W>::triangle_sums(F f) {
  auto sums = this->vertex_array(int64_t{0});
  pass([&] {
    const TeamSize team(local_.options().threads);
    Timer timer;
    const StoreCounters before = local_.store().counters();
    const DegreeRanking<Id> ranking = degree_ranking();
    MasterLists<Id> own = master_lists(ranking);
    const StoreCounters after = local_.store().counters();
    IterationStats s;
    s.iteration = local_.stats().size();
    s.frontier_size = local_.end_owned() - local_.first_owned();
    s.frontier_edges = own.ids.size();
    // Step 0: its own lists, found by slot as a peer's are (the slots then freed for the peer's).
    uint64_t held = ranking.bytes() + own.bytes();
    local_.hold_bytes(held);
    s.edges_examined = add_triangles(own, own, ranking, f, sums.data());
    local_.release_bytes(held);
    std::vector<Id>().swap(own.slot);
    held = ranking.bytes() + own.bytes();
    local_.hold_bytes(held);
    {
      MasterLists<Id> peer;  // rank + k's lists, in step k
      const int p = comm_.size(), me = comm_.rank();
      for (int k = 1; k < p; ++k) {
        local_.release_bytes(held);
        peer = MasterLists<Id>{};  // freed, so that what it holds is what it takes
        comm_.shift(own.first, (me - k + p) % p, peer.first, (me + k) % p);
        comm_.shift(own.ids, (me - k + p) % p, peer.ids, (me + k) % p);
        comm_.shift(own.arcs, (me - k + p) % p, peer.arcs, (me + k) % p);
        peer.index_slots(comm_.first((me + k) % p), comm_.end((me + k) % p), ranking);
        held = ranking.bytes() + own.bytes() + peer.bytes();
        local_.hold_bytes(held);
        s.edges_examined += add_triangles(own, peer, ranking, f, sums.data());
      }
    }
    comm_.allreduce(sums.data(), sums.size(), mpi::Scalar::kI64, mpi::ReduceOp::kSum);
    local_.release_bytes(held);
    s.blocks_read = after.leases - before.leases;
    s.requests = after.requests - before.requests;
    s.bytes_fetched = after.bytes - before.bytes;
    s.seconds = timer.seconds();
    local_.stats().push_back(s);
  });
  return sums;
}

// As in one process (engine/cpu/triangle_pass.h): out-degrees where they are the counts (every
// rank reads every degree from the index); otherwise each rank counts its masters' neighbours,
// over the mapped file straight from their arcs both ways, else from its lists' entries at both
// ends, and the ranks add their counts.
template <typename Id, typename W>
VertexArray<int64_t> DistEngine<Id, W>::neighbour_counts() {
  auto counts = this->vertex_array(int64_t{0});
  pass([&] {
    const TeamSize team(local_.options().threads);
    const auto& g = local_.graph();
    if (out_degrees_count_neighbours(g)) {
#pragma omp parallel for schedule(static)
      for (uint64_t v = 0; v < g.num_vertices(); ++v)
        counts[v] = static_cast<int64_t>(g.out_degree(v));
      return;
    }
    if (local_.count_neighbours_in_place(counts)) {
      comm_.allreduce(counts.data(), counts.size(), mpi::Scalar::kI64, mpi::ReduceOp::kSum);
      return;
    }
    const DegreeRanking<Id> ranking = degree_ranking();
    const MasterLists<Id> own = master_lists(ranking);
    const uint64_t held = ranking.bytes() + own.bytes();
    local_.hold_bytes(held);
    add_neighbour_counts(own, ranking, counts.data());
    comm_.allreduce(counts.data(), counts.size(), mpi::Scalar::kI64, mpi::ReduceOp::kSum);
    local_.release_bytes(held);
  });
  return counts;
}

}  // namespace tg
