// `tiergraph convert INPUT -o GRAPH`: any supported text format to a graph file.
#include "ingest/convert.h"

#include <unistd.h>

#include <filesystem>
#include <memory>

#include "cli/commands.h"
#include "cli/options.h"
#include "run/threads.h"
#include "util/log.h"

namespace tg::cli {

Runner add_convert(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "convert", "Convert an edge list / Matrix Market / DIMACS / METIS file to a graph file");
  struct Args {
    std::string input, output;
    PathArgument input_arg;
    GraphInputArgs graph;
    BuildBudgetArgs budget;
    int threads = 0;
    bool json = false, overwrite = false;
  };
  auto args = std::make_shared<Args>();
  add_path_argument(*cmd, args->input_arg, "INPUT",
                    "Input file (.gz/.xz/.zst read transparently; - for stdin)");
  cmd->add_option("-o,--output", args->output, "Graph file to write")->required();
  add_graph_input_options(*cmd, args->graph);
  add_build_budget_options(*cmd, args->budget);
  cmd->add_option("-t,--threads", args->threads, "Threads, at least 1 (default: all cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--overwrite", args->overwrite, "Replace the output if it exists");
  cmd->add_flag("--json", args->json, "Print the conversion report as JSON on stdout");
  return [args] {
    args->input = args->input_arg.path();
    run::apply_threads(args->threads);
    ConvertOptions options = run::make_convert_options(args->graph);
    options.overwrite = args->overwrite;
    run::apply_build_budget(args->budget, run::in_memory_convert_bytes(args->input), options);
    const ConvertReport report = convert_file(args->input, args->output, options);
    log::info("Converted '{}' ({}) to '{}'", args->input, report.format, args->output);
    log_convert_report(report);
    if (args->json) fmt::print("{}\n", report.to_json().dump(2));
  };
}

}  // namespace tg::cli
