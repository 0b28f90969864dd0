// Conformance of the shared-memory engine: every kernel, on every conformance graph, in every
// setup below (directions, schedules, the two-phase pass, and each block store), gives the
// reference engine's answer and passes its verifier. A new setup joins with one line.
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
  conformance::expect_every_kernel_conforms(
      setup.name, [&](const auto& g, const auto& file, auto run) -> std::optional<AlgorithmResult> {
        constexpr bool kWeights =
            !std::is_same_v<typename std::decay_t<decltype(g)>::WeightType, NoWeight>;
        const auto store = make_store(setup, file, kWeights);
        EngineOptions options = setup.options;
        options.store = store.get();
        options.threads = setup.threads;
        Engine engine(g, options);
        return run(engine);
      });
}

INSTANTIATE_TEST_SUITE_P(Setups, CpuConformance, ::testing::ValuesIn(kSetups),
                         conformance::SetupName{});

}  // namespace
}  // namespace tg
