// What the triangle and gather passes read of a stored graph's undirected view, the same on every
// engine (one process, MPI ranks, the device): a vertex's arcs in it, which rank it, and whether
// the stored out-degrees already count each vertex's neighbours.
#pragma once

#include <cstdint>

#include "graph/format.h"
#include "graph/graph_view.h"

namespace tg {

// v's arcs in the undirected view (a directed graph's out- and in-arcs).
template <typename Id, typename W>
uint64_t undirected_degree(const GraphView<Id, W>& g, uint64_t v) {
  return g.out_degree(v) + (g.directed() ? g.in_degree(v) : 0);
}
// An undirected file without self-loops stores each neighbour once among a vertex's arcs: its
// out-degree is its neighbour count, no lists needed (otherwise, a directed graph's two arcs
// between a pair, a self-loop, the lists tell).
template <typename Id, typename W>
bool out_degrees_count_neighbours(const GraphView<Id, W>& g) {
  return !g.directed() && (g.file().header().flags & format::Flags::kSelfLoopsKept) == 0;
}

}  // namespace tg
