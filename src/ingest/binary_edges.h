// Raw binary edge lists (`--format bin32` / `bin64`): records of two little-endian ids (4 or 8
// bytes each) and, with --weighted, a 4-byte signed integer weight, back to back without a
// header, as many tools dump them. Read at the speed of the disk (no text to parse), in chunks,
// decoded on all threads and handed to a sink as they come. A file that ends inside a record is
// refused naming the offset; in index mode with --vertices an id beyond the count is refused
// naming the record and its offset.
#pragma once

#include <string>

#include "graph/edge_list.h"
#include "ingest/edge_sink.h"
#include "ingest/parse.h"

namespace tg {

inline bool is_binary_format(const std::string& format) {
  return format == "bin32" || format == "bin64";
}

// Reads `path` (any compression InputStream reads) into `sink`; returns the list's description.
EdgeList read_binary_edges(const std::string& path, const ParseOptions& options,
                           EdgeBatchSink& sink);

}  // namespace tg
