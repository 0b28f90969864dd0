// A push pass's combine phase cut into slices of its frontier, for MPI ranks: a rank sends each
// slice's updates to their owners while it and its peers compute the next slice (Nezha's
// threshold-triggered scatter), hands slices to peers that steal them (engine/mpi/steal.h), and
// combines the messages that arrive from other ranks as a local push would (receive). Built on
// the CPU engine's primitives for backends (open_pass, combine_sources, claim, unclaim); only
// ranks need it, so it lives here and not in the CPU engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/cpu/engine.h"
#include "engine/program.h"
#include "util/timer.h"

namespace tg::dist {

template <typename Id, typename W>
class SlicedPush {
 public:
  using Set = Frontier<Id>;

  explicit SlicedPush(Engine<Id, W>& local) : local_(local) {}

  // A push pass's combine phase over `slices` consecutive slices of the frontier (about equal in
  // out-edges), each combined by the whole team. After each slice, the vertices it changed that
  // this engine does not master go to hand_on(const std::vector<Id>&) and leave the lists, so a
  // rank sends a slice's updates while it and its peers still compute the next ones (Nezha's
  // threshold-triggered scatter). A handed-on vertex loses its claim: a later slice that changes
  // it again hands it on again. (Programs that activate once claim nothing: a later message only
  // combines into it, so their caller re-sends what changed after it was handed on.) What stays
  // in the lists is applied by apply_pass as after combine_pass.
  template <typename Program, typename HandOn>
  Changed<Id> combine_in_slices(const Program& program, const Set& frontier, PassOptions<Id> pass,
                                size_t slices, HandOn hand_on) {
    Timer timer;
    Changed<Id> c = begin<Program>(frontier, pass);
    const auto [list, cuts] =
        slice_sources(frontier.list(), std::max<size_t>(slices, 1), c.stats.schedule);
    for (size_t s = 0; s + 1 < cuts.size(); ++s) {
      combine_slice(program, std::vector<Id>(list.begin() + cuts[s], list.begin() + cuts[s + 1]),
                    pass, c, hand_on);
    }
    c.combine_seconds = timer.seconds();
    return c;
  }
  // The same, slice by slice, for a caller that hands slices out itself (stealing between ranks):
  // begin opens the pass, combine_slice combines the messages of one slice of sources
  // (with any program of the same operator: a stolen slice comes with its source values), and
  // the caller sets combine_seconds before apply_pass.
  template <typename Program>
  Changed<Id> begin(const Set& frontier, const PassOptions<Id>& pass) {
    Changed<Id> c = local_.template open_pass<Program>(frontier, pass);
    if (c.stats.direction != Direction::kPush) throw std::logic_error("a sliced pass must push");
    // A slice is a list of sources: over resident blocks walked vertex-major (a slice stolen from
    // another rank then reads that rank's rows); over a fetching store read block-major, each
    // block as it arrives (vertex-major would hold them all), unless vertex-major is asked for.
    const bool block =
        !local_.store().zero_copy() && local_.options().schedule != Schedule::kVertex;
    c.stats.schedule = block ? Schedule::kBlock : Schedule::kVertex;
    c.stats.schedule_reason =
        block ? "a sliced pass, block-major: a slice is a run of whole block rows"
              : "a sliced pass";
    c.stats.edges_examined = 0;
    c.claimed = !ActivatesOnce<Program>;
    return c;
  }
  template <typename Program, typename HandOn>
  void combine_slice(const Program& program, std::vector<Id> sources, const PassOptions<Id>& pass,
                     Changed<Id>& c, HandOn hand_on) {
    uint64_t edges = 0;
    for (Id u : sources) edges += local_.out_degree(u);
    const Set slice = Set::sparse(local_.num_vertices(), std::move(sources), edges);
    // In the pass's direction and schedule.
    Changed<Id> part = local_.combine_sources(program, slice, pass, c.stats);
    c.stats.edges_examined += part.stats.edges_examined;
    handed_.clear();
    for (auto& changes : part.lists) {
      size_t at = 0;
      for (Id v : changes) {
        if (local_.owns(v))
          changes[at++] = v;
        else
          handed_.push_back(v);
      }
      changes.resize(at);
      if (at) c.lists.push_back(std::move(changes));
    }
    hand_on(static_cast<const std::vector<Id>&>(handed_));
    if constexpr (!ActivatesOnce<Program>) {
      for (Id v : handed_) local_.unclaim(v);
    }
  }

