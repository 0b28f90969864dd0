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
  std::shared_ptr<const GraphFile> file;       // 32-bit vertex ids
  std::shared_ptr<const GraphFile> wide_file;  // the same graph, its ids 64-bit (wide_ids)
};

// Small graphs of the shapes the engines treat differently: directed and undirected, integer
// and real weights and none, one block and grids of many (empty blocks among them), and a hub
// whose row spans every range.
inline const std::vector<Graph>& graphs() {
  const auto both = [](const char* name, int scale, bool undirected, GeneratedWeights weights,
                       uint32_t blocks, const std::string& file, bool hub = false) {
    return Graph{
        name, testing::kronecker_graph(scale, undirected, weights, blocks, file, hub),
        testing::kronecker_graph(scale, undirected, weights, blocks, file + "-wide", hub, true)};
  };
  static const std::vector<Graph> all{
      both("kron-10 directed, integer weights, 1x1", 10, false, GeneratedWeights::kInteger, 1,
           "conformance-d-int-1"),
      both("kron-10 undirected, 4x4, a hub", 10, true, GeneratedWeights::kNone, 4,
           "conformance-u-4-hub", true),
      both("kron-11 directed, real weights, 8x8", 11, false, GeneratedWeights::kReal, 8,
           "conformance-d-real-8"),
      both("kron-11 undirected, integer weights, 16x16", 11, true, GeneratedWeights::kInteger, 16,
           "conformance-u-int-16"),
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
  a.sources = sampled_sources(g, 16, 1);
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

// The graph's file with vertex ids of type Id: 64-bit ids, which a file holds otherwise only past
// 2^32 vertices, put the engines such a graph gets (every kernel on 64-bit ids) to the test on
// small graphs.
template <typename Id>
const std::shared_ptr<const GraphFile>& file_for(const Graph& graph) {
  return sizeof(Id) == 8 ? graph.wide_file : graph.file;
}

// f(view) over the graph, with vertex ids of type Id: weighted where the kernel reads weights and
// the graph has them. The graphs have int32 or double weights, so only those views are compiled.
template <typename Id, typename F>
void with_view(const Graph& graph, bool weights, F f) {
  const auto& file = file_for<Id>(graph);
  ASSERT_EQ(file->id_bytes(), sizeof(Id)) << graph.name;
  if (!weights || !file->weighted()) return f(GraphView<Id, NoWeight>(file));
  if (file->weight_type() == format::WeightType::kInt32) return f(GraphView<Id, int32_t>(file));
  ASSERT_EQ(file->weight_type(), format::WeightType::kFloat64) << graph.name;
  f(GraphView<Id, double>(file));
}

// Every kernel on every graph through `run_on`: run_on(view, file, run) makes the setup's engine
// over the view (vertex ids of type Id) and the file's stores and returns run(engine), or nothing
// where this process holds no answer (an MPI rank other than 0). The reference runs on 32-bit ids
// whatever Id is.
// kTriangles, kGathers: the setup's engine offers the triangle pass, the gather pass (else the
// kernels on them are left out).
template <typename Id, bool kTriangles, bool kGathers, typename RunOn>
void expect_every_kernel_conforms(const std::string& setup, RunOn run_on) {
  for (const Graph& graph : graphs()) {
    for_each_kernel([&](const auto& k) {
      if ((k.passes.triangles && !kTriangles) || (k.passes.gathers && !kGathers)) return;
      auto check = [&](const auto& g) {
        const KernelArgs args = args_for(g);
        const std::optional<AlgorithmResult> got =
            run_on(g, file_for<Id>(graph), [&](auto& engine) { return k.run(engine, args); });
        if (!got) return;
        const std::string what = fmt::format("{} on {}, {}", k.name, graph.name, setup);
        const Verdict verdict = k.verify(g, args, *got);
        EXPECT_TRUE(verdict.ok) << what << ": " << verdict.message;
        using W = typename std::decay_t<decltype(g)>::WeightType;
        testing::expect_same_answer(*got, reference(k, GraphView<uint32_t, W>(graph.file), args),
                                    what);
      };
      with_view<Id>(graph, k.weighted, check);
    });
  }
}

}  // namespace tg::conformance
