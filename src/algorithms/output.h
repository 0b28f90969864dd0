// Writing per-vertex results: TSV with one `original_id<TAB>value` line per vertex (as LDBC
// Graphalytics; unreached is `infinity`), or NumPy .npy (a structured array of id and value)
// when the name ends in .npy. Written to a temporary name, then renamed.
#pragma once

#include <string>

#include "algorithms/result.h"
#include "graph/graph_file.h"

namespace tg {

void write_result(const GraphFile& graph, const AlgorithmResult& result, const std::string& path);

}  // namespace tg
