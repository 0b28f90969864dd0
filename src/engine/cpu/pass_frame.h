// Every edge pass's frame on the CPU engine (edge_pass, gather_then, combine_pass and apply_pass,
// and the pieces the MPI engine drives: open_pass, combine_sources): opened (the direction, by the
// shared rule of engine/direction.h, or as the pass or the options force it; the schedule; the
// figures and the begin hook), walked vertex-major or block-major (run_edges), and closed (the
// frontier's history for the next direction, the figures, the end hook). Member definitions of
// Engine, declared in engine/cpu/engine.h, which includes this file at its end.
#pragma once

#include "engine/cpu/engine.h"

namespace tg {

template <typename Id, typename W>
template <typename Program>
inline auto Engine<Id, W>::edge_pass(const Program& program, const Set& frontier,
                                     PassOptions<Id> pass) -> Set {
  const TeamSize team(options_.threads);
  check_program<Program, Id, W>();
  if (options_.two_phase) return apply_pass(program, combine_pass(program, frontier, pass));
  Timer timer;
  Changed<Id> c = begin_pass<Program>(frontier, pass);
  Set next = run_edges<true>(program, frontier, pass, c);
  return finish_pass(std::move(next), c, timer.seconds());
}

// A vertex-major pull over the mapped file gathers each vertex's in-edges at once, so it calls
// then(v) right after them (pull_then): the sums never go through the target, and the vertex
// pass after the edges is gone (PageRank on road-pace-NE, 2 threads: 0.79x the time of the pull
// and the vertex pass apart). Any other pass (push, block-major, a fetching store, two phases)
// combines into the target first.
template <typename Id, typename W>
template <typename Op, typename Program, typename Then>
inline auto Engine<Id, W>::gather_then(Op op, const Program& program, Then then) ->
    typename Op::Value {
  const TeamSize team(options_.threads);
  check_program<Program, Id, W>();
  const Set everyone = this->all();
  const char* reason = nullptr;
  const bool fused = !options_.two_phase && store_->zero_copy() &&
                     choose_schedule(reason) == Schedule::kVertex &&
                     direction_for<Program>(everyone, {}, nullptr) == Direction::kPull;
  if (!fused) {
    edge_pass(program, everyone);
    return this->reduce(op, ThenFromTarget<Id, typename Program::Op, Then>{program.target(), then});
  }
  Timer timer;
  Changed<Id> c = begin_pass<Program>(everyone, {});
  const auto value = pull_then<Op>(program, then, c, Reversed<Program> ? reversed_adj_ : adj_);
  c.stats.blocks_read =
      pass_grids<Program>(false) * uint64_t{g_.blocks_per_side()} * g_.blocks_per_side();
  finish_pass(Set::sparse(g_.num_vertices(), {}, 0), c, timer.seconds());
  return value;
}

template <typename Id, typename W>
template <typename Program>
inline auto Engine<Id, W>::combine_pass(const Program& program, const Set& frontier,
                                        PassOptions<Id> pass) -> Changed<Id> {
  const TeamSize team(options_.threads);
  check_program<Program, Id, W>();
  Timer timer;
  Changed<Id> c = begin_pass<Program>(frontier, pass);
  run_edges<false>(program, frontier, pass, c);
  c.combine_seconds = timer.seconds();
  return c;
}

template <typename Id, typename W>
template <typename Program>
inline auto Engine<Id, W>::apply_pass(const Program& program, Changed<Id> c) -> Set {
  const TeamSize team(options_.threads);
  Timer timer;
  uint64_t total = 0;
  for (const auto& l : c.lists) total += l.size();
  uint64_t edges = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : edges) if (total > options_.serial_work)
  for (size_t t = 0; t < c.lists.size(); ++t) edges += apply_list(program, c.lists[t], c.claimed);
  Set next = Set::sparse(g_.num_vertices(), concatenate(c.lists), edges);
  found_ = std::move(c.lists);  // keep the buffers for the next pass
  return finish_pass(std::move(next), c, c.combine_seconds + timer.seconds());
}

