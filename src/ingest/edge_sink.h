// Where a reader or a generator puts the edges it makes, batch by batch in input order, so that a
// builder may take them as they come (the bounded-memory build spills them to sorted runs)
// instead of receiving one array of every edge.
#pragma once

#include <cstdint>
#include <span>

#include "graph/edge_list.h"

namespace tg {

using EdgeBatch = std::span<const Edge<uint64_t, double>>;

class EdgeBatchSink {
 public:
  virtual ~EdgeBatchSink() = default;
  // Before the first batch: whether the edges carry weights, and whether the input itself says
  // the graph is undirected (a symmetric Matrix Market file, METIS, PACE).
  virtual void start(bool weighted, bool undirected_input) = 0;
  // The next edges of the input, in order (batch after batch); max_id bounds every id in them.
  virtual void add(std::span<const EdgeBatch> batches, uint64_t max_id) = 0;
};

}  // namespace tg
