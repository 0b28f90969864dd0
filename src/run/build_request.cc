#include "run/build_request.h"

#include <filesystem>

#include "ingest/bounded_build.h"
#include "plan/tier_plan.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_names.h"

namespace tg::run {

// Its edges parsed (24 bytes each, at about 8 bytes of text per edge, a compressed file holding
// some 4 times its size).
uint64_t in_memory_convert_bytes(const std::string& input) {
  std::error_code error;
  const auto size = input == "-" ? 0 : std::filesystem::file_size(input, error);
  if (error) return 0;
  const bool compressed =
      input.ends_with(".gz") || input.ends_with(".xz") || input.ends_with(".zst");
  return static_cast<uint64_t>(size) * (compressed ? 4 : 1) / 8 * 24;
}

// The edges (8 bytes, 16 weighted), their sorted copy's share and the permutation.
uint64_t in_memory_generate_bytes(const GeneratorOptions& generator, bool undirected) {
  const uint64_t edge_bytes = generator.weights != GeneratedWeights::kNone ? 16 : 8;
  return generated_edge_count(generator) * edge_bytes * 3 / 2 * (undirected ? 2 : 1);
}

void apply_build_budget(const BuildBudgetArgs& a, uint64_t in_memory_bytes, ConvertOptions& o) {
  o.scratch = a.scratch;
  if (!a.scratch.empty()) scratch_folder_for(a.scratch, {});  // refused now, before any work
  if (!a.memory_budget.empty()) {
    const auto bytes = parse_byte_size(a.memory_budget);
    if (!bytes || *bytes == 0) {
      fail("{} must be a size above 0 such as 4096, 64K, 512M or 2G, got '{}'",
           option_name("memory-budget"), a.memory_budget);
    }
    o.memory_budget = *bytes;
    return;
  }
  const uint64_t half = machine_memory_bytes() / 2;
  if (in_memory_bytes > half) {
    log::info(
        "note: building in memory would take about {}, more than half of the memory this process "
        "may use; "
        "building within {} (give {} to choose)",
        format_byte_size(in_memory_bytes), format_byte_size(half), option_name("memory-budget"));
    o.memory_budget = half;
  }
}

ConvertOptions make_convert_options(const GraphInputArgs& a) {
  ConvertOptions o;
  o.parse.format = a.format;
  if (a.ids == "index") o.parse.id_mode = IdMode::kIndex;
  if (a.ids == "label") o.parse.id_mode = IdMode::kLabel;
  o.parse.vertices = a.vertices;
  o.parse.weighted = a.weighted;
  if (!a.columns.empty()) {
    std::string rest = a.columns;
    size_t pos;
    while ((pos = rest.find(',')) != std::string::npos) {
      o.parse.columns.push_back(rest.substr(0, pos));
      rest = rest.substr(pos + 1);
    }
    o.parse.columns.push_back(rest);
  }
  if (a.header && a.no_header)
    fail("{} and {} contradict each other", option_name("header"), option_name("no-header"));
  if (a.header) o.parse.header = true;
  if (a.no_header) o.parse.header = false;
  o.parse.progress = true;
  o.build.progress = true;
  o.build.undirected = a.undirected;
  o.build.keep_self_loops = a.keep_self_loops;
  o.build.keep_duplicates = a.keep_duplicates;
  o.build.blocks = a.blocks;
  if (a.weights == "int") o.weights = GeneratedWeights::kInteger;
  if (a.weights == "real") o.weights = GeneratedWeights::kReal;
  o.weight_seed = a.weight_seed;
  return o;
}

}  // namespace tg::run
