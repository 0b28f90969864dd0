// Conformance of the shared-memory engine: every kernel, on every conformance graph, in every
// setup below (directions, schedules, the two-phase pass, each block store, and 64-bit vertex
// ids), gives the reference engine's answer and passes its verifier. A new setup joins with one
// line.
#include <gtest/gtest.h>
#include <omp.h>

#include <memory>
#include <optional>

#include "conformance.h"
#include "engine/cpu/engine.h"
#include "store/copying_store.h"
#include "store/uring_transfer.h"

namespace tg {
namespace {

// Where an engine's blocks come from: the mapped file (zero-copy); the copying store (pread, out
// of order, 2 requests in flight) with whole blocks or with 1 KiB buffers that lease most blocks
// in pieces; the file tier (O_DIRECT through io_uring).
enum class Store { kMapped, kCopying, kPieces, kFile };

struct CpuSetup {
  const char* name;
  EngineOptions options;
  Store store = Store::kMapped;
  int threads = 2;
  bool wide_ids = false;  // the engine on 64-bit vertex ids (what a graph past 2^32 vertices gets)
};

const CpuSetup kSetups[] = {
    {"vertex-major, mapped, 1 thread", {.schedule = Schedule::kVertex}, Store::kMapped, 1},
    {"vertex-major, mapped", {.schedule = Schedule::kVertex}},
    {"block-major, mapped", {.schedule = Schedule::kBlock}},
    {"push only, two-phase", {.direction = Direction::kPush, .two_phase = true}},
    {"pull only", {.direction = Direction::kPull}},
    {"vertex-major, copying store", {.schedule = Schedule::kVertex}, Store::kCopying},
    {"block-major, copying store", {.schedule = Schedule::kBlock}, Store::kCopying},
    {"block-major, copying store in pieces", {.schedule = Schedule::kBlock}, Store::kPieces},
    {"block-major, file tier (O_DIRECT)", {.schedule = Schedule::kBlock}, Store::kFile},
    {"vertex-major, mapped, 64-bit ids", {.schedule = Schedule::kVertex}, Store::kMapped, 2, true},
    {"block-major, copying store in pieces, 64-bit ids",
     {.schedule = Schedule::kBlock},
     Store::kPieces,
     2,
     true},
};

// The store a setup reads through (null: the engine's own mapping).
std::unique_ptr<CopyingStore> make_store(const CpuSetup& s,
                                         const std::shared_ptr<const GraphFile>& file,
                                         bool weights) {
  if (s.store == Store::kMapped) return nullptr;
  const uint32_t p = file->blocks_per_side();
  // Vertex-major holds every block of a pass (two grids for programs that read both ways).
  const uint32_t buffers = s.options.schedule == Schedule::kVertex ? 2 * p * p : 3;
  std::unique_ptr<Transfer> transfer;
  if (s.store == Store::kFile) transfer = std::make_unique<UringTransfer>(file->path(), 8);
  return std::make_unique<CopyingStore>(
      file,
      CopyingStoreOptions{.buffers = buffers,
                          .buffer_bytes = s.store == Store::kPieces ? 1024u : 0u,
                          .depth = 2,
                          .completion = CopyingStoreOptions::Completion::kShuffled,
                          .with_weights = weights},
      std::move(transfer));
}

class CpuConformance : public ::testing::TestWithParam<CpuSetup> {};

TEST_P(CpuConformance, EveryKernelGivesTheReferenceAnswer) {
  const CpuSetup& setup = GetParam();
  if (setup.store == Store::kFile && !UringTransfer::built())
    GTEST_SKIP() << "built without io_uring";
  const auto run_on = [&](const auto& g, const auto& file,
                          auto run) -> std::optional<AlgorithmResult> {
    constexpr bool kWeights =
        !std::is_same_v<typename std::decay_t<decltype(g)>::WeightType, NoWeight>;
    const auto store = make_store(setup, file, kWeights);
    EngineOptions options = setup.options;
    options.store = store.get();
    options.threads = setup.threads;
    Engine engine(g, options);
    return run(engine);
  };
  if (setup.wide_ids) {
    conformance::expect_every_kernel_conforms<uint64_t, true, true>(setup.name, run_on);
  } else {
    conformance::expect_every_kernel_conforms<uint32_t, true, true>(setup.name, run_on);
  }
}

INSTANTIATE_TEST_SUITE_P(Setups, CpuConformance, ::testing::ValuesIn(kSetups),
                         conformance::SetupName{});

}  // namespace
}  // namespace tg
