// The steps both builders share (the in-memory one in builder.cc, the bounded-memory one in
// bounded_build.cc), so that the two write the same file from the same edges: the weight type,
// the grid's side and ranges, and the header.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph/edge_list.h"
#include "graph/format.h"
#include "ingest/builder.h"
#include "ingest/grid_builder.h"

namespace tg::build {

// The narrowest weight type that holds every weight the input gave exactly.
format::WeightType weight_type_for(bool weighted, const WeightInfo& info);

// Index ids (or a declared count): the vertices are base .. base + n - 1. Returns {base, n} for
// ids seen in [lo, hi] (`any`: some were), refusing one outside the declared range.
struct IndexRange {
  uint64_t base = 0, n = 0;
};
IndexRange index_range(const EdgeList& list, bool any, uint64_t lo, uint64_t hi);

struct GridPlan {
  uint32_t requested = 0, p = 0;  // P asked for (or chosen), and P once capped at ceil(n / 64)
  std::vector<uint64_t> bounds;
  std::vector<uint32_t> of_word;
  grid_build::Ranges ranges() const { return {bounds, of_word}; }
};

// P as asked (or the smallest whose blocks hold < 2^32 arcs), at most ceil(n / 64) ranges,
// balanced on the out-degrees (one per vertex); refuses an index beyond memory.
GridPlan plan_grid(std::span<const uint64_t> out_degrees, uint64_t edges, bool undirected,
                   uint32_t blocks);

// What the header says about the cleaned graph.
struct GraphFacts {
  uint64_t vertices = 0, edges = 0, input_edges = 0, self_loops_removed = 0, duplicates_removed = 0,
           id_base = 0;
  bool undirected = false;
  IdMode id_mode = IdMode::kIndex;
  uint8_t id_bytes = 4;
  bool weighted = false;
  WeightInfo weights;
};

// The header of the file (all but the arc count and the sections, which the writer fills);
// a rebuilt file's own facts (options.provenance: reblock) carry over.
format::Header graph_header(const GraphFacts& facts, const GridPlan& grid,
                            const BuildOptions& options);

}  // namespace tg::build
