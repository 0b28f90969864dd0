// `tiergraph info GRAPH`: what a graph file holds: counts, properties, degrees, the block grid
// and its sections.
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/options.h"
#include "graph/graph_file.h"

namespace tg::cli {

namespace {

struct DegreeStats {
  uint64_t max = 0, zero = 0;
  double mean = 0;
};

DegreeStats degree_stats(const GraphFile& g, bool out) {
  DegreeStats s;
  const uint64_t n = g.num_vertices();
  uint64_t max = 0, zero = 0, sum = 0;
#pragma omp parallel for reduction(max : max) reduction(+ : zero, sum)
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t d = out ? g.out_degree(v) : g.in_degree(v);
    max = std::max(max, d);
    zero += d == 0;
    sum += d;
  }
  s.max = max;
  s.zero = zero;
  s.mean = n ? static_cast<double>(sum) / static_cast<double>(n) : 0;
  return s;
}

nlohmann::json describe(const GraphFile& g) {
  using format::SectionKind;
  const auto& h = g.header();
  nlohmann::json j;
  j["path"] = g.path();
  j["version"] = h.version;
  j["vertices"] = g.num_vertices();
  j["edges"] = g.num_edges();
  j["arcs"] = g.num_arcs();
  j["directed"] = g.directed();
  j["weighted"] = g.weighted();
  j["weight_type"] = format::weight_type_name(g.weight_type());
  if (g.weighted()) {
    j["weight_min"] = h.min_weight;
    j["weight_max"] = h.max_weight;
    j["weights_generated"] = (h.flags & format::Flags::kGeneratedWeights) != 0;
  }
  j["id_bytes"] = g.id_bytes();
  j["id_mode"] = g.id_mode() == IdMode::kLabel ? "label" : "index";
  j["id_map"] = g.has_section(SectionKind::kIdMap) ? "explicit" : "offset";
  j["id_base"] = h.id_base;
  j["input_edges"] = h.input_edges;
  j["self_loops_removed"] = h.self_loops_removed;
  j["duplicates_removed"] = h.duplicates_removed;
  j["self_loops_kept"] = (h.flags & format::Flags::kSelfLoopsKept) != 0;
  j["duplicates_kept"] = (h.flags & format::Flags::kDuplicatesKept) != 0;
  auto stats = [&](bool out) {
    const auto s = degree_stats(g, out);
    return nlohmann::json{{"max", s.max}, {"mean", s.mean}, {"zero", s.zero}};
  };
  if (g.directed()) {
    j["out_degree"] = stats(true);
    j["in_degree"] = stats(false);
  } else {
    j["degree"] = stats(true);
  }
  const uint32_t p = g.blocks_per_side();
  uint64_t biggest = 0, empty = 0, dcsr = 0, narrow_ids = 0;
  for (const auto& b : g.index(Grid::kOut)) {
    biggest = std::max(biggest, b.edge_count);
    empty += b.edge_count == 0;
    dcsr += b.layout == static_cast<uint8_t>(format::BlockLayout::kDcsr);
    narrow_ids += b.id_bytes == 2;
  }
  j["blocks"] = {{"per_side", p},
                 {"requested_per_side", h.requested_blocks},
                 {"count", uint64_t{p} * p},
                 {"max_arcs", biggest},
                 {"empty", empty},
                 {"doubly_compressed", dcsr},
                 {"16_bit_ids", narrow_ids}};
  nlohmann::json sections = nlohmann::json::array();
  for (uint32_t i = 0; i < h.section_count; ++i) {
    const auto& e = h.sections[i];
    sections.push_back(
        {{"name", format::section_name(static_cast<SectionKind>(e.kind))},
         {"offset", e.offset},
         {"bytes", e.bytes},
         {"element_bytes", e.element_size},
         {"checksum", e.checksum ? fmt::format("{:016x}", e.checksum) : "per block part"}});
  }
  j["sections"] = sections;
  j["file_bytes"] = g.file_bytes();
  return j;
}

void print_text(const nlohmann::json& j) {
  fmt::print("Graph: {}\n", j["path"].get<std::string>());
  fmt::print("Vertices: {}\n", j["vertices"].get<uint64_t>());
  fmt::print("Edges: {}\n", j["edges"].get<uint64_t>());
  fmt::print("Arcs stored: {}\n", j["arcs"].get<uint64_t>());
  fmt::print("Directed: {}\n", j["directed"].get<bool>() ? "yes" : "no");
  fmt::print("Weights: {}", j["weight_type"].get<std::string>());
  if (j["weighted"].get<bool>()) {
    fmt::print(" in [{}, {}]{}", j["weight_min"].get<double>(), j["weight_max"].get<double>(),
               j["weights_generated"].get<bool>() ? " (generated)" : "");
  }
  fmt::print("\n");
  fmt::print("Ids: {}-bit, {} mode, map {}\n", 8 * j["id_bytes"].get<int>(),
             j["id_mode"].get<std::string>(), j["id_map"].get<std::string>());
  fmt::print("Input edges: {} ({} self-loops{} and {} duplicates{} removed)\n",
             j["input_edges"].get<uint64_t>(), j["self_loops_removed"].get<uint64_t>(), "",
             j["duplicates_removed"].get<uint64_t>(), "");
  auto deg = [](const char* label, const nlohmann::json& d) {
    fmt::print("{}: max {}, mean {:.2f}, zero {}\n", label, d["max"].get<uint64_t>(),
               d["mean"].get<double>(), d["zero"].get<uint64_t>());
  };
  if (j.contains("degree")) {
    deg("Degree", j["degree"]);
  } else {
    deg("Out-degree", j["out_degree"]);
    deg("In-degree", j["in_degree"]);
  }
  const auto& b = j["blocks"];
  fmt::print(
      "Block grid: {0}x{0} ({1} blocks, largest {2} arcs, {3} empty, {4} doubly compressed, {5} "
      "with 16-bit ids)\n",
      b["per_side"].get<uint32_t>(), b["count"].get<uint64_t>(), b["max_arcs"].get<uint64_t>(),
      b["empty"].get<uint64_t>(), b["doubly_compressed"].get<uint64_t>(),
      b["16_bit_ids"].get<uint64_t>());
  const auto requested = b["requested_per_side"].get<uint32_t>();
  if (requested > b["per_side"].get<uint32_t>()) {
    fmt::print("  ({0}x{0} was asked; {1} vertices make at most {2} ranges of 64)\n", requested,
               j["vertices"].get<uint64_t>(), b["per_side"].get<uint32_t>());
  }
  fmt::print("Sections:\n");
  for (const auto& s : j["sections"]) {
    fmt::print("  {:<14} {:>14} bytes  at {:>12}  xxh3 {}\n", s["name"].get<std::string>(),
               s["bytes"].get<uint64_t>(), s["offset"].get<uint64_t>(),
               s["checksum"].get<std::string>());
  }
  fmt::print("File size: {} bytes\n", j["file_bytes"].get<uint64_t>());
}

}  // namespace

Runner add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Describe a graph file");
  struct Args {
    std::string path;
    PathArgument path_arg;
    bool json = false, no_checksums = false, check = false;
  };
  auto args = std::make_shared<Args>();
  add_path_argument(*cmd, args->path_arg, "GRAPH", "Graph file");
  cmd->add_flag("--json", args->json, "Print as JSON");
  cmd->add_flag("--check", args->check,
                "Verify every block's hashes too (the whole file); names the first bad block");
  cmd->add_flag("--no-checksums", args->no_checksums,
                "Skip verifying the small sections' checksums");
  return [args] {
    args->path = args->path_arg.path();
    // Structure (offsets, ids, degrees) is always checked; block hashes only with --check.
    auto g = GraphFile::open(
        args->path, {.verify_checksums = !args->no_checksums, .verify_block_hashes = args->check});
    auto j = describe(*g);
    if (args->check) j["check"] = "every block part's hash verified";
    if (args->json) {
      fmt::print("{}\n", j.dump(2));
    } else {
      print_text(j);
      if (args->check) fmt::print("Check: every block part's hash verified\n");
    }
  };
}

}  // namespace tg::cli
