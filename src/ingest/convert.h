// The whole conversion: read (or generate) an edge list, optionally add generated weights,
// build the graph file. Shared by `convert`, `generate` and `run` on a text input.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "ingest/builder.h"
#include "ingest/generate.h"
#include "ingest/parse.h"

namespace tg {

struct ConvertOptions {
  ParseOptions parse;
  BuildOptions build;
  GeneratedWeights weights = GeneratedWeights::kNone;  // --weights
  uint64_t weight_seed = 1;
  bool overwrite = false;
  // Build in bounded memory (bounded_build.h) under this many bytes; 0: the in-memory build.
  uint64_t memory_budget = 0;
  std::string scratch;  // the bounded build's scratch folder (empty: the output's folder)
};

struct ConvertReport {
  std::string format;
  BuildReport build;
  double read_seconds = 0;
  double total_seconds = 0;
  uint64_t input_bytes = 0;
  uint64_t output_bytes = 0;
  uint64_t peak_rss_bytes = 0;
  uint64_t memory_budget = 0;  // 0: built in memory, without a budget
  uint64_t scratch_bytes = 0;  // the sorted runs on the scratch disk at their largest
  uint64_t runs = 0;
  uint64_t spill_buffer_bytes = 0;  // the bounded build's sort buffer
  uint64_t input_held_bytes = 0;    // what the reader or generator held beside it
  nlohmann::json to_json() const;
};

ConvertReport convert_file(const std::string& input, const std::string& output,
                           const ConvertOptions& options);

// Builds a graph file from an edge list already in memory (generators).
ConvertReport convert_edge_list(EdgeList list, const std::string& output,
                                const ConvertOptions& options);

// Generates a graph into a graph file: in memory, or drawn straight into the bounded build
// when options.memory_budget is set (the same file either way).
ConvertReport generate_file(const GeneratorOptions& generator, const std::string& output,
                            const ConvertOptions& options);

// Human-readable summary lines for stderr.
void log_convert_report(const ConvertReport& report);

}  // namespace tg
