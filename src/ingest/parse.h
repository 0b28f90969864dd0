// Reading text graph formats into an EdgeList.
//
// Formats: plain/SNAP edge lists (`u v` or `u v w`), CSV/TSV (header optional, columns chosen),
// Matrix Market coordinate, DIMACS shortest-path `.gr` (with or without its `p sp` line), PACE
// `.gr` (`p tw`), METIS adjacency (with or without weights), and `.cedge` (`id u v w`). Any of them
// may be gzip, xz or zstd compressed. The format comes from the name, then from the content;
// `format` overrides both. Input is read in large chunks and parsed by all threads.
//
// Every error names the file, the line and column, and what was expected:
//   graph.txt:17:5: expected a vertex id (a non-negative integer), found 'x12'
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/edge_list.h"
#include "ingest/edge_sink.h"

namespace tg {

struct ParseOptions {
  std::string format =
      "auto";  // auto, edgelist, csv, tsv, mtx, dimacs, pace, metis, cedge, bin32, bin64, sg, wsg
  std::optional<IdMode> id_mode;  // default: label for plain lists, declared count for others
  // Index mode on formats that declare no vertex count: the graph has this many vertices, and
  // every id must be below it (vertices that no edge mentions are kept, isolated).
  std::optional<uint64_t> vertices;
  // Columns holding source, destination and (optionally) weight: 0-based indices or, for files
  // with a header line, column names. Empty: the format's default.
  std::vector<std::string> columns;
  std::optional<bool> header;  // CSV/TSV: whether the first line names the columns (default: sniff)
  bool progress = false;       // draw a progress bar on stderr
  size_t chunk_bytes = 0;      // text read per round at most (0: 32 MiB); a memory budget lowers it
  bool weighted = false;       // bin32/bin64: each record ends in a 4-byte signed integer weight
};

// The format that `path` would be read as, after sniffing (for messages and tests).
std::string detect_format(const std::string& path, const ParseOptions& options);

EdgeList read_edge_list(const std::string& path, const ParseOptions& options);

// Reads the input as read_edge_list does, handing the edges to `sink` as they are parsed; the
// list returned describes them (ids, declared count, weights seen) and holds no edges.
EdgeList read_edges(const std::string& path, const ParseOptions& options, EdgeBatchSink& sink);

}  // namespace tg
