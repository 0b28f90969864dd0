// GAPBS's serialized graphs (`.sg`, and `.wsg` with weights), as its converter writes them: a
// 17-byte header (a 1-byte bool "directed", the int64 count of stored arcs, the int64 count of
// vertices), the out-CSR (n + 1 int64 offsets, then the neighbours: int32 ids, or in .wsg
// {int32 id, int32 weight} pairs) and, for a directed graph, the in-CSR the same way. The
// out-CSR is read as the edge list (a directed graph's in-CSR is its transpose and is skipped;
// an undirected graph stores each edge both ways, which the build folds back into one). Read
// with pread in stretches of vertices, so nothing the size of the graph is held; every count,
// offset and id is checked, and an error names the byte offset.
#pragma once

#include <string>

#include "graph/edge_list.h"
#include "ingest/edge_sink.h"
#include "ingest/parse.h"

namespace tg {

inline bool is_gapbs_format(const std::string& format) { return format == "sg" || format == "wsg"; }

EdgeList read_gapbs_graph(const std::string& path, const ParseOptions& options,
                          EdgeBatchSink& sink);

}  // namespace tg
