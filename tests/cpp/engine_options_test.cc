// What the tiers and backends need from the engine: its own thread count (not the caller's
// OpenMP setting, which it leaves as it found it), pass hooks called around every edge pass,
// and a copying store whose I/O threads are its own.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>

#include "algorithms/sources.h"
#include "engine/cpu/engine.h"
#include "engine/cpu/working_memory.h"
#include "plan/tier_plan.h"
#include "run/kernels.h"
#include "store/copying_store.h"
#include "test_graphs.h"

namespace tg {
namespace {

using testing::kronecker_graph;

// The largest team any of the engine's vertex loops ran on.
template <typename E>
int widest_team(E& engine) {
  std::atomic<int> widest{0};
  engine.for_each([&](auto) {
    const int t = omp_get_num_threads();
    int seen = widest.load(std::memory_order_relaxed);
    while (t > seen && !widest.compare_exchange_weak(seen, t, std::memory_order_relaxed)) {
    }
  });
  return widest.load();
}

TEST(EngineOptions, ThreadsAreTheEnginesOwnAndTheCallersSettingIsRestored) {
  auto file = kronecker_graph(11, true, GeneratedWeights::kNone, 4, "eo-threads");
  GraphView<uint32_t, NoWeight> g(file);
  omp_set_num_threads(2);
  Engine one(g, EngineOptions{.serial_work = 0, .threads = 1});
  EXPECT_EQ(widest_team(one), 1);
  EXPECT_EQ(omp_get_max_threads(), 2);  // the caller's setting is back

  omp_set_num_threads(1);
  Engine two(g, EngineOptions{.serial_work = 0, .threads = 2});
  EXPECT_EQ(widest_team(two), 2);
  Engine inherits(g, EngineOptions{.serial_work = 0});  // threads = 0: the caller's setting
  EXPECT_EQ(widest_team(inherits), 1);
  EXPECT_EQ(omp_get_max_threads(), 1);

  // Block-major passes slice the grid by the engine's count, not the caller's: same answer.
  Engine reference(g, EngineOptions{});
  const auto expected = run_bfs(reference, 1, false).ints;
  CopyingStore store(file, {.buffers = 3, .depth = 2});
  Engine blocks(g, EngineOptions{.schedule = Schedule::kBlock, .store = &store, .threads = 2});
  EXPECT_EQ(run_bfs(blocks, 1, false).ints, expected);
  EXPECT_EQ(omp_get_max_threads(), 1);
  omp_set_num_threads(2);
}

TEST(EngineOptions, PassHooksBracketEveryEdgePass) {
  auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 4, "eo-hooks");
  GraphView<uint32_t, NoWeight> g(file);
  std::vector<std::string> events;
  std::vector<IterationStats> ended;
  EngineOptions o;
  o.hooks.begin = [&](const IterationStats& s) {
    events.push_back(fmt::format("begin {}", s.iteration));
  };
  o.hooks.end = [&](const IterationStats& s) {
    events.push_back(fmt::format("end {}", s.iteration));
    ended.push_back(s);
  };
  Engine engine(g, o);
  run_pagerank(engine, PageRankOptions{});  // one edge pass per iteration
  ASSERT_GT(engine.stats().size(), 1u);
  ASSERT_EQ(ended.size(), engine.stats().size());
  ASSERT_EQ(events.size(), 2 * ended.size());
  for (size_t k = 0; k < ended.size(); ++k) {
    EXPECT_EQ(events[2 * k], fmt::format("begin {}", k));  // begin and end alternate, in order
    EXPECT_EQ(events[2 * k + 1], fmt::format("end {}", k));
    EXPECT_EQ(ended[k].activated, engine.stats()[k].activated);  // end sees the pass's figures
    EXPECT_EQ(ended[k].direction, engine.stats()[k].direction);
  }
}

TEST(EngineOptions, SeveralIoThreadsCompleteOutOfOrderAndGiveTheSameAnswer) {
  auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 64, "eo-io");
  GraphView<uint32_t, NoWeight> g(file);
  Engine reference(g, EngineOptions{});
  const auto expected = run_wcc(reference).ints;
  CopyingStore store(file, {.buffers = 6,
                            .depth = 4,
                            .io_threads = 3,
                            .delay_seconds = 0.0005,
                            .completion = CopyingStoreOptions::Completion::kShuffled});
  Engine engine(g, EngineOptions{.schedule = Schedule::kBlock, .store = &store});
  EXPECT_EQ(run_wcc(engine).ints, expected);
  EXPECT_GE(store.counters().max_in_flight, 2u);
  EXPECT_THROW(CopyingStore(file, {.io_threads = 0}), Error);
}

}  // namespace
}  // namespace tg

