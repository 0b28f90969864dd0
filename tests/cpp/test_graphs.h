// Builds small graph files for tests from generated edge lists, in a temporary folder.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "graph/graph_file.h"
#include "graph/graph_writer.h"
#include "ingest/builder.h"
#include "ingest/generate.h"

namespace tg::testing {

inline std::filesystem::path temp_dir() {
  return std::filesystem::temp_directory_path() / ("tiergraph-test-" + std::to_string(getpid()));
}

inline std::string temp_path(const std::string& name) {
  std::filesystem::create_directories(temp_dir());
  return (temp_dir() / name).string();
}

// Removes this process's temporary graphs when the test program ends.
class TempDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override { std::filesystem::remove_all(temp_dir()); }
};
inline ::testing::Environment* const kTempDirCleanup =
    ::testing::AddGlobalTestEnvironment(new TempDirCleanup);

// A Kronecker graph (optionally weighted, undirected) written with a P x P grid. With `hub`,
// vertex 0 also links to every vertex (a row longer than a small buffer holds); with
// `self_loops`, the generator's self-loops are kept.
inline std::shared_ptr<const GraphFile> kronecker_graph(int scale, bool undirected,
                                                        GeneratedWeights weights, uint32_t blocks,
                                                        const std::string& name, bool hub = false,
                                                        bool wide_ids = false,
                                                        bool self_loops = false) {
  GeneratorOptions gen;
  gen.scale = scale;
  gen.edge_factor = 8;
  gen.weights = weights;
  const std::string path = temp_path(name);
  {
    GraphWriter writer(path, {});
    BuildOptions options;
    options.undirected = undirected;
    options.blocks = blocks;
    options.wide_ids = wide_ids;
    options.keep_self_loops = self_loops;
    EdgeList edges = generate(gen);
    if (hub) {
      std::visit(
          [&](auto& array) {
            using E = std::decay_t<decltype(array[0])>;
            for (uint64_t v = 1; v < (uint64_t{1} << scale); ++v) {
              E e{};
              e.u = 0;
              e.v = static_cast<decltype(e.v)>(v);
              if constexpr (!std::is_same_v<decltype(e.w), NoWeight>)
                e.w = 1 + static_cast<double>(v % 7);
              array.push_back(e);
            }
          },
          edges.edges);
      if (edges.weighted()) edges.weight_info.add(1), edges.weight_info.add(7);
    }
    build_graph(std::move(edges), options, writer);
  }
  return GraphFile::open(path);
}

// A uniform random graph (unweighted, edge factor 8) written with a P x P grid: degrees near
// their mean, where the Kronecker graph's are skewed. With `self_loops`, the generator's are kept.
inline std::shared_ptr<const GraphFile> uniform_graph(int scale, bool undirected, uint32_t blocks,
                                                      const std::string& name,
                                                      bool self_loops = false) {
  GeneratorOptions gen;
  gen.kind = GeneratorKind::kUniform;
  gen.scale = scale;
  gen.edge_factor = 8;
  const std::string path = temp_path(name);
  {
    GraphWriter writer(path, {});
    BuildOptions options;
    options.undirected = undirected;
    options.blocks = blocks;
    options.keep_self_loops = self_loops;
    build_graph(generate(gen), options, writer);
  }
  return GraphFile::open(path);
}

}  // namespace tg::testing
