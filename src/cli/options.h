// Options shared by the commands that read an input graph (convert, and run on a text file).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "run/build_request.h"

namespace tg::cli {

using run::BuildBudgetArgs;
using run::GraphInputArgs;

void add_graph_input_options(CLI::App& cmd, GraphInputArgs& args);

void add_build_budget_options(CLI::App& cmd, BuildBudgetArgs& args);

// The graph (or input) a command reads, given as a positional argument or, GAPBS style, with
// -f/--file: exactly one of the two. (One CLI11 option named "graph,-f,--file" printed REQUIRED
// twice in --help and said "At Most 1 required but received 2" when given both ways.)
struct PathArgument {
  std::string positional, flag;
  std::string name;  // "GRAPH" or "INPUT", for messages
  // The path given; throws tg::Error when it was given both ways or not at all.
  const std::string& path() const;
};
void add_path_argument(CLI::App& cmd, PathArgument& arg, const std::string& name,
                       const std::string& help);

}  // namespace tg::cli
