// Options shared by the commands that read an input graph (convert, and run on a text file).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "ingest/convert.h"
#include "ingest/generate.h"

namespace tg::cli {

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

void add_graph_input_options(CLI::App& cmd, GraphInputArgs& args);

// --memory-budget and --scratch of the commands that build a graph file (convert, generate).
struct BuildBudgetArgs {
  std::string memory_budget;  // empty: half of what this process may use, when the build needs it
  std::string scratch;
};
void add_build_budget_options(CLI::App& cmd, BuildBudgetArgs& args);
// Sets the options' budget: the one given (the bounded build, always), or, when the in-memory
// build would need more than half of the memory this process may use (`in_memory_bytes`, an
// estimate), that half (with a note); otherwise none (the in-memory build).
void apply_build_budget(const BuildBudgetArgs& args, uint64_t in_memory_bytes, ConvertOptions& options);
// What the in-memory build would hold, about: of an input file (convert), of a generated graph.
uint64_t in_memory_convert_bytes(const std::string& input);
uint64_t in_memory_generate_bytes(const GeneratorOptions& generator, bool undirected);

// The graph (or input) a command reads, given as a positional argument or, GAPBS style, with
// -f/--file: exactly one of the two. (One CLI11 option named "graph,-f,--file" printed REQUIRED
// twice in --help and said "At Most 1 required but received 2" when given both ways.)
struct PathArgument {
  std::string positional, flag;
  std::string name;  // "GRAPH" or "INPUT", for messages
  // The path given; throws tg::Error when it was given both ways or not at all.
  const std::string& path() const;
};
void add_path_argument(CLI::App& cmd, PathArgument& arg, const std::string& name, const std::string& help);
ConvertOptions make_convert_options(const GraphInputArgs& args);

}  // namespace tg::cli
