// Reads a version-1 graph file back into an edge list, for `reblock` only (the one command that
// converts old files; every other command says to use it). Version 1 kept per-section
// checksums and a CSR of |range| + 1 offsets per block, with global neighbour ids, in separate
// offsets, neighbours and weights sections. Everything read is checked (checksums, and bounds
// of every offset and id) before it is trusted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/edge_list.h"
#include "graph/format.h"

namespace tg {

// Whether `path` starts like a version-1 graph file.
bool is_version1_file(const std::string& path);

struct Version1Graph {
  format::Header header;         // counts, flags, id mode and base, weight type and range
  std::vector<uint64_t> id_map;  // empty when the ids are an offset
  EdgeList edges;                // dense ids; one copy (u <= v) of each undirected edge
};

Version1Graph read_version1_file(const std::string& path);

}  // namespace tg
