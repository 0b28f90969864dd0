// `tiergraph reblock GRAPH -o OUT --blocks P`: rewrite a graph file with another block grid,
// straight from the file (no text involved); ids, weights and properties carry over.
#include "ingest/reblock.h"

#include <filesystem>
#include <memory>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/validators.h"
#include "ingest/bounded_build.h"
#include "run/threads.h"
#include "util/log.h"

namespace tg::cli {

Runner add_reblock(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("reblock", "Rewrite a graph file with a different P x P block grid");
  struct Args {
    std::string input, output;
    PathArgument input_arg;
    uint32_t blocks = 1;
    int threads = 0;
    bool overwrite = false;
    BuildBudgetArgs budget;
  };
  auto args = std::make_shared<Args>();
  add_path_argument(*cmd, args->input_arg, "GRAPH", "Graph file");
  cmd->add_option("-o,--output", args->output, "Graph file to write")->required();
  cmd->add_option("--blocks", args->blocks, "Vertex ranges per side of the new grid")
      ->required()
      ->check(whole_number(1, UINT32_MAX));
  cmd->add_option("-t,--threads", args->threads, "Threads, at least 1 (default: all cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--overwrite", args->overwrite, "Replace the output if it exists");
  add_build_budget_options(*cmd, args->budget);
  return [args] {
    args->input = args->input_arg.path();
    run::apply_threads(args->threads);
    // The grid really written: a --blocks beyond the vertices' ranges of 64 was noted and capped.
    // In memory the edges take about 1.4 times the file's edge bytes.
    std::error_code error;
    const auto file_bytes = std::filesystem::file_size(args->input, error);
    ConvertOptions budget;
    run::apply_build_budget(args->budget, error ? 0 : static_cast<uint64_t>(file_bytes) * 3 / 2,
                            budget);
    BoundedOptions bounded;
    bounded.memory_budget = budget.memory_budget;
    bounded.scratch = scratch_folder_for(budget.scratch, args->output);
    const uint32_t side = reblock_graph(args->input, args->output, args->blocks, args->overwrite,
                                        budget.memory_budget > 0 ? &bounded : nullptr);
    log::info("Wrote '{}' with a {}x{} block grid", args->output, side, side);
  };
}

}  // namespace tg::cli
