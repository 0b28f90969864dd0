// The planner: a budget's classes add up and fit, the blocks kept local are the ones the
// algorithm's passes read (densest first), far ratios 0 and 1 mean what they say, and budgets that
// cannot work are refused with what they would need. The engine through the plan's stores is
// tested end to end by tests/python/test_memory_budget.py.
#include "plan/tier_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "algorithms/pagerank.h"
#include "engine/cpu/engine.h"
#include "engine/cpu/working_memory.h"
#include "run/kernels.h"
#include "test_graphs.h"
#include "util/error.h"

namespace tg {
namespace {

using testing::kronecker_graph;

// A request for the kernel of that name, with its own pass shape (as run/budget.h makes one).
PlanRequest request(const GraphFile& g, const std::string& algorithm,
                    std::optional<uint64_t> budget, std::optional<double> ratio) {
  PlanRequest r;
  r.algorithm = algorithm;
  for_each_kernel([&](const auto& kernel) {
    if (kernel.name == algorithm) r.passes = kernel.passes;
  });
  r.vertex_state_bytes = 1000;
  r.result_bytes = 800;
  r.index_bytes = 500;
  r.budget = budget;
  r.far_ratio = ratio;
  r.threads = 2;
  r.engine_holding = [n = g.num_vertices(), id_bytes = g.id_bytes(),
                      passes = r.passes](uint64_t largest_range) {
    return cpu_engine_holding(n, largest_range, id_bytes, passes, 2);
  };
  return r;
}

// Bytes of the read grids' non-empty blocks that the plan put far / local, recomputed here.
struct Placed {
  uint64_t far = 0, local = 0, far_blocks = 0, local_blocks = 0;
};
Placed placed(const GraphFile& g, const TierPlan& plan, Grid grid) {
  Placed p;
  const uint32_t side = g.blocks_per_side();
  for (uint32_t i = 0; i < side; ++i)
    for (uint32_t j = 0; j < side; ++j) {
      if (g.entry(grid, i, j).edge_count == 0) continue;
      const uint64_t bytes = g.block_bytes(grid, i, j, false);
      if (plan.is_far({grid, i, j})) {
        p.far += bytes;
        ++p.far_blocks;
      } else {
        p.local += bytes;
        ++p.local_blocks;
      }
    }
  return p;
}

TEST(TierPlan, ABudgetsClassesFitAndAddUp) {
  const auto g = kronecker_graph(12, true, GeneratedWeights::kNone, 8, "plan-undirected.tg");
  const auto all_far = plan_tiers(*g, request(*g, "bfs", std::nullopt, 1.0));
  const uint64_t budget = all_far.minimum() + all_far.edge_bytes / 2;
  const auto plan = plan_tiers(*g, request(*g, "bfs", budget, std::nullopt));
  EXPECT_LE(plan.minimum() + plan.local_bytes, budget);
  EXPECT_EQ(plan.local_bytes + plan.far_bytes, plan.edge_bytes);
  EXPECT_GT(plan.local_bytes, 0u);
  EXPECT_GT(plan.far_bytes, 0u);
  const Placed p = placed(*g, plan, Grid::kOut);
  EXPECT_EQ(p.far, plan.far_bytes);
  EXPECT_EQ(p.local, plan.local_bytes);
  EXPECT_EQ(p.far_blocks, plan.far_blocks);
  // The pipeline is counted once, and fits its buffers.
  EXPECT_EQ(plan.buffers, plan.depth + 4);
  EXPECT_GE(plan.pool, uint64_t{plan.buffers} * plan.buffer_bytes);
  EXPECT_DOUBLE_EQ(plan.expected_far_bytes_per_pass,
                   static_cast<double>(plan.far_bytes));  // one grid, read by every pass
}

// The triangle and gather passes read every block of both grids twice (to count, to fill their
// lists) and then none again: the plan expects twice the far bytes and says so.
TEST(TierPlan, ListBuildingPassesExpectEveryFarBlockReadTwice) {
  const auto g = kronecker_graph(12, false, GeneratedWeights::kNone, 8, "plan-lists.tg");
  for (const std::string algorithm : {"tc", "lcc", "cdlp"}) {
    const auto plan = plan_tiers(*g, request(*g, algorithm, std::nullopt, 0.5));
    ASSERT_GT(plan.far_bytes, 0u) << algorithm;
    EXPECT_DOUBLE_EQ(plan.expected_far_bytes_per_pass, 2.0 * static_cast<double>(plan.far_bytes))
        << algorithm;
    const bool said = std::any_of(plan.reasons.begin(), plan.reasons.end(), [](const auto& s) {
      return s.find("reading each block twice") != std::string::npos;
    });
    EXPECT_TRUE(said) << algorithm;
  }
}

TEST(TierPlan, DenseBlocksStayLocalFirstAndNoFarBlockWouldFit) {
  const auto g = kronecker_graph(12, true, GeneratedWeights::kNone, 8, "plan-dense.tg");
  const auto plan = plan_tiers(*g, request(*g, "bfs", std::nullopt, 0.5));
  const auto target = static_cast<uint64_t>(0.5 * static_cast<double>(plan.edge_bytes));
  ASSERT_LE(plan.local_bytes, target);
  double densest = 0;
  BlockId densest_block;
  for (uint32_t i = 0; i < 8; ++i)
    for (uint32_t j = 0; j < 8; ++j) {
      const auto& e = g->entry(Grid::kOut, i, j);
      if (e.edge_count == 0) continue;
      const uint64_t bytes = g->block_bytes(Grid::kOut, i, j, false);
      const double density = static_cast<double>(e.edge_count) / static_cast<double>(bytes);
      if (density > densest) {
        densest = density;
        densest_block = {Grid::kOut, i, j};
      }
      // The greedy skipped a far block because it did not fit; the room only shrank after.
      if (plan.is_far({Grid::kOut, i, j})) {
        EXPECT_GT(bytes, target - plan.local_bytes) << i << "," << j;
      }
    }
  EXPECT_GT(plan.local_blocks, 0u);
  EXPECT_GT(plan.far_blocks, 0u);
  EXPECT_FALSE(plan.is_far(densest_block));
}

TEST(TierPlan, PageRankKeepsTheInGridAndPlacesTheOutGridFar) {
  const auto g = kronecker_graph(12, false, GeneratedWeights::kNone, 4, "plan-pr.tg");
  ASSERT_TRUE(g->directed());
  const auto plan = plan_tiers(*g, request(*g, "pr", std::nullopt, 0.5));
  const Placed in = placed(*g, plan, Grid::kIn), out = placed(*g, plan, Grid::kOut);
  EXPECT_EQ(out.local_blocks, 0u);  // PageRank pulls: the out grid is never expected to be read
  EXPECT_EQ(in.local + in.far, plan.edge_bytes);  // the ratio counts the grid it reads
  EXPECT_EQ(in.far, plan.far_bytes);
  EXPECT_GT(in.local, 0u);
  EXPECT_GT(plan.pool, 0u);
  // SSSP pushes: the other way round.
  const auto sssp = plan_tiers(*g, request(*g, "sssp", std::nullopt, 0.0));
  EXPECT_EQ(placed(*g, sssp, Grid::kIn).local_blocks, 0u);
  EXPECT_EQ(placed(*g, sssp, Grid::kOut).far_blocks, 0u);
  EXPECT_GT(sssp.pool, 0u);  // the in grid is far, so a pipeline exists should a pass pull
}

// A result that collect moves out of the state (Radii's eccentricities, PageRank's ranks) is in
// the state's bytes already; every trial's result is held to the run's end, the last one's only
// after the state is gone; a verifier finds them all.
TEST(TierPlan, ResultsCountTheTrialsAndNotWhatTheStateHolds) {
  const auto g = kronecker_graph(10, true, GeneratedWeights::kNone, 1, "plan-results.tg");
  PlanRequest r = request(*g, "radii", std::nullopt, 1.0);
  const auto copied = plan_tiers(*g, r);
  EXPECT_EQ(copied.result, 800u);
  EXPECT_EQ(copied.results_held, 800u);
  r.result_in_state = true;
  const auto moved = plan_tiers(*g, r);
  EXPECT_EQ(moved.result, 0u);
  EXPECT_EQ(moved.minimum() + 800, copied.minimum());
  r.trials = 3;
  const auto three = plan_tiers(*g, r);
  EXPECT_EQ(three.result, 1600u);  // two earlier trials' results beside the last one's state
  EXPECT_EQ(three.results_held, 2400u);
}

// PageRank activates no vertex, so it never holds a frontier list: the plan counts three bitmaps
// for it (the engine's claim bitmap, a fused pass's next set, a spare) where BFS counts lists of
// ids too (12 bytes a vertex more: 1.5 GiB at 2^27 vertices), and the engine's sets after
// PageRank's passes stay within them.
TEST(TierPlan, PageRankCountsBitmapsNotFrontierLists) {
  const auto g = kronecker_graph(14, false, GeneratedWeights::kNone, 1, "plan-pr-frontiers.tg");
  const uint64_t n = g->num_vertices(), bitmap = (n + 63) / 64 * 8;
  const auto pr = plan_tiers(*g, request(*g, "pr", std::nullopt, 0.5));
  // And the pull's chunks (32 a thread, 2 here) and its slice accumulators (a double and a state
  // byte a vertex: a fetching store's block-major pull holds one slice a thread, the whole range).
  EXPECT_EQ(pr.frontiers, 3 * bitmap + (2 * 32 + 1) * 8 + n * 9);
  EXPECT_GE(plan_tiers(*g, request(*g, "bfs", std::nullopt, 0.5)).frontiers, 3 * n * g->id_bytes());
  GraphView<uint32_t, NoWeight> view(g);
  for (Schedule schedule : {Schedule::kVertex, Schedule::kBlock}) {
    Engine engine(view, EngineOptions{.schedule = schedule});
    run_pagerank(engine, PageRankOptions{});
    EXPECT_LE(engine.memory().engine_sets, pr.frontiers) << schedule_name(schedule);
  }
}

// A pull's accumulators are a range's worth a thread: all n on a 1x1 grid, where a refusal names
// the finer grid that cuts them; a quarter of n for each of 2 threads on a 4x4 grid.
TEST(TierPlan, PullAccumulatorsAreARangeAThreadAndARefusalNamesAFinerGrid) {
  const auto one = kronecker_graph(16, false, GeneratedWeights::kNone, 1, "plan-pull-1.tg");
  const auto four = kronecker_graph(16, false, GeneratedWeights::kNone, 4, "plan-pull-4.tg");
  const uint64_t n = one->num_vertices();
  EXPECT_EQ(largest_range(*one), n);
  EXPECT_EQ(pull_scratch_bytes(n, largest_range(*one), 4, kPageRankShape, 2), n * 9);
  EXPECT_EQ(pull_scratch_bytes(n, largest_range(*four), 4, kPageRankShape, 2),
            2 * largest_range(*four) * 9);
  EXPECT_LT(largest_range(*four), n / 2);  // ranges balance arcs, not vertices
  EXPECT_LT(plan_tiers(*four, request(*four, "pr", std::nullopt, 0.5)).frontiers,
            plan_tiers(*one, request(*one, "pr", std::nullopt, 0.5)).frontiers);
  try {
    plan_tiers(*one, request(*one, "pr", 100000, std::nullopt));
    FAIL() << "a budget below the minimum was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("a pull's accumulators take"), std::string::npos) << m;
    EXPECT_NE(m.find("--blocks 8"), std::string::npos) << m;
  }
}

TEST(TierPlan, FarRatiosZeroAndOne) {
  const auto g = kronecker_graph(12, true, GeneratedWeights::kInteger, 4, "plan-ratios.tg");
  const auto none = plan_tiers(*g, request(*g, "sssp", std::nullopt, 0.0));
  EXPECT_EQ(none.far_bytes, 0u);
  EXPECT_FALSE(none.any_far());
  EXPECT_EQ(none.pool, 0u);  // no pipeline when nothing is far
  const auto all = plan_tiers(*g, request(*g, "sssp", std::nullopt, 1.0));
  EXPECT_EQ(all.local_bytes, 0u);
  EXPECT_DOUBLE_EQ(all.far_ratio, 1.0);
  EXPECT_GT(all.pool, 0u);
}

TEST(TierPlan, ImpossibleBudgetsAreRefusedWithWhatWouldFit) {
  const auto g = kronecker_graph(12, false, GeneratedWeights::kNone, 4, "plan-refuse.tg");
  try {
    plan_tiers(*g, request(*g, "pr", 1000, std::nullopt));
    FAIL() << "a budget below the minimum was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("too small"), std::string::npos) << m;
    EXPECT_NE(m.find("needs at least"), std::string::npos) << m;
    EXPECT_NE(m.find("give --memory-budget"), std::string::npos) << m;
  }
  auto over = request(*g, "pr", uint64_t{1} << 40, std::nullopt);
  over.machine_bytes = uint64_t{1} << 30;
  EXPECT_THROW(plan_tiers(*g, over), Error);
  EXPECT_THROW(plan_tiers(*g, request(*g, "pr", 0, std::nullopt)), Error);
  EXPECT_THROW(plan_tiers(*g, request(*g, "pr", std::nullopt, 1.5)), Error);
  EXPECT_THROW(plan_tiers(*g, request(*g, "pr", 1 << 30, 0.5)), Error);                // both
  EXPECT_THROW(plan_tiers(*g, request(*g, "pr", std::nullopt, std::nullopt)), Error);  // neither
}

// On an MPI rank the plan places only the blocks of its rows, counts its exchange as hot data,
// and keeps what fits of those rows local under the rank's own budget.
TEST(TierPlan, ARanksPlanPlacesOnlyItsRows) {
  const auto g = kronecker_graph(12, false, GeneratedWeights::kNone, 8, "plan-rows.tg");
  const auto whole = plan_tiers(*g, request(*g, "pr", std::nullopt, 0.0));
  PlanRequest r = request(*g, "pr", std::nullopt, 0.0);
  r.rows = {{2, 5}};
  r.communication_bytes = 4096;
  const auto rows = plan_tiers(*g, r);
  EXPECT_EQ(rows.first_row(), 2u);
  EXPECT_EQ(rows.end_row(), 5u);
  EXPECT_EQ(rows.communication, 4096u);
  EXPECT_EQ(rows.minimum() - rows.pool,
            whole.minimum() - whole.pool + 4096);  // the pool's buffers fit the rows' blocks
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < 8; ++i)
    for (uint32_t j = 0; j < 8; ++j) {
      EXPECT_EQ(rows.reads({Grid::kIn, i, j}), i >= 2 && i < 5);
      if (i >= 2 && i < 5 && g->entry(Grid::kIn, i, j).edge_count)
        bytes += g->block_bytes(Grid::kIn, i, j, false);
    }
  EXPECT_EQ(rows.edge_bytes, bytes);  // PageRank reads the in grid: the rows' blocks of it
  EXPECT_LT(rows.edge_bytes, whole.edge_bytes);
  // Under a budget that holds the hot data and half the rows' blocks, about half are far.
  r.far_ratio.reset();
  r.budget = plan_tiers(*g,
                        [&] {
                          PlanRequest x = r;
                          x.budget.reset();
                          x.far_ratio = 1.0;
                          return x;
                        }())
                 .minimum() +
             rows.edge_bytes / 2;
  const auto budgeted = plan_tiers(*g, r);
  EXPECT_GT(budgeted.far_blocks, 0u);
  EXPECT_GT(budgeted.local_blocks, 0u);
  EXPECT_LE(budgeted.minimum() + budgeted.local_bytes, *r.budget);
  for (uint32_t i = 0; i < 8; ++i)  // no block of another rank's rows is placed far
    for (uint32_t j = 0; j < 8; ++j) {
      if (i < 2 || i >= 5) {
        EXPECT_FALSE(budgeted.is_far({Grid::kIn, i, j}));
      }
    }
  r.rows = {{5, 9}};
  EXPECT_THROW(plan_tiers(*g, r), Error);
}

}  // namespace
}  // namespace tg
