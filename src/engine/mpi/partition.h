// Dividing a graph among MPI ranks (issue 13, item 2): each rank masters a contiguous range of
// vertices, chosen as Gemini chunks them, so each range carries about the same load
// alpha * |V_r| + |E_r| (E_r: the out-arcs of its vertices; alpha weighs per-vertex work, the
// vertex passes and state, against per-arc work; Gemini's default is 8 * (ranks - 1)). Range
// bounds are multiples of 64 vertices, so no frontier bitmap word is shared by two ranks.
// A rank holds mirrors, stand-ins for the remote endpoints of its arcs: the cut arcs' far ends.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph/graph_file.h"

namespace tg {

struct RankShare {
  uint64_t first = 0, end = 0;  // masters: vertices [first, end)
  uint64_t arcs = 0;            // out-arcs of the masters
  double load = 0;              // alpha * masters + arcs
  uint64_t cut_arcs = 0;        // arcs with exactly one endpoint among the masters, either way
  uint64_t mirrors = 0;         // distinct remote vertices those arcs reach
  uint64_t vertices() const { return end - first; }
};

struct Partition {
  double alpha = 0;
  std::vector<RankShare> ranks;
  double imbalance() const;  // the largest load over the mean (1 is perfect)
  nlohmann::json to_json() const;
  std::string describe() const;  // a table, one line per rank
};

// Gemini's alpha for `ranks` ranks.
inline double default_partition_alpha(uint32_t ranks) { return 8.0 * (ranks > 0 ? ranks - 1 : 0); }
// The alpha a kernel runs with unless one is asked for: Gemini's, or the kernel's own weight of a
// vertex against an arc where that is larger (plan/pass_shape.h's vertex_weight).
inline double partition_alpha_for(double vertex_weight, uint32_t ranks) {
  return std::max(vertex_weight, default_partition_alpha(ranks));
}

// The vertex ranges (from the degrees alone, without reading an edge); cut arcs and mirrors
// are left zero.
Partition partition_vertices(const GraphFile& file, uint32_t ranks, double alpha);

// Counts each rank's cut arcs and mirrors by reading every arc of the file once.
void count_cut_arcs(std::shared_ptr<const GraphFile> file, Partition& partition);

}  // namespace tg
