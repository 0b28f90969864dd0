#include "cli/options.h"

#include <cctype>

#include "cli/validators.h"
#include "util/error.h"

namespace tg::cli {

void add_graph_input_options(CLI::App& cmd, GraphInputArgs& a) {
  cmd.add_option("--format", a.format, "Input format (default: from the name and content)")
      ->check(CLI::IsMember({"auto", "edgelist", "csv", "tsv", "mtx", "dimacs", "pace", "metis",
                             "cedge", "bin32", "bin64", "sg", "wsg"}));
  cmd.add_flag("--weighted", a.weighted,
               "bin32/bin64: each record ends in a 4-byte signed integer weight");
  cmd.add_option(
         "--ids", a.ids,
         "label: ids are any 64-bit labels (default for edge lists); index: ids are vertex indices")
      ->check(CLI::IsMember({"label", "index"}));
  cmd.add_option("--vertices", a.vertices,
                 "With --ids index: the vertex count; ids must be below it");
  cmd.add_option("--columns", a.columns,
                 "Source,destination[,weight] columns: 0-based numbers or header names");
  cmd.add_flag("--header", a.header, "CSV/TSV: the first line names the columns");
  cmd.add_flag("--no-header", a.no_header, "CSV/TSV: the first line is an edge");
  cmd.add_flag("-s,--undirected", a.undirected,
               "Store the symmetric closure (an undirected graph)");
  cmd.add_flag("--keep-self-loops", a.keep_self_loops, "Keep self-loops (removed by default)");
  cmd.add_flag("--keep-duplicates", a.keep_duplicates, "Keep duplicate edges (removed by default)");
  cmd.add_option("--weights", a.weights, "Generate seeded weights: int ([1,255]) or real ((0,1])")
      ->check(CLI::IsMember({"int", "real"}));
  cmd.add_option("--weight-seed", a.weight_seed, "Seed for --weights");
  cmd.add_option("--blocks", a.blocks,
                 "Vertex ranges per side of the block grid (default: the fewest that fit)")
      ->check(whole_number(1, UINT32_MAX));
}

void add_build_budget_options(CLI::App& cmd, BuildBudgetArgs& a) {
  cmd.add_option("--memory-budget", a.memory_budget,
                 "Memory the build may hold, e.g. 512M or 2G: edges beyond it are sorted in runs "
                 "on the scratch disk "
                 "and merged (the same file as the in-memory build). Peak RSS stays within it plus "
                 "64 MiB for the "
                 "runtime. Default: half of the memory this process may use (its cgroup's limit "
                 "included), used only "
                 "when the build needs more")
      ->check(byte_size());
  cmd.add_option("--scratch", a.scratch,
                 "Folder for the build's sorted runs (default: the output's folder); they "
                 "are freed when the build ends, however it ends");
}

void add_path_argument(CLI::App& cmd, PathArgument& arg, const std::string& name,
                       const std::string& help) {
  arg.name = name;
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  cmd.add_option(lower, arg.positional, help + "; required, here or with -f");
  cmd.add_option("-f,--file", arg.flag,
                 "The " + name + " argument, GAPBS style (give one or the other)");
}

const std::string& PathArgument::path() const {
  if (!positional.empty() && !flag.empty()) {
    fail("{} given twice: '{}' and -f '{}'; give it once", name, positional, flag);
  }
  if (positional.empty() && flag.empty()) fail("{} is required (as an argument or with -f)", name);
  return positional.empty() ? flag : positional;
}

}  // namespace tg::cli
