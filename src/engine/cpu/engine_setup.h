// The CPU engine's construction (its block store, or the mapped file's own; the pull's balanced
// chunks) and what it reports holding by class. Member definitions of Engine, declared in
// engine/cpu/engine.h, which includes this file at its end.
#pragma once

#include <algorithm>
#include <memory>
#include <type_traits>

#include "engine/cpu/engine.h"

namespace tg {

template <typename Id, typename W>
inline Engine<Id, W>::Engine(const Graph& graph, const EngineOptions& options)
    : Vertices(graph, std::min(options.owned.first, graph.num_vertices()),
               std::min(options.owned.end, graph.num_vertices()), options.threads,
               options.serial_work),
      g_(graph),
      adj_(graph),
      reversed_adj_(graph, graph.grid(Grid::kIn), graph.grid(Grid::kOut)),
      options_(options),
      claimed_(graph.num_vertices()) {
  const TeamSize team(options_.threads);
  if (options_.store) {
    store_ = options_.store;
    // A pass decodes every arc's weight when W has one (the value may go unused): from a
    // store without the weights part that read lies past the block's buffer.
    if constexpr (!std::is_same_v<W, NoWeight>) {
      if (!store_->holds_weights())
        fail("internal: an engine that reads weights was given a block store ({}) without them",
             store_->name());
    }
  } else {
    own_store_ = std::make_unique<MappedStore>(g_.grid(Grid::kOut), g_.grid(Grid::kIn),
                                               g_.blocks_per_side());
    store_ = own_store_.get();
  }
  pull_chunks_ = adj_.balanced_chunks(
      [&](uint64_t v) { return g_.in_degree(v) + (g_.directed() ? g_.out_degree(v) : 0); }, lo_,
      hi_);
}

template <typename Id, typename W>
inline MemoryUse Engine<Id, W>::memory() const {
  MemoryUse m;
  m.vertex_state = this->vertex_bytes();
  m.vertex_state_peak = this->peak_vertex_bytes();
  m.engine_sets = claimed_.words() * sizeof(uint64_t) + pull_chunks_.capacity() * sizeof(uint64_t);
  for (const auto& list : found_) m.engine_sets += list.capacity() * sizeof(Id);
  for (const auto* s : {&push_slices_, &pull_slices_})
    if (*s) m.engine_sets += (*s)->bytes();
  m.block_index = g_.index_bytes();
  m.store_pool = store_->pool_bytes();
  return m;
}

}  // namespace tg
