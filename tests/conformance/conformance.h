// The conformance suite's shared half: its graphs, the arguments each kernel gets, and the check
// that runs every kernel of the table (run/kernels.h) on an engine and holds the answer to the
// reference engine's (the shared-memory engine, vertex-major over the mapped file, one thread)
// and to the kernel's own verifier. Each backend's suite lists its engine setups, one line each
// (cpu_conformance_test.cc, mpi_conformance_test.cc); a new engine joins with its line there.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../cpp/test_graphs.h"
#include "../cpp/test_results.h"
#include "algorithms/sources.h"
#include "engine/cpu/engine.h"
#include "run/kernels.h"

namespace tg::conformance {

struct Graph {
  std::string name;
  std::shared_ptr<const GraphFile> file;
};

// Small graphs of the shapes the engines treat differently: directed and undirected, integer
// and real weights and none, one block and grids of many (empty blocks among them), and a hub
// whose row spans every range.
inline const std::vector<Graph>& graphs() {
  using testing::kronecker_graph;
  static const std::vector<Graph> all{
      {"kron-10 directed, integer weights, 1x1",
       kronecker_graph(10, false, GeneratedWeights::kInteger, 1, "conformance-d-int-1")},
      {"kron-10 undirected, 4x4, a hub",
       kronecker_graph(10, true, GeneratedWeights::kNone, 4, "conformance-u-4-hub", true)},
      {"kron-11 directed, real weights, 8x8",
       kronecker_graph(11, false, GeneratedWeights::kReal, 8, "conformance-d-real-8")},
      {"kron-11 undirected, integer weights, 16x16",
       kronecker_graph(11, true, GeneratedWeights::kInteger, 16, "conformance-u-int-16")},
  };
  return all;
}

// A kernel's arguments on a graph: the source of most out-edges (a traversal that reaches
// much), 16 sampled Radii sources, PageRank's defaults.
template <typename View>
KernelArgs args_for(const View& g) {
  KernelArgs a;
  for (uint64_t v = 0; v < g.num_vertices(); ++v)
    if (g.out_degree(v) > g.out_degree(a.source)) a.source = v;
  a.sources = radii_sources(g, 16, 1);
  return a;
}

// The reference answer: the shared-memory engine, vertex-major over the mapped file, one thread.
template <typename Kernel, typename View>
AlgorithmResult reference(const Kernel& k, const View& g, const KernelArgs& args) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  Engine engine(g, EngineOptions{.schedule = Schedule::kVertex});
  AlgorithmResult r = k.run(engine, args);
  omp_set_num_threads(threads);
  return r;
}

// A test's name from its setup's name ("ring, 4 slices" -> "ring__4_slices"): GoogleTest takes
// letters, digits and '_' only.
struct SetupName {
  template <typename Info>
  std::string operator()(const Info& info) const {
    std::string name;
    for (const char* c = info.param.name; *c; ++c)
      name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
    return name;
  }
};

// f(view) over the graph: weighted where the kernel reads weights and the graph has them. The
// graphs have 32-bit ids and int32 or double weights, so only those views are compiled.
template <typename F>
void with_view(const Graph& graph, bool weights, F f) {
  ASSERT_EQ(graph.file->id_bytes(), 4u) << graph.name;
  if (!weights || !graph.file->weighted()) return f(GraphView<uint32_t, NoWeight>(graph.file));
  if (graph.file->weight_type() == format::WeightType::kInt32)
    return f(GraphView<uint32_t, int32_t>(graph.file));
  ASSERT_EQ(graph.file->weight_type(), format::WeightType::kFloat64) << graph.name;
  f(GraphView<uint32_t, double>(graph.file));
}

// Every kernel on every graph through `run_on`: run_on(view, file, run) makes the setup's engine
// over the view (and the file's stores) and returns run(engine), or nothing where this process
// holds no answer (an MPI rank other than 0).
template <typename RunOn>
void expect_every_kernel_conforms(const std::string& setup, RunOn run_on) {
  for (const Graph& graph : graphs()) {
    for_each_kernel([&](const auto& k) {
      auto check = [&](const auto& g) {
        const KernelArgs args = args_for(g);
        const std::optional<AlgorithmResult> got =
            run_on(g, graph.file, [&](auto& engine) { return k.run(engine, args); });
        if (!got) return;
        const std::string what = fmt::format("{} on {}, {}", k.name, graph.name, setup);
        const Verdict verdict = k.verify(g, args, *got);
        EXPECT_TRUE(verdict.ok) << what << ": " << verdict.message;
        testing::expect_same_answer(*got, reference(k, g, args), what);
      };
      with_view(graph, k.weighted, check);
    });
  }
}

}  // namespace tg::conformance
