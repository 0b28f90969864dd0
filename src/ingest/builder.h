// Turns an edge list into a graph file: resolves ids to dense vertices, removes self-loops and
// duplicates unless told to keep them, builds the P x P block grid (and the transposed grid for
// directed graphs) and writes every section through a GraphWriter.
//
// Memory: the edge array is the only large structure held for the whole build; sections are
// filled by bounded chunks of vertices and written out at once, so the peak stays near the size
// of the edge array (8 bytes per edge with 32-bit ids) plus a fixed fraction.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "graph/edge_list.h"
#include "graph/format.h"
#include "graph/graph_writer.h"

namespace tg {

// When rebuilding from an existing graph file (reblock): the edge list already holds dense ids,
// and these facts carry over instead of being recomputed.
struct Provenance {
  format::Header header;             // counts, flags, id mode and base, weight type and range
  std::span<const uint64_t> id_map;  // empty when the ids are an offset
};

struct BuildOptions {
  bool undirected = false;  // store the symmetric closure (implied by undirected input formats)
  bool keep_self_loops = false;
  bool keep_duplicates = false;
  uint32_t blocks = 0;  // P, the grid's side; 0 picks the smallest P whose blocks hold < 2^32 arcs
  bool generated_weights = false;
  bool progress = false;  // progress bars on stderr (drawn only on a terminal)
  // 64-bit vertex ids even where every id fits in 32 bits, as only a graph past 2^32 vertices
  // has them otherwise: the file the engines' 64-bit paths are tested on (tests/conformance).
  bool wide_ids = false;
  std::optional<Provenance> provenance;
};

struct BuildReport {
  uint64_t vertices = 0;
  uint64_t arcs = 0;
  uint64_t edges = 0;
  uint64_t input_edges = 0;
  uint64_t self_loops_removed = 0;
  uint64_t duplicates_removed = 0;
  uint32_t blocks = 0;
  double ids_seconds = 0;
  double clean_seconds = 0;
  double write_seconds = 0;
};

// Consumes `list` (its memory is released as the build goes).
BuildReport build_graph(EdgeList list, const BuildOptions& options, GraphWriter& writer);

}  // namespace tg
