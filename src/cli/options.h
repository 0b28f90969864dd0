// Options shared by the commands that read an input graph (convert, and run on a text file).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "graph/convert.h"

namespace tg::cli {

struct GraphInputArgs {
  std::string format = "auto";
  std::string ids;
  std::string columns;
  bool header = false, no_header = false;
  bool undirected = false, keep_self_loops = false, keep_duplicates = false;
  std::string weights;
  uint64_t weight_seed = 1;
  uint32_t blocks = 0;
  std::optional<uint64_t> vertices;
};

void add_graph_input_options(CLI::App& cmd, GraphInputArgs& args);
ConvertOptions make_convert_options(const GraphInputArgs& args);

}  // namespace tg::cli
