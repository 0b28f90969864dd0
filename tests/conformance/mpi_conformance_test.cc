// Conformance of the engine on MPI ranks (run on 1, 2 and 4 ranks by ctest): every kernel, on
// every conformance graph, in every setup below (each exchange, slices, stealing, block-major,
// a fetching store, every pass pushed), gives rank 0 the reference engine's answer and
// passes its verifier. The ranks master ranges balanced as `tiergraph run` balances them. A new
// setup joins with one line.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conformance.h"
#include "engine/mpi/dist_engine.h"
#include "engine/mpi/partition.h"
#include "mpi/comm.h"
#include "mpi/mpi_runtime.h"
#include "store/copying_store.h"

namespace tg {
namespace {

struct RankSetup {
  const char* name;
  DistOptions dist;
  EngineOptions options{};
  bool copying_store = false;  // block-major through a copying store (a rank under a budget)
};

constexpr uint64_t kExchangeBytes = uint64_t{8} << 20;

const RankSetup kSetups[] = {
    {"collective", {.exchange = Exchange::kCollective, .exchange_bytes = kExchangeBytes}},
    {"collective, block-major",
     {.exchange = Exchange::kCollective, .exchange_bytes = kExchangeBytes},
     {.schedule = Schedule::kBlock}},
    {"collective, copying store",
     {.exchange = Exchange::kCollective, .exchange_bytes = kExchangeBytes},
     {.schedule = Schedule::kBlock},
     true},
    {"ring", {.exchange = Exchange::kRing, .exchange_bytes = kExchangeBytes}},
    {"ring, 4 slices",
     {.exchange = Exchange::kRing, .exchange_bytes = kExchangeBytes, .slices = 4}},
    {"ring, 4 slices, stealing",
     {.exchange = Exchange::kRing, .exchange_bytes = kExchangeBytes, .slices = 4, .steal = true}},
    {"accumulate, 3 slices",
     {.exchange = Exchange::kAccumulate, .exchange_bytes = kExchangeBytes, .slices = 3}},
    // Every pass pushed: PageRank's step then runs after each push's exchange.
    {"collective, push",
     {.exchange = Exchange::kCollective, .exchange_bytes = kExchangeBytes},
     {.direction = Direction::kPush}},
    {"ring, 4 slices, push",
     {.exchange = Exchange::kRing, .exchange_bytes = kExchangeBytes, .slices = 4},
     {.direction = Direction::kPush}},
};

// The ranks' vertex ranges, as `tiergraph run` divides the graph.
std::vector<uint64_t> rank_bounds(const GraphFile& file) {
  const auto ranks = static_cast<uint32_t>(mpi::size());
  const Partition partition = partition_vertices(file, ranks, default_partition_alpha(ranks));
  std::vector<uint64_t> bounds{0};
  for (const auto& r : partition.ranks) bounds.push_back(r.end);
  return bounds;
}

class RankConformance : public ::testing::TestWithParam<RankSetup> {};

TEST_P(RankConformance, EveryKernelGivesTheReferenceAnswer) {
  const RankSetup& setup = GetParam();
  using Ranks = DistEngine<uint32_t, NoWeight>;
  conformance::expect_every_kernel_conforms<uint32_t, IntersectingEngine<Ranks>,
                                            GatheringEngine<Ranks>>(
      setup.name, [&](const auto& g, const auto& file, auto run) -> std::optional<AlgorithmResult> {
        constexpr bool kWeights =
            !std::is_same_v<typename std::decay_t<decltype(g)>::WeightType, NoWeight>;
        std::unique_ptr<CopyingStore> store;
        if (setup.copying_store) {
          store = std::make_unique<CopyingStore>(
              file, CopyingStoreOptions{.buffers = 4, .depth = 2, .with_weights = kWeights});
        }
        mpi::Comm comm(rank_bounds(*file));
        EngineOptions options = setup.options;
        options.store = store.get();
        DistEngine engine(g, options, comm, setup.dist);
        AlgorithmResult r = run(engine);
        if (mpi::rank() != 0) return std::nullopt;
        return r;
      });
}

INSTANTIATE_TEST_SUITE_P(Setups, RankConformance, ::testing::ValuesIn(kSetups),
                         conformance::SetupName{});

}  // namespace
}  // namespace tg
