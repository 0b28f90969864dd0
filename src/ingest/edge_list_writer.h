// Writes edges as they come to an edge list for other systems to read the same graph: text
// lines (`u v`, or `u v w` when weighted), or raw binary records of two little-endian ids of 4
// (bin32) or 8 (bin64) bytes and, when weighted, a 4-byte signed integer weight, which is what
// `--format bin32|bin64 --weighted` reads back (and GridGraph's preprocess reads, unweighted).
// It is an EdgeBatchSink holding one batch at a time, so a generator streams a graph of any
// size into it; the file is written to a temporary name and renamed by commit(), so an error
// leaves no partial output.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ingest/edge_sink.h"
#include "util/atomic_file.h"

namespace tg {

enum class EdgeListFormat { kText, kBin32, kBin64 };

// The format an output name asks for: .el, .wel, .txt text; .bin32, .bin64 binary; none else.
std::optional<EdgeListFormat> edge_list_format_for(const std::string& path);

class EdgeListWriter final : public EdgeBatchSink {
 public:
  EdgeListWriter(const std::string& path, EdgeListFormat format);
  void start(bool weighted, bool undirected_input) override;
  void add(std::span<const EdgeBatch> batches, uint64_t max_id) override;
  void commit();
  uint64_t edges() const { return edges_; }

 private:
  // Batch k's records, made on any thread; refuses an id or weight the format cannot hold.
  void encode(const EdgeBatch& batch, uint64_t first_edge, std::vector<char>& out) const;

  AtomicFile file_;
  EdgeListFormat format_;
  bool weighted_ = false;
  uint64_t edges_ = 0;
};

}  // namespace tg
