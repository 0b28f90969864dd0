// The gather pass's graph: each vertex's neighbours in the undirected view, one entry per stored
// arc at that vertex (its out-arcs and, in a directed graph, its in-arcs), self-loops left out.
// A neighbour joined by arcs both ways is listed twice in a directed graph, as label propagation
// counts it (Graphalytics' CDLP); an undirected graph stores each edge at both ends, so there it
// is listed once.
//
// Built from the stored arcs, which the engine streams twice (to count, to fill), from the
// mapped file or block by block through the store, so a pool of two buffers will do; the rounds
// then read the lists, not the store. Without self-loops in the file the lists hold every arc
// once (undirected) or twice (directed, at both ends): bytes_bound() is then what they hold.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tg {

template <typename Id>
class NeighbourLists {
 public:
  // What the lists of a graph of n vertices and `arcs` stored arcs hold at most (exactly, when
  // the file kept no self-loops): the offsets and the entries.
  static uint64_t bytes_bound(uint64_t n, uint64_t arcs, bool directed, unsigned id_bytes) {
    return (n + 1) * 8 + (directed ? 2 * arcs : arcs) * id_bytes;
  }

  // The lists of the vertices [first, end) (an MPI rank's masters; all n in one process).
  // for_arcs(in, f) calls f(u, v) for every stored arc of every such vertex u: its out-arcs, or
  // with `in` its in-arcs (a directed graph's), a vertex's arcs from one thread at a time.
  template <typename ForArcs>
  NeighbourLists(uint64_t first, uint64_t end, bool directed, ForArcs for_arcs)
      : base_(first), first_(end - first + 1, 0) {
    const uint64_t n = end - first;
    const auto count = [&](uint64_t u, uint64_t v) { first_[u - base_ + 1] += u != v; };
    for_arcs(false, count);
    if (directed) for_arcs(true, count);
    for (uint64_t v = 0; v < n; ++v) first_[v + 1] += first_[v];
    ids_.resize(first_[n]);
    // Filled through first_[v] as v's cursor, which then holds v's end, v + 1's start: shifted
    // back after.
    const auto fill = [&](uint64_t u, uint64_t v) {
      if (u != v) ids_[first_[u - base_]++] = static_cast<Id>(v);
    };
    for_arcs(false, fill);
    if (directed) for_arcs(true, fill);
    for (uint64_t v = n; v > 0; --v) first_[v] = first_[v - 1];
    first_[0] = 0;
  }

  std::span<const Id> of(uint64_t v) const {
    return {ids_.data() + first_[v - base_], ids_.data() + first_[v - base_ + 1]};
  }
  uint64_t entries() const { return ids_.size(); }
  uint64_t bytes() const { return first_.size() * 8 + ids_.size() * sizeof(Id); }

 private:
  uint64_t base_;                // the first vertex listed
  std::vector<uint64_t> first_;  // v's list is ids_[first_[v - base_], first_[v - base_ + 1])
  std::vector<Id> ids_;
};

}  // namespace tg