  // Combines a message x that arrived for v from elsewhere (another rank's push) into v's
  // target, as a local push would; true if v is newly changed in this pass and must be applied
  // (add it to the pass's changed lists). Any thread.
  template <typename Program>
  bool receive(const Program& program, Id v, typename Program::Op::Value x) {
    using Op = typename Program::Op;
    const auto target = program.target();
    if constexpr (HasWants<Program>) {  // as push filters its targets (a BFS tree keeps its levels)
      if (!program.wants(target.load(v))) return false;
    }
    if constexpr (ActivatesOnce<Program>) {
      auto expected = Op::identity();
      if (std::atomic_ref(target[v]).compare_exchange_strong(expected, x,
                                                             std::memory_order_relaxed))
        return true;
      Op::atomic_combine(target[v], x);
      return false;
    } else {
      return Op::atomic_combine(target[v], x) && local_.claim(v);
    }
  }

  // A sliced push pass's sources in slice order, and the bounds of at most `slices` slices of
  // about equal out-edges (+1 per vertex), from 0 to the list's size; empty slices are dropped.
  // Walked vertex-major a slice is any run of the frontier list. Read block-major (the schedule
  // begin chose), a slice is a run of whole block rows, the list grouped by row first: each
  // block of the pass is then read by one slice, not by every slice with a source in its row.
  std::pair<std::vector<Id>, std::vector<size_t>> slice_sources(const std::vector<Id>& list,
                                                                size_t slices,
                                                                Schedule schedule) const {
    if (schedule != Schedule::kBlock) return {list, slice_by_edges(list, slices)};
    const uint32_t p = graph().blocks_per_side();
    std::vector<size_t> start(p + 1, 0);  // where each row's sources begin in the grouped list
    std::vector<uint64_t> row_cost(p, 0);
    for (Id u : list) {
      const uint32_t r = graph().range_of(u);
      ++start[r + 1];
      row_cost[r] += graph().out_degree(u) + 1;
    }
    uint64_t total = 0;
    for (uint32_t r = 0; r < p; ++r) {
      start[r + 1] += start[r];
      total += row_cost[r];
    }
    std::vector<Id> grouped(list.size());
    std::vector<size_t> at(start.begin(), start.end() - 1);
    for (Id u : list) grouped[at[graph().range_of(u)]++] = u;
    std::vector<size_t> cuts{0};
    uint64_t sum = 0;
    for (uint32_t r = 0; r < p; ++r) {
      sum += row_cost[r];
      if (start[r + 1] > cuts.back() && cuts.size() < slices && sum * slices >= total * cuts.size())
        cuts.push_back(start[r + 1]);
    }
    if (cuts.back() != grouped.size()) cuts.push_back(grouped.size());
    return {std::move(grouped), std::move(cuts)};
  }

  // Cuts a frontier list into at most `slices` runs of roughly equal out-edges (+1 per vertex):
  // the offsets, from 0 to list.size(). Empty runs are dropped.
  std::vector<size_t> slice_by_edges(const std::vector<Id>& list, size_t slices) const {
    uint64_t total = 0;
    for (Id u : list) total += graph().out_degree(u) + 1;
    std::vector<size_t> cuts{0};
    uint64_t sum = 0;
    for (size_t k = 0; k < list.size(); ++k) {
      sum += graph().out_degree(list[k]) + 1;
      if (cuts.size() < slices && sum * slices >= total * cuts.size()) cuts.push_back(k + 1);
    }
    if (cuts.back() != list.size()) cuts.push_back(list.size());
    return cuts;
  }

 private:
  const GraphView<Id, W>& graph() const { return local_.graph(); }

  Engine<Id, W>& local_;
  std::vector<Id> handed_;  // a slice's changed vertices that others master
};

}  // namespace tg::dist
