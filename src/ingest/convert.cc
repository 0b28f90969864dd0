#include "ingest/convert.h"

#include <filesystem>
#include <string>
#include <utility>

#include "graph/graph_writer.h"
#include "ingest/bounded_build.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/log.h"
#include "util/memory.h"
#include "util/timer.h"

namespace tg {

nlohmann::json ConvertReport::to_json() const {
  const double edges_per_second =
      total_seconds > 0 ? static_cast<double>(build.input_edges) / total_seconds : 0;
  return {{"format", format},
          {"vertices", build.vertices},
          {"edges", build.edges},
          {"arcs", build.arcs},
          {"input_edges", build.input_edges},
          {"self_loops_removed", build.self_loops_removed},
          {"duplicates_removed", build.duplicates_removed},
          {"blocks_per_side", build.blocks},
          {"read_seconds", read_seconds},
          {"ids_seconds", build.ids_seconds},
          {"clean_seconds", build.clean_seconds},
          {"write_seconds", build.write_seconds},
          {"total_seconds", total_seconds},
          {"input_bytes", input_bytes},
          {"output_bytes", output_bytes},
          {"peak_rss_bytes", peak_rss_bytes},
          {"memory_budget",
           memory_budget > 0 ? nlohmann::json(memory_budget) : nlohmann::json(nullptr)},
          {"scratch_bytes", scratch_bytes},
          {"runs", runs},
          {"spill_buffer_bytes", spill_buffer_bytes},
          {"input_held_bytes", input_held_bytes},
          {"edges_per_second", edges_per_second}};
}

void log_convert_report(const ConvertReport& r) {
  log::info("Vertices: {}  Edges: {} ({})  Arcs stored: {}", r.build.vertices, r.build.edges,
            r.build.edges == r.build.arcs ? "directed" : "undirected", r.build.arcs);
  log::info("Removed: {} self-loops, {} duplicate edges (of {} read)", r.build.self_loops_removed,
            r.build.duplicates_removed, r.build.input_edges);
  log::info("Time: read {:.3f}s, ids {:.3f}s, clean {:.3f}s, write {:.3f}s, total {:.3f}s",
            r.read_seconds, r.build.ids_seconds, r.build.clean_seconds, r.build.write_seconds,
            r.total_seconds);
  if (r.total_seconds > 0) {
    log::info(
        "Throughput: {:.2f} M edges/s, {:.1f} MB/s of input; peak memory {:.1f} MiB, output {:.1f} "
        "MiB",
        static_cast<double>(r.build.input_edges) / r.total_seconds / 1e6,
        static_cast<double>(r.input_bytes) / r.total_seconds / 1e6,
        static_cast<double>(r.peak_rss_bytes) / (1 << 20),
        static_cast<double>(r.output_bytes) / (1 << 20));
  }
  if (r.memory_budget > 0) {
    log::info(
        "Bounded build: budget {:.1f} MiB, {} sorted run{} of up to {:.1f} MiB on the scratch disk "
        "in all",
        static_cast<double>(r.memory_budget) / (1 << 20), r.runs, r.runs == 1 ? "" : "s",
        static_cast<double>(r.scratch_bytes) / (1 << 20));
  }
}

namespace {

// The bounded build of what `produce` hands to the sink; fills the report's build facts.
template <typename Produce>
void build_bounded(const std::string& output, const ConvertOptions& options, ConvertReport& report,
                   uint64_t producer_bytes, std::string producer, Produce produce) {
  BoundedOptions bounded;
  bounded.producer_bytes = producer_bytes;
  bounded.producer = std::move(producer);
  bounded.memory_budget = options.memory_budget;
  bounded.scratch = scratch_folder_for(options.scratch, output);
  bounded.weights = options.weights;
  bounded.weight_seed = options.weight_seed;
  BuildOptions build = options.build;
  if (options.weights != GeneratedWeights::kNone) build.generated_weights = true;
  BoundedBuilder builder(build, bounded);
  GraphWriter writer(output, {});
  const EdgeList list = produce(builder);
  report.build = builder.finish(list, writer);
  report.memory_budget = options.memory_budget;
  report.scratch_bytes = builder.report().scratch_bytes;
  report.runs = builder.report().runs;
  report.spill_buffer_bytes = builder.report().buffer_bytes;
  report.input_held_bytes = producer_bytes;
}

}  // namespace

ConvertReport convert_edge_list(EdgeList list, const std::string& output,
                                const ConvertOptions& options) {
  Timer timer;
  refuse_existing_output(output, options.overwrite);
  GraphWriter writer(output, {list.source_name});
  ConvertReport report;
  BuildOptions build = options.build;
  if (options.weights != GeneratedWeights::kNone) {
    if (list.weighted())
      log::info("note: replacing the input's weights with generated ones (--weights)");
    add_generated_weights(list, options.weights, options.weight_seed);
    build.generated_weights = true;
  }
  report.build = build_graph(std::move(list), build, writer);
  report.total_seconds = timer.seconds();
  report.output_bytes = std::filesystem::file_size(output);
  report.peak_rss_bytes = peak_rss_bytes();
  return report;
}

ConvertReport convert_file(const std::string& input, const std::string& output,
                           const ConvertOptions& options) {
  Timer timer;
  refuse_existing_output(output, options.overwrite);
  {
    // Fail early, before reading a large input, on an unusable output path.
    GraphWriter probe(output, {input});
  }
  ConvertReport report;
  report.format = detect_format(input, options.parse);
  ParseOptions parse = options.parse;
  parse.format = report.format;  // sniff once
  if (options.memory_budget > 0) {
    parse.chunk_bytes = BoundedBuilder::read_chunk_bytes(options.memory_budget);
    build_bounded(output, options, report, BoundedBuilder::reader_bytes(options.memory_budget),
                  "the reader's buffers",
                  [&](BoundedBuilder& sink) { return read_edges(input, parse, sink); });
    report.output_bytes = std::filesystem::file_size(output);
    report.total_seconds = timer.seconds();
    report.input_bytes = input == "-" ? 0 : std::filesystem::file_size(input);
    report.peak_rss_bytes = peak_rss_bytes();
    return report;
  }
  EdgeList list = read_edge_list(input, parse);
  report.read_seconds = timer.seconds();
  const ConvertReport built = convert_edge_list(std::move(list), output, options);
  report.build = built.build;
  report.output_bytes = built.output_bytes;
  report.total_seconds = timer.seconds();
  report.input_bytes = input == "-" ? 0 : std::filesystem::file_size(input);
  report.peak_rss_bytes = peak_rss_bytes();
  return report;
}

ConvertReport generate_file(const GeneratorOptions& generator, const std::string& output,
                            const ConvertOptions& options) {
  Timer timer;
  refuse_existing_output(output, options.overwrite);
  ConvertReport report;
  report.format = "generated";
  if (options.memory_budget > 0) {
    // A sixteenth of the budget in flight from the generator (24 bytes an edge).
    const uint64_t batch =
        std::max<uint64_t>(options.memory_budget / 16 / sizeof(Edge<uint64_t, double>), 4096);
    build_bounded(
        output, options, report, generate_into_bytes(generator, batch),
        generator.kind == GeneratorKind::kKronecker
            ? "the generator's vertex permutation (4 bytes a vertex) and its batch of edges"
            : "the generator's batch of edges",
        [&](BoundedBuilder& sink) { return generate_into(generator, sink, batch); });
  } else {
    EdgeList list = generate(generator);
    report.read_seconds = timer.seconds();
    report.build = convert_edge_list(std::move(list), output, options).build;
  }
  report.total_seconds = timer.seconds();
  report.output_bytes = std::filesystem::file_size(output);
  report.peak_rss_bytes = peak_rss_bytes();
  return report;
}

}  // namespace tg