namespace tg {
namespace {

// A kernel's state_bytes is what a budget refuses a run by before reading any edge: it must
// be exactly the vertex state the kernel holds at its peak. (Files take 64-bit ids only past
// 2^32 vertices, too large for a unit test; the id width enters each formula as sizeof(Id).)
TEST(EngineOptions, KernelStateBytesAreExactlyThePeakVertexState) {
  using Id = uint32_t;
  auto file = kronecker_graph(10, false, GeneratedWeights::kInteger, 4, "eo-state");
  GraphView<Id, int32_t> g(file);
  for_each_kernel([&](const auto& kernel) {
    for (bool parents : {false, true}) {  // BFS holds another array with them
      const std::string what = std::string(kernel.name) + (parents ? " with parents" : "");
      Engine engine(g, EngineOptions{});
      KernelArgs args;
      args.source = 1;
      args.sources = sampled_sources(g, 64, 7);
      args.parents = parents;
      kernel.run(engine, args);
      EXPECT_EQ(kernel.state_bytes(*file, sizeof(Id), true, parents), engine.peak_held_bytes())
          << what;
      const MemoryUse m = engine.memory();
      EXPECT_EQ(m.vertex_state, 0u) << what << ": the kernel's arrays are freed when it returns";
      EXPECT_EQ(m.vertex_state_peak, engine.peak_vertex_bytes());
      EXPECT_LE(engine.peak_vertex_bytes(), engine.peak_held_bytes());
      EXPECT_EQ(m.block_index, g.index_bytes());
      EXPECT_GT(m.engine_sets, 0u);  // the claim bitmap at least
      EXPECT_EQ(m.store_pool, 0u);   // the mapped store holds no buffers
    }
  });
}

// The planner places a grid no pass of a kernel reads far and counts bitmaps only for a kernel
// without frontier lists, as the kernel declares (PassShape): each kernel must keep to it, on a
// directed graph where push reads the out grid and pull the in grid.
TEST(EngineOptions, KernelsPassShapesHold) {
  using Id = uint32_t;
  auto file = kronecker_graph(12, false, GeneratedWeights::kInteger, 4, "eo-shape");
  GraphView<Id, int32_t> g(file);
  for_each_kernel([&](const auto& kernel) {
    for (Schedule schedule : {Schedule::kVertex, Schedule::kBlock}) {
      Engine engine(g, EngineOptions{.schedule = schedule});
      KernelArgs args;
      args.source = 1;
      args.sources = sampled_sources(g, 64, 7);
      kernel.run(engine, args);
      int pushes = 0, pulls = 0;
      for (const auto& pass : engine.stats())
        (pass.direction == Direction::kPull ? pulls : pushes) += 1;
      // WCC links over its sample and arc passes and makes no edge pass.
      ASSERT_EQ(pushes + pulls == 0, kernel.name == "wcc") << kernel.name;
      if (kernel.passes.out_share == 0) {
        EXPECT_EQ(pushes, 0) << kernel.name << " pushed, reading the grid it says no pass reads";
      }
      if (kernel.passes.in_share == 0) {
        EXPECT_EQ(pulls, 0) << kernel.name << " pulled, reading the grid it says no pass reads";
      }
      // The engine's own sets within what the plan counts as frontiers (bitmaps only, for a
      // kernel without lists).
      EXPECT_LE(engine.memory().engine_sets,
                frontier_bytes(g.num_vertices(), largest_range(*file), sizeof(Id), kernel.passes,
                               static_cast<uint32_t>(max_threads())))
          << kernel.name << " " << schedule_name(schedule);
    }
  });
}

// An edge pass builds the bitmaps of the sparse sets it reads (its frontier, its targets) for
// itself and drops them when it ends: a set an algorithm keeps (BC keeps every level of a
// traversal, thousands on a road graph) then holds its list, not n bits. Every schedule and
// direction, over a fetching store (block-major push reads the frontier's bitmap).
TEST(EngineOptions, APassDropsTheBitmapsItBuiltForSparseSets) {
  using Id = uint32_t;
  auto file = kronecker_graph(10, false, GeneratedWeights::kNone, 4, "eo-drop-bitmaps");
  GraphView<Id, NoWeight> g(file);
  for (Schedule schedule : {Schedule::kBlock, Schedule::kVertex}) {
    for (Direction direction : {Direction::kPush, Direction::kPull}) {
      CopyingStore store(file, {.buffers = 2 * 16, .depth = 2});
      Engine engine(g,
                    EngineOptions{.direction = direction, .schedule = schedule, .store = &store});
      auto scope = engine.scope();
      // Receivers: some of the sources' out-neighbours, and one vertex that is not.
      const std::vector<uint64_t> sources{1, 2, 3, 500};
      std::vector<uint64_t> receivers;
      g.for_each_arc([&](uint64_t u, uint64_t v, NoWeight) {
        if (u <= 3 && receivers.size() < 5 && v > 3) receivers.push_back(v);
      });
      std::sort(receivers.begin(), receivers.end());
      receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
      ASSERT_FALSE(receivers.empty());
      const auto frontier = engine.frontier_of(sources);
      const auto targets = engine.frontier_of(receivers);
      const PageRankProgram<Id, double> program{engine.vertex_array(1.0), engine.vertex_array(0.0)};
      engine.edge_pass(program, frontier, {.targets = &targets});
      const std::string what =
          fmt::format("{} {}", schedule_name(schedule), direction_name(direction));
      EXPECT_EQ(frontier.kind(), Frontier<Id>::Kind::kSparse) << what;
      EXPECT_EQ(targets.kind(), Frontier<Id>::Kind::kSparse) << what;
      EXPECT_EQ(frontier.list(), std::vector<Id>({1, 2, 3, 500})) << what;
      // And they read again as they did: the same pass gives the same sums.
      // (Each source sends 1: a target's sum counts its arcs from the sources.)
      const auto count = [](double x) { return static_cast<int64_t>(x); };
      const auto first = engine.collect(engine.copy(program.incoming), count);  // (collect frees)
      EXPECT_GT(*std::max_element(first.begin(), first.end()), 0) << what;
      engine.for_each([=](Id v) { program.incoming[v] = 0; });
      engine.edge_pass(program, frontier, {.targets = &targets});
      EXPECT_EQ(engine.collect(program.incoming, count), first) << what;
    }
  }
}

// A block-major pull over a fetching store holds a slice accumulator per running task; the plan
// counts at most a range's worth a thread (all vertices on a 1x1 grid). Each kernel's slices,
// of the value it declares, must keep within that, on one range and on four.
TEST(EngineOptions, PullAccumulatorsStayWithinWhatThePlanCounts) {
  using Id = uint32_t;
  for (uint32_t blocks : {1u, 4u}) {
    auto file = kronecker_graph(11, false, GeneratedWeights::kInteger, blocks,
                                fmt::format("eo-pull-{}", blocks));
    GraphView<Id, int32_t> g(file);
    const uint32_t threads = static_cast<uint32_t>(max_threads());
    for_each_kernel([&](const auto& kernel) {
      CopyingStore store(
          file, {.buffers = 4 + 2 * threads, .depth = 4, .with_weights = true});  // SSSP reads them
      Engine engine(g, EngineOptions{.schedule = Schedule::kBlock, .store = &store});
      KernelArgs args;
      args.source = 1;
      args.sources = sampled_sources(g, 64, 7);
      kernel.run(engine, args);
      const uint64_t counted = pull_scratch_bytes(g.num_vertices(), largest_range(*file),
                                                  sizeof(Id), kernel.passes, threads);
      EXPECT_LE(engine.peak_pull_scratch_bytes(), counted)
          << kernel.name << " on " << blocks << "x" << blocks;
      if (kernel.passes.out_share == 0) {
        EXPECT_GT(engine.peak_pull_scratch_bytes(), 0u) << kernel.name << " pulls";
      }
    });
    if (blocks == 4 && threads < 4) {  // the bound is a range's worth a thread, not every vertex
      EXPECT_LT(pull_scratch_bytes(g.num_vertices(), largest_range(*file), sizeof(Id),
                                   kPageRankShape, threads),
                g.num_vertices() * kPageRankShape.pull_scratch_bytes(sizeof(Id)));
    }
  }
}

TEST(EngineOptions, MemoryCountsTheCopyingStoresPool) {
  auto file = kronecker_graph(10, false, GeneratedWeights::kNone, 4, "eo-pool");
  GraphView<uint32_t, NoWeight> g(file);
  CopyingStore store(file, {.buffers = 5});
  Engine engine(g, EngineOptions{.store = &store});
  // Five buffers, and the bookkeeping of the selections in flight (depth 4, an eighth of a
  // buffer's fill each).
  EXPECT_EQ(engine.memory().store_pool, 5 * store.buffer_bytes() + 4 * (store.piece_bytes() / 8));
  EXPECT_EQ(store.buffer_bytes() % 4096, 0u);  // whole pages, for mprotect
}

}  // namespace
}  // namespace tg