template <typename Id, typename W>
template <typename Program>
inline auto Engine<Id, W>::open_pass(const Set& frontier, const PassOptions<Id>& pass) const
    -> Changed<Id> {
  check_program<Program, Id, W>();
  return begin_pass<Program>(frontier, pass);
}

template <typename Id, typename W>
template <typename Program>
inline auto Engine<Id, W>::combine_sources(const Program& program, const Set& sources,
                                           const PassOptions<Id>& pass,
                                           const IterationStats& opened) -> Changed<Id> {
  const TeamSize team(options_.threads);
  Changed<Id> part;
  part.stats = opened;
  run_edges<false>(program, sources, pass, part);
  return part;
}

template <typename Id, typename W>
inline auto Engine<Id, W>::listed_targets(const PassOptions<Id>& pass, Schedule schedule) const
    -> const Set* {
  const bool resident = schedule == Schedule::kVertex && store_->zero_copy();
  return resident && pass.targets && pass.targets->kind() != Set::Kind::kAll ? pass.targets
                                                                             : nullptr;
}

template <typename Id, typename W>
template <typename Program>
inline auto Engine<Id, W>::begin_pass(const Set& frontier, const PassOptions<Id>& pass) const
    -> Changed<Id> {
  Changed<Id> c;
  c.stats.iteration = stats_.size();
  c.stats.frontier_size = frontier.size();
  c.stats.frontier_edges = frontier.out_edges();
  c.stats.schedule = choose_schedule(c.stats.schedule_reason);
  c.stats.direction =
      direction_for<Program>(frontier, pass, listed_targets(pass, c.stats.schedule));
  // As in GAPBS, only push passes count as exploring: after a pull phase the traversal goes
  // back to push and stays there until the frontier's edges are again a large share.
  c.explored = frontier.explored_edges() +
               (c.stats.direction == Direction::kPush ? frontier.out_edges() : 0);
  c.previous_size = frontier.size();
  if (options_.hooks.begin) options_.hooks.begin(c.stats);
  return c;
}

template <typename Id, typename W>
inline auto Engine<Id, W>::finish_pass(Set next, Changed<Id>& c, double seconds) -> Set {
  next.set_history(c.explored, c.stats.direction == Direction::kPull, c.previous_size);
  c.stats.activated = next.size();
  c.stats.seconds = seconds;
  // Workers' waits are summed; the mean worker waited wait / threads of the pass's time.
  c.stats.compute_seconds =
      std::max(0.0, seconds - c.stats.wait_seconds / std::max(1, max_threads()));
  if (options_.record_stats) stats_.push_back(c.stats);
  if (options_.hooks.end) options_.hooks.end(c.stats);
  return next;
}

template <typename Id, typename W>
template <typename Program>
inline auto Engine<Id, W>::choose_direction(const Set& frontier, const Set* listed) const
    -> Direction {
  if (options_.direction != Direction::kAuto) return options_.direction;
  FrontierFacts facts{frontier.size(), frontier.out_edges(), frontier.explored_edges(),
                      frontier.previous_size(), frontier.came_from_pull()};
  // A target's in-edges against a reversed program's arcs are its out-edges, which the set
  // counts; otherwise the out-edges stand in for them, as they do for the frontier's push.
  if (listed) facts.target_edges = listed->out_edges();
  return DirectionRule{options_.alpha, options_.beta, options_.pull_share}.choose(
      HasSaturated<Program>, ActivatesOnce<Program>, g_.num_arcs(), g_.num_vertices(), facts);
}

// The pass's own direction where it names one and the options leave it to the engine; else the
// options', or the shared rule's.
template <typename Id, typename W>
template <typename Program>
inline auto Engine<Id, W>::direction_for(const Set& frontier, const PassOptions<Id>& pass,
                                         const Set* listed) const -> Direction {
  return options_.direction == Direction::kAuto && pass.direction != Direction::kAuto
             ? pass.direction
             : choose_direction<Program>(frontier, listed);
}

