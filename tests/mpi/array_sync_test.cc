// A DistEngine keeps an array whole on every rank (a pointer forest) by gathering it after a
// vertex pass only when some rank changed its slice: a pass that only reads the forest moves no
// slice, and a pass that changes one master, on its owner alone, brings every rank its value.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../cpp/test_graphs.h"
#include "engine/mpi/dist_engine.h"
#include "mpi/comm.h"
#include "mpi/mpi_runtime.h"

namespace tg {
namespace {

// Every rank's engine over an undirected Kronecker-10 graph, the ranks mastering equal ranges.
struct OnRanks {
  GraphView<uint32_t, NoWeight> g;
  uint64_t n = g.num_vertices(), ranks = static_cast<uint64_t>(mpi::size());
  std::vector<uint64_t> bounds = equal_ranges(n, ranks);
  mpi::Comm comm{bounds};
  DistEngine<uint32_t, NoWeight> engine{g, EngineOptions{}, comm};

  explicit OnRanks(const char* file_name)
      : g(testing::kronecker_graph(10, true, GeneratedWeights::kNone, 1, file_name)) {}
  static std::vector<uint64_t> equal_ranges(uint64_t n, uint64_t ranks) {
    std::vector<uint64_t> bounds;
    for (uint64_t r = 0; r <= ranks; ++r)
      bounds.push_back(r == ranks ? n : n * r / ranks / 64 * 64);
    return bounds;
  }
};

TEST(ArraySync, AWholeArrayIsGatheredOnlyAfterAPassThatChangedIt) {
  OnRanks on("array-sync.tg");
  // References, not a structured binding: clang 14 cannot capture a binding in a lambda.
  const uint64_t n = on.n, ranks = on.ranks;
  const std::vector<uint64_t>& bounds = on.bounds;
  mpi::Comm& comm = on.comm;
  DistEngine<uint32_t, NoWeight>& engine = on.engine;
  auto scope = engine.scope();
  auto parent = engine.vertex_array_from([](uint32_t v) { return v; });
  engine.compress(parent);  // now kept whole (the identity forest: nothing changes)
  const uint64_t slice_bytes = (bounds[1] - bounds[0]) * sizeof(uint32_t);

  comm.take_counters();
  const uint64_t roots = engine.reduce(
      SumOp<uint64_t>{}, [&](uint32_t v) { return uint64_t{engine.root(parent, v) == v}; });
  EXPECT_LT(comm.take_counters().bytes_sent, slice_bytes)
      << "no slice gathered after a pass that changed none";
  EXPECT_EQ(roots, n);

  const uint32_t last = static_cast<uint32_t>(n - 1);  // a master of the last rank
  engine.for_each([&](uint32_t v) {
    if (v == last) parent.store(v, 0);
  });
  const auto sent = comm.take_counters().bytes_sent;
  EXPECT_EQ(parent[last], 0u) << "every rank sees the owner's change";
  if (ranks > 1) {
    EXPECT_GE(sent, slice_bytes / 2) << "the changed array was gathered";
  }
}

// A vertex pass that combines into other ranks' vertices (WCC's hooking) leaves every rank the
// array an allreduce with the operator would, sending the owners' slices and the improved entries
// rather than the whole array from every rank; a pass whose combines change no slice sends only
// the entries.
TEST(ArraySync, CombinesIntoOtherRanksVerticesAreMergedWithTheOperator) {
  OnRanks on("array-merge.tg");
  const uint64_t n = on.n, ranks = on.ranks;
  const std::vector<uint64_t>& bounds = on.bounds;
  mpi::Comm& comm = on.comm;
  DistEngine<uint32_t, NoWeight>& engine = on.engine;
  auto scope = engine.scope();
  auto parent = engine.vertex_array_from([](uint32_t v) { return v; });
  engine.compress(parent);  // kept whole from here on
  // Every 5th vertex lowers a vertex half the graph away (another rank's, on 2 and 4 ranks) to
  // its own id halved, and itself to its id less one: the serial answer, for every vertex.
  auto across = [&](uint64_t v) { return static_cast<uint32_t>((v + n / 2) % n); };
  std::vector<uint32_t> want(n);
  for (uint64_t v = 0; v < n; ++v) want[v] = static_cast<uint32_t>(v);
  for (uint64_t v = 0; v < n; v += 5) {
    want[across(v)] = std::min(want[across(v)], static_cast<uint32_t>(v / 2));
    want[v] = std::min(want[v], static_cast<uint32_t>(v > 0 ? v - 1 : 0));
  }
  engine.for_each([&](uint32_t v) {
    if (v % 5 != 0) return;
    engine.combine_at(MinOp<uint32_t>{}, parent, across(v), v / 2);
    engine.combine_at(MinOp<uint32_t>{}, parent, v, v > 0 ? v - 1 : 0);
  });
  for (uint64_t v = 0; v < n; ++v)
    ASSERT_EQ(parent[v], want[v]) << "vertex " << v << " on rank " << mpi::rank();

  // Only combines into other ranks' vertices: no slice changes, so only the improved entries
  // travel (16 bytes each), far less than one rank's slice (an allreduce counts the whole array).
  for (uint64_t v = 0; v < n; v += 64) want[across(v)] = 0;
  comm.take_counters();
  engine.for_each([&](uint32_t v) {
    if (v % 64 == 0) engine.combine_at(MinOp<uint32_t>{}, parent, across(v), 0u);
  });
  const uint64_t entries_sent = comm.take_counters().bytes_sent;
  for (uint64_t v = 0; v < n; ++v)
    ASSERT_EQ(parent[v], want[v]) << "vertex " << v << " on rank " << mpi::rank();
  const uint64_t slice_bytes = (bounds[1] - bounds[0]) * sizeof(uint32_t);
  if (ranks > 1) {
    EXPECT_LT(entries_sent, slice_bytes) << "the entries, not the slices";
  }
}

}  // namespace
}  // namespace tg
