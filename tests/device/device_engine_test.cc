// The device engine held to the CPU engine: every algorithm text runs on DeviceEngine over
// Thrust's OpenMP backend (the same source nvcc builds for the GPU) and on the CPU engine, on
// generated graphs directed and undirected, weighted and not, on 1x1 and finer grids (CSR and
// DCSR blocks), with a hub whose in-arcs take the arc-parallel pull. BFS depths, SSSP, WCC,
// Radii, triangle counts, clustering coefficients and CDLP labels must be identical, PageRank and
// BC within 1e-9 in L1, and every device result must pass the algorithm's own verifier (BFS's
// parent tree included).
#include "engine/cuda/device_engine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../cpp/test_graphs.h"
#include "run/kernels.h"
// The backend under test: OpenMP here; tests/cuda/device_engine_test.cu includes this file with
// TG_TEST_BACKEND set to CUDA's.
#if !defined(TG_TEST_BACKEND)
#include "engine/cuda/backend_omp.h"
#define TG_TEST_BACKEND OmpBackend
#define TG_TEST_NEEDS_GPU false
#endif
#include "engine/cpu/engine.h"
#include "graph/graph_view.h"

namespace tg {
namespace {

using device::DeviceEngine;
using device::DeviceEngineOptions;
using Backend = device::TG_TEST_BACKEND;
// The device engine offers what the algorithm texts call, on this backend (engine/concept.h).
static_assert(GraphEngine<DeviceEngine<uint32_t, NoWeight, Backend>>);
static_assert(GraphEngine<DeviceEngine<uint32_t, int64_t, Backend>>);
static_assert(IntersectingEngine<DeviceEngine<uint32_t, NoWeight, Backend>>);
static_assert(GatheringEngine<DeviceEngine<uint32_t, NoWeight, Backend>>);
using testing::kronecker_graph;

struct Case {
  std::string name;
  bool undirected;
  GeneratedWeights weights;
  uint32_t blocks;
  bool hub;
};

KernelArgs args_for(const GraphFile& file) {
  KernelArgs a;
  a.source = 1;
  a.parents = true;
  for (uint64_t k = 0; k < 20 && k < file.num_vertices(); ++k)
    a.sources.push_back((k * 97) % file.num_vertices());
  return a;
}

template <typename W>
void same_as_cpu(const std::shared_ptr<const GraphFile>& file, Direction direction) {
  GraphView<uint32_t, W> g(file);
  const KernelArgs args = args_for(*file);
  for_each_kernel([&](const auto& kernel) {
    if (kernel.weighted != !std::is_same_v<W, NoWeight>)
      return;  // each kernel on the view it reads
    if (!engine_runs<DeviceEngine<uint32_t, W, Backend>>(kernel)) return;  // refused by name
    SCOPED_TRACE(std::string(kernel.name) + " direction " + direction_name(direction));
    Engine<uint32_t, W> cpu(g, EngineOptions{.direction = direction});
    DeviceEngine<uint32_t, W, Backend> gpu(g, DeviceEngineOptions{.direction = direction});
    const AlgorithmResult want = kernel.run(cpu, args), got = kernel.run(gpu, args);
    const Verdict verdict = kernel.verify(g, args, got);
    EXPECT_TRUE(verdict.ok) << verdict.message;
    ASSERT_EQ(got.real, want.real);
    if (got.real) {
      ASSERT_EQ(got.reals.size(), want.reals.size());
      if (kernel.agree_within > 0)
        EXPECT_LE(relative_l1(got.reals, want.reals), kernel.agree_within);
      else
        EXPECT_EQ(got.reals, want.reals);
    } else {
      EXPECT_EQ(got.ints, want.ints);
    }
    if (kernel.name == "pr") {  // the change is a sum of 2^11 terms, in another order
      EXPECT_EQ(got.summary["iterations"], want.summary["iterations"]);
      EXPECT_NEAR(got.summary["last_change"].template get<double>(),
                  want.summary["last_change"].template get<double>(), 1e-12);
    } else if (kernel.name ==
               "lcc") {  // the mean of the (identical) coefficients, in another order
      EXPECT_NEAR(got.summary["average"].template get<double>(),
                  want.summary["average"].template get<double>(), 1e-12);
    } else {
      // SSSP's rounds depend on the order relaxations land in (a pull reads distances as
      // they fall), not only on the answer: the rest of the summary must agree.
      auto g_summary = got.summary, w_summary = want.summary;
      if (kernel.name == "sssp") g_summary.erase("rounds"), w_summary.erase("rounds");
      EXPECT_EQ(g_summary, w_summary);
    }
    // Every kernel but WCC (Afforest links in vertex functions) ran edge passes on the device.
    EXPECT_EQ(gpu.stats().empty(), kernel.name == "wcc");
  });
}

class DeviceEngineHost : public ::testing::TestWithParam<Case> {};

bool no_device() {
  if constexpr (TG_TEST_NEEDS_GPU) {
    int count = 0;
    return cudaGetDeviceCount(&count) != cudaSuccess || count == 0;
  }
  return false;
}

TEST_P(DeviceEngineHost, EveryKernelAgreesWithTheCpuEngine) {
  if (no_device()) GTEST_SKIP() << "no CUDA device";
  const Case& c = GetParam();
  auto file = kronecker_graph(11, c.undirected, c.weights, c.blocks, "dev-" + c.name, c.hub);
  for (Direction d : {Direction::kAuto, Direction::kPush, Direction::kPull}) {
    same_as_cpu<NoWeight>(file, d);
    if (c.weights == GeneratedWeights::kInteger) same_as_cpu<int32_t>(file, d);
    if (c.weights == GeneratedWeights::kReal) same_as_cpu<double>(file, d);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Graphs, DeviceEngineHost,
    ::testing::Values(Case{"undirected-1x1", true, GeneratedWeights::kInteger, 1, false},
                      Case{"directed-1x1", false, GeneratedWeights::kNone, 1, false},
                      Case{"directed-4x4", false, GeneratedWeights::kInteger, 4, true},
                      Case{"undirected-3x3-hub", true, GeneratedWeights::kReal, 3, true},
                      Case{"directed-real-2x2", false, GeneratedWeights::kReal, 2, false}),
    [](const auto& param_info) {
      std::string name = param_info.param.name;
      for (char& ch : name)
        if (ch == '-') ch = '_';
      return name;
    });

// The triangle pass and the neighbour counts against the CPU engine's, on graphs ranked by degree
// (Kronecker) and ordered by id (uniform), directed and undirected, on 1x1 and 3x3 grids, with
// self-loops kept or not: the shares tell the corners' roles apart (a sum counts, in its digit
// groups, the triangles a vertex was the first, second and third corner of), so the device must
// find each triangle once with the CPU engine's corner order, and give each the arcs between its
// corners (the arc bits weigh the shares here).
TEST(DeviceEngineHostTriangles, SumsAndNeighbourCountsAreTheCpuEngines) {
  if (no_device()) GTEST_SKIP() << "no CUDA device";
  for (bool undirected : {false, true}) {
    for (uint32_t blocks : {1u, 3u}) {
      for (bool loops : {false, true}) {
        const std::string tag = fmt::format("{}{}{}", undirected ? "u" : "d", blocks, loops);
        for (const auto& file :
             {testing::kronecker_graph(10, undirected, GeneratedWeights::kNone, blocks,
                                       "dev-tri-k" + tag, false, false, loops),
              testing::uniform_graph(10, undirected, blocks, "dev-tri-u" + tag, loops)}) {
          SCOPED_TRACE(file->path());
          GraphView<uint32_t, NoWeight> g(file);
          Engine<uint32_t, NoWeight> cpu(g, EngineOptions{});
          DeviceEngine<uint32_t, NoWeight, Backend> gpu(g, DeviceEngineOptions{});
          const auto roles = [] TG_HOST_DEVICE(const Triangle<uint32_t>& t) {
            return CornerShares{arc_count(t.uv) + 2 * arc_count(t.uw) + 4 * arc_count(t.vw), 1000,
                                1000000};
          };
          auto cpu_scope = cpu.scope();
          auto gpu_scope = gpu.scope();
          const std::vector<int64_t> want = cpu.collect(cpu.triangle_sums(roles));
          const std::vector<int64_t> got = gpu.collect(gpu.triangle_sums(roles));
          EXPECT_EQ(got, want);
          int64_t triangles = 0;
          for (int64_t s : want) triangles += s / 1000000;
          EXPECT_GT(triangles, 100);
          EXPECT_EQ(gpu.collect(gpu.neighbour_counts()), cpu.collect(cpu.neighbour_counts()));
          ASSERT_FALSE(gpu.stats().empty());
          EXPECT_GT(gpu.stats().back().edges_examined, 0u);
          EXPECT_GT(gpu.peak_pass_bytes(), 0u);
        }
      }
    }
  }
}

// A pass's statistics say what it did: the direction the rule chose, the frontier, the activations.
TEST(DeviceEngineHostStats, BfsPassesRecordDirectionAndFrontier) {
  if (no_device()) GTEST_SKIP() << "no CUDA device";
  auto file = kronecker_graph(12, true, GeneratedWeights::kNone, 1, "dev-stats");
  GraphView<uint32_t, NoWeight> g(file);
  DeviceEngine<uint32_t, NoWeight, Backend> gpu(g, DeviceEngineOptions{});
  uint64_t hub = 0;
  for (uint64_t v = 0; v < file->num_vertices(); ++v)
    if (file->out_degree(v) > file->out_degree(hub)) hub = v;
  run_bfs(gpu, hub, false);
  ASSERT_GE(gpu.stats().size(), 3u);
  EXPECT_EQ(gpu.stats()[0].frontier_size, 1u);
  EXPECT_EQ(gpu.stats()[0].direction, Direction::kPush);
  bool pulled = false;
  for (const auto& s : gpu.stats()) pulled |= s.direction == Direction::kPull;
  EXPECT_TRUE(pulled) << "a Kronecker BFS reaches the frontier size where the rule pulls";
  EXPECT_GT(gpu.graph_bytes(), file->num_arcs() * 2);  // every arc's neighbour id at least
}

}  // namespace
}  // namespace tg
