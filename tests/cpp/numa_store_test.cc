// The numa tier: the blocks it holds live on the node it was given (the kernel says so, page by
// page) and are byte for byte the file's; leases are always ready; a node without memory is
// refused. Every algorithm through it is tested end to end in tests/python/test_memory_budget.py.
#include "store/numa_store.h"

#include <gtest/gtest.h>

#include <cstring>

#include "graph/graph_view.h"
#include "test_graphs.h"
#include "util/error.h"

namespace tg {
namespace {

using testing::kronecker_graph;

TEST(NumaStore, HoldsTheFilesBlocksOnItsNode) {
  const NumaNodes nodes = numa_nodes();
  if (!nodes.available) GTEST_SKIP() << "no NUMA support (in this kernel, or in this build)";
  const auto file = kronecker_graph(11, false, GeneratedWeights::kInteger, 4, "numa-store.tg");
  const GraphView<uint32_t, int32_t> view(file);
  // Every other block: the store must route by block, not hold a prefix of the file.
  auto holds = [](const BlockId& b) { return (b.major + b.minor) % 2 == 0; };
  NumaStore store(file, holds, view.grid(Grid::kOut), view.grid(Grid::kIn), nodes.farthest, true,
                  true);
  EXPECT_EQ(store.node(), nodes.farthest);
  std::vector<PlannedBlock> plan;
  for (Grid g : {Grid::kOut, Grid::kIn})
    for (uint32_t i = 0; i < 4; ++i)
      for (uint32_t j = 0; j < 4; ++j)
        if (holds({g, i, j})) plan.push_back({.block = {g, i, j}});
  EXPECT_EQ(store.blocks_held(), plan.size());
  store.begin_pass(plan);
  for (uint64_t k = 0; k < plan.size(); ++k) {
    EXPECT_NE(store.arrival(k), BlockStore::kNotArrived);
    const BlockDecoder& held = store.acquire(k);
    const auto& b = plan[k].block;
    const BlockDecoder& mapped =
        (b.grid == Grid::kOut ? view.grid(Grid::kOut)
                              : view.grid(Grid::kIn))[b.major * 4 + b.minor];
    ASSERT_EQ(held.edge_count, mapped.edge_count);
    EXPECT_NE(held.neighbours, mapped.neighbours);  // its own copy, not the mapping
    EXPECT_EQ(0, std::memcmp(held.neighbours, mapped.neighbours, held.edge_count * held.id_bytes));
    EXPECT_EQ(0, std::memcmp(held.weights, mapped.weights, held.edge_count * sizeof(int32_t)));
    EXPECT_EQ(held.presence, mapped.presence);  // the view's DCSR index serves vertex-major passes
    if (held.edge_count > 0) {
      EXPECT_EQ(NumaStore::node_of(held.neighbours), nodes.farthest);
    }
    store.release(k);
  }
  store.end_pass();
  EXPECT_EQ(store.counters().blocks, plan.size());
  EXPECT_EQ(store.counters().bytes, 0u);  // nothing is fetched per pass
}

TEST(NumaStore, RefusesANodeWithoutMemory) {
  if (!numa_nodes().available) GTEST_SKIP() << "no NUMA support (in this kernel, or in this build)";
  const auto file = kronecker_graph(8, false, GeneratedWeights::kNone, 2, "numa-refuse.tg");
  const GraphView<uint32_t, NoWeight> view(file);
  EXPECT_THROW(NumaStore(
                   file, [](const BlockId&) { return true; }, view.grid(Grid::kOut),
                   view.grid(Grid::kIn), 4095, false, true),
               Error);
}

}  // namespace
}  // namespace tg
