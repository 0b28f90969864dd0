// `tiergraph generate`: Kronecker (Graph500) or uniform random graphs, to a graph file or, when
// the output name ends in .el/.wel/.txt or .bin32/.bin64, to a text or binary edge list for other
// systems (streamed: generating one holds a batch of edges, not the graph).
#include "ingest/generate.h"

#include <memory>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/validators.h"
#include "ingest/convert.h"
#include "ingest/edge_list_writer.h"
#include "run/threads.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/log.h"
#include "util/timer.h"

namespace tg::cli {

Runner add_generate(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("generate", "Generate a Kronecker (Graph500) or uniform random graph");
  struct Args {
    int kron = 0, uniform = 0, edge_factor = 16, threads = 0;
    uint64_t seed = GeneratorOptions{}.seed;
    std::string weights, output;
    bool undirected = false, json = false, overwrite = false;
    uint32_t blocks = 0;
    BuildBudgetArgs budget;
  };
  auto args = std::make_shared<Args>();
  auto* g = cmd->add_option("-g,--kronecker", args->kron, "Kronecker graph of 2^SCALE vertices");
  auto* u =
      cmd->add_option("-u,--uniform", args->uniform, "Uniform random graph of 2^SCALE vertices");
  g->excludes(u);
  cmd->add_option("-k,--edge-factor", args->edge_factor, "Edges per vertex (default 16)");
  cmd->add_option("--seed", args->seed, "Random seed");
  cmd->add_option("--weights", args->weights, "int: integers in [1,255]; real: reals in (0,1]")
      ->check(CLI::IsMember({"int", "real"}));
  cmd->add_flag("-s,--undirected", args->undirected,
                "Store as undirected (Graph500 graphs are undirected)");
  cmd->add_option("--blocks", args->blocks, "Vertex ranges per side of the block grid")
      ->check(whole_number(1, UINT32_MAX));
  cmd->add_option(
         "-o,--output", args->output,
         "Graph file; or an edge list for other systems: text if it ends in .el/.wel/.txt, raw "
         "binary "
         "(two little-endian ids, then an int32 weight with --weights int) if .bin32/.bin64")
      ->required();
  cmd->add_option("-t,--threads", args->threads, "Threads, at least 1 (default: all cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--overwrite", args->overwrite, "Replace the output if it exists");
  cmd->add_flag("--json", args->json, "Print the report as JSON on stdout");
  add_build_budget_options(*cmd, args->budget);
  return [args] {
    run::apply_threads(args->threads);
    if ((args->kron == 0) == (args->uniform == 0))
      fail("give exactly one of -g/--kronecker SCALE or -u/--uniform SCALE");
    check_output_path(args->output, args->overwrite);  // before generating, not after
    GeneratorOptions gen;
    gen.kind = args->kron ? GeneratorKind::kKronecker : GeneratorKind::kUniform;
    gen.scale = args->kron ? args->kron : args->uniform;
    gen.edge_factor = args->edge_factor;
    gen.seed = args->seed;
    gen.weights = args->weights == "int"    ? GeneratedWeights::kInteger
                  : args->weights == "real" ? GeneratedWeights::kReal
                                            : GeneratedWeights::kNone;
    const std::string& out = args->output;
    if (const auto format = edge_list_format_for(out)) {
      if (*format != EdgeListFormat::kText && gen.weights == GeneratedWeights::kReal) {
        fail(
            "{}: a binary record's weight is a 4-byte integer; give --weights int, or write a text "
            "edge "
            "list (.wel) for real weights",
            out);
      }
      Timer timer;
      EdgeListWriter writer(out, *format);
      const EdgeList list = generate_into(gen, writer, uint64_t{1} << 21);
      writer.commit();
      log::info("Wrote {} ({} edges) to '{}' in {:.3f}s", list.source_name, writer.edges(), out,
                timer.seconds());
      return;
    }
    ConvertOptions options;
    options.build.undirected = args->undirected;
    options.build.blocks = args->blocks;
    options.build.progress = true;
    options.build.generated_weights = gen.weights != GeneratedWeights::kNone;
    options.overwrite = args->overwrite;
    run::apply_build_budget(args->budget, run::in_memory_generate_bytes(gen, args->undirected),
                            options);
    ConvertReport report = generate_file(gen, out, options);
    log::info("Wrote '{}'", out);
    log_convert_report(report);
    if (args->json) {
      auto j = report.to_json();
      j["generate_seconds"] = report.read_seconds;
      fmt::print("{}\n", j.dump(2));
    }
  };
}

}  // namespace tg::cli
