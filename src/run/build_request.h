// What a build of a graph file (convert, generate, reblock) is asked for, as the command line and
// Python both give it: the input's options, the memory budget and scratch folder, and their
// conversion into the builder's options.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ingest/convert.h"
#include "ingest/generate.h"

namespace tg::run {

struct GraphInputArgs {
  std::string format = "auto";
  std::string ids;
  std::string columns;
  bool header = false, no_header = false;
  bool undirected = false, keep_self_loops = false, keep_duplicates = false;
  bool weighted = false;  // bin32/bin64 records carry a weight
  std::string weights;
  uint64_t weight_seed = 1;
  uint32_t blocks = 0;
  std::optional<uint64_t> vertices;
};

// --memory-budget and --scratch of the commands that build a graph file (convert, generate).
struct BuildBudgetArgs {
  std::string memory_budget;  // empty: half of what this process may use, when the build needs it
  std::string scratch;
};
// Sets the options' budget: the one given (the bounded build, always), or, when the in-memory
// build would need more than half of the memory this process may use (`in_memory_bytes`, an
// estimate), that half (with a note); otherwise none (the in-memory build).
void apply_build_budget(const BuildBudgetArgs& args, uint64_t in_memory_bytes,
                        ConvertOptions& options);
// What the in-memory build would hold, about: of an input file (convert), of a generated graph.
uint64_t in_memory_convert_bytes(const std::string& input);
uint64_t in_memory_generate_bytes(const GeneratorOptions& generator, bool undirected);

ConvertOptions make_convert_options(const GraphInputArgs& args);

}  // namespace tg::run