template <typename Id, typename W>
inline auto Engine<Id, W>::choose_schedule(const char*& reason) const -> Schedule {
  if (options_.schedule == Schedule::kVertex) {
    reason = "asked for";
    return Schedule::kVertex;
  }
  if (options_.schedule == Schedule::kBlock) {
    reason = "asked for";
    return Schedule::kBlock;
  }
  if (store_->zero_copy() && g_.blocks_per_side() <= kVertexMajorMaxSide) {
    reason =
        "auto: every block is resident (zero-copy store) and the grid is coarse, where "
        "vertex-major is fastest";
    return Schedule::kVertex;
  }
  if (store_->zero_copy()) {
    reason =
        "auto: every block is resident, but on a grid this fine block-major keeps each block's "
        "targets in cache";
    return Schedule::kBlock;
  }
  reason = "auto: the store fetches blocks, and block-major overlaps fetching with computing";
  return Schedule::kBlock;
}

// The pass's edges in the chosen schedule and direction, with the store's figures in c.stats.
template <typename Id, typename W>
template <bool kFused, typename Program>
inline auto Engine<Id, W>::run_edges(const Program& program, const Set& frontier,
                                     const PassOptions<Id>& pass, Changed<Id>& c) -> Set {
  const StoreCounters before = store_->counters();
  const auto tiers_before =
      store_->zero_copy() ? std::vector<TierCounters>{} : store_->tier_counters();
  const bool pushing = c.stats.direction == Direction::kPush;
  // The sets' bitmaps a pass reads (a sliced pass runs this once per slice after one begin_pass,
  // so the targets' is made again here), dropped at the end where they were built from lists.
  if (pass.targets) pass.targets->prepare_dense();
  struct DropBitmaps {
    const Set& frontier;
    const Set* targets;
    ~DropBitmaps() {
      frontier.drop_dense();
      if (targets) targets->drop_dense();
    }
  } drop_bitmaps{frontier, pass.targets};
  Set next = Set::sparse(g_.num_vertices(), {}, 0);
  if (c.stats.schedule == Schedule::kBlock) {
    next = pushing ? push_blocks<kFused>(program, frontier, pass, c)
                   : pull_blocks<kFused>(program, frontier, pass, c);
  } else if (store_->zero_copy()) {
    const Adjacency<Id, W>& adj = Reversed<Program> ? reversed_adj_ : adj_;
    next = pushing ? push<kFused>(program, frontier, pass, c, adj)
                   : pull<kFused>(program, frontier, pass, c, adj);
    c.stats.blocks_read =
        pass_grids<Program>(pushing) * uint64_t{g_.blocks_per_side()} * g_.blocks_per_side();
  } else {
    next = vertex_major_held<kFused>(program, frontier, pass, c);
  }
  const StoreCounters after = store_->counters();
  if (c.stats.schedule == Schedule::kBlock || !store_->zero_copy())
    c.stats.blocks_read = after.blocks - before.blocks;
  c.stats.bytes_fetched = after.bytes - before.bytes;
  c.stats.requests = after.requests - before.requests;
  c.stats.wait_seconds = after.wait_seconds - before.wait_seconds;
  c.stats.request_seconds = after.request_seconds - before.request_seconds;
  const uint64_t all =
      pass_grids<Program>(pushing) * uint64_t{g_.blocks_per_side()} * g_.blocks_per_side();
  c.stats.blocks_skipped = all - std::min(all, c.stats.blocks_read);
  c.stats.blocks_partial = after.partial_blocks - before.partial_blocks;
  c.stats.bytes_partial = after.partial_bytes - before.partial_bytes;
  if (tiers_before.size() > 1) {
    const auto tiers_after = store_->tier_counters();
    for (size_t t = 0; t < tiers_after.size(); ++t) {
      const StoreCounters& a = tiers_after[t].counters;
      const StoreCounters& b = tiers_before[t].counters;
      c.stats.tiers.push_back(
          {tiers_after[t].name, a.blocks - b.blocks, a.partial_blocks - b.partial_blocks,
           a.bytes - b.bytes, a.partial_bytes - b.partial_bytes, a.requests - b.requests,
           a.wait_seconds - b.wait_seconds, a.request_seconds - b.request_seconds});
    }
  }
  return next;
}

}  // namespace tg
