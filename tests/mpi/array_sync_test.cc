// A DistEngine keeps an array whole on every rank (a pointer forest) by gathering it after a
// vertex pass only when some rank changed its slice: a pass that only reads the forest moves no
// slice, and a pass that changes one master, on its owner alone, brings every rank its value.
#include <gtest/gtest.h>

#include <vector>

#include "../cpp/test_graphs.h"
#include "dist/comm.h"
#include "dist/dist_engine.h"
#include "dist/mpi_runtime.h"

namespace tg {
namespace {

TEST(ArraySync, AWholeArrayIsGatheredOnlyAfterAPassThatChangedIt) {
  const auto file = testing::kronecker_graph(10, true, GeneratedWeights::kNone, 1, "array-sync.tg");
  GraphView<uint32_t, NoWeight> g(file);
  const uint64_t n = g.num_vertices(), ranks = static_cast<uint64_t>(mpi::size());
  std::vector<uint64_t> bounds;
  for (uint64_t r = 0; r <= ranks; ++r) bounds.push_back(r == ranks ? n : n * r / ranks / 64 * 64);
  dist::Comm comm(bounds);
  DistEngine<uint32_t, NoWeight> engine(g, EngineOptions{}, comm);
  auto scope = engine.scope();
  auto parent = engine.vertex_array_from([](uint32_t v) { return v; });
  engine.compress(parent);  // now kept whole (the identity forest: nothing changes)
  const uint64_t slice_bytes = (bounds[1] - bounds[0]) * sizeof(uint32_t);

  comm.take_counters();
  const uint64_t roots = engine.reduce(SumOp<uint64_t>{}, [&](uint32_t v) { return uint64_t{engine.root(parent, v) == v}; });
  EXPECT_LT(comm.take_counters().bytes_sent, slice_bytes) << "no slice gathered after a pass that changed none";
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

}  // namespace
}  // namespace tg
