// Writing per-vertex results, in the format the file name's extension names (any letter case):
// .tsv or .txt: one `original_id<TAB>value` line per vertex, no header (as LDBC Graphalytics);
// .csv: the header `id,value`, then `original_id,value` lines; in both, an unreached vertex's
// value is `infinity`; .npy: a NumPy structured array of (id '<u8', value '<i8' or '<f8'), an
// unreached vertex's value the int64 maximum (or inf for real values). Any other name is refused.
// With parents (BFS --parents) each row also has the vertex's BFS-tree parent as an original id:
// a third column `parent` (the source is its own parent; empty for an unreached vertex), and in
// .npy a field ('parent', '<i8'), -1 for none.
// Written to a temporary name, then renamed.
#pragma once

#include <string>

#include "algorithms/result.h"
#include "graph/graph_file.h"

namespace tg {

enum class ResultFormat { kTsv, kCsv, kNpy };

// The format a result file's name asks for; tg::Error naming the accepted extensions otherwise.
ResultFormat result_format(const std::string& path);

void write_result(const GraphFile& graph, const AlgorithmResult& result, const std::string& path);

}  // namespace tg
