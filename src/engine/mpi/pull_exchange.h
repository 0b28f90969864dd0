// An edge pass on MPI ranks, as every rank takes it: the direction decided on job-wide figures
// (so every rank takes the same branch into the collectives that follow), pull over the active
// masters' source values shipped to every rank (or only the frontier's bitmap, for a program
// whose source value is the source's own id), and every rank's members of a set, which both need.
// Member definitions of DistEngine, declared in engine/mpi/dist_engine.h, which includes this file
// at its end; push and its exchanges are push_exchange.h's.
#pragma once

#include "engine/mpi/dist_engine.h"

namespace tg {

template <typename Id, typename W>
template <typename Program>
inline auto DistEngine<Id, W>::edge_pass(const Program& program, const Set& frontier,
                                         PassOptions<Id> options) -> Set {
  Timer timer;
  between_edge_passes_ +=
      comm_.take_counters();  // the vertex passes' syncs and reductions since the last
  const Direction direction = local_.template direction_for<Program>(frontier, options);
  options.direction = direction;
  Set next = Set::sparse(num_vertices(), {}, 0);
  if (direction == Direction::kPull) {
    next = pull(program, frontier, options);
  } else {
    // Push combines into any vertex: a target set must name every rank's members.
    std::optional<Set> targets;
    if (options.targets) options.targets = &targets.emplace(whole(*options.targets));
    next = push(program, frontier, options);
  }
  count_globally(next);
  passes_.push_back({comm_.take_counters(), timer.seconds(), updates_sent_, updates_sent_early_,
                     slices_stolen_, updates_held_});
  updates_sent_ = updates_sent_early_ = slices_stolen_ = updates_held_ = 0;
  return next;
}

template <typename Id, typename W>
template <typename Program>
inline auto DistEngine<Id, W>::pull(const Program& program, const Set& frontier,
                                    const PassOptions<Id>& options) -> Set {
  using S = std::remove_cvref_t<decltype(program.source_value(Id{}))>;
  const Set sources = whole(frontier);
  // A source that sends its own id (BFS) needs only the frontier's bitmap: nothing to ship, and
  // no shipped value to read per source found.
  if constexpr (SourceIsVertex<Program>)
    return local_.apply_pass(program, local_.combine_pass(program, sources, options));
  // Every active master's source value, computed here and gathered on every rank.
  const uint64_t n = num_vertices();
  if (shipped_.size() < n * sizeof(S)) shipped_.resize(n * sizeof(S));
  auto values = VertexArray<S>::over(reinterpret_cast<S*>(shipped_.data()), 0, n);
  local_.for_each(frontier, [&](Id u) { values[u] = program.source_value(u); });
  comm_.allgather_slices(values.data(), sizeof(S));
  const ShippedSources<Program, Id, S> shipped{program, values};
  return local_.apply_pass(program, local_.combine_pass(shipped, sources, options));
}

// The set with every rank's members (a bitmap), the same counts and history.
template <typename Id, typename W>
inline auto DistEngine<Id, W>::whole(const Set& s) -> Set {
  if (s.kind() == Set::Kind::kAll) return s;
  s.prepare_dense();
  Bitmap bits(num_vertices());
  const Bitmap* mine = s.membership();
  const uint64_t first_word = local_.first_owned() / 64, end_word = (local_.end_owned() + 63) / 64;
  for (uint64_t w = first_word; w < end_word; ++w) bits.data()[w] = mine->word(w);
  comm_.allgather_bits(bits.data());
  Set g = Set::dense(num_vertices(), std::move(bits), s.size(), s.out_edges());
  g.set_history(s.explored_edges(), s.came_from_pull(), s.previous_size());
  return g;
}

}  // namespace tg
