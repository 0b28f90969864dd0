// Builds small graph files for tests from generated edge lists, in a temporary folder.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "graph/builder.h"
#include "graph/generate.h"
#include "graph/graph_file.h"
#include "graph/graph_writer.h"

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
inline ::testing::Environment* const kTempDirCleanup = ::testing::AddGlobalTestEnvironment(new TempDirCleanup);

// A Kronecker graph (optionally weighted, undirected) written with a P x P grid.
inline std::shared_ptr<const GraphFile> kronecker_graph(int scale, bool undirected, GeneratedWeights weights,
                                                       uint32_t blocks, const std::string& name) {
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
    build_graph(generate(gen), options, writer);
  }
  return GraphFile::open(path);
}

}  // namespace tg::testing
