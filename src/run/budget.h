// The memory-tier options `run` and `plan` share (the command line's in cli/budget_options.h): a
// memory budget or a far ratio, and the far tier; and the plan they make for one kernel on one
// graph.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "engine/cpu/working_memory.h"
#include "engine/mpi/rank_memory.h"
#include "graph/graph_file.h"
#include "plan/tier_plan.h"
#include "store/block_store.h"

namespace tg::run {

struct BudgetArgs {
  std::string memory_budget;  // empty: none
  std::optional<double> far_ratio;
  FarTier far = FarTier::kFile;
  std::optional<int> far_node;  // --far numa: the node (default: the farthest from this CPU's)
  std::string profile;          // --profile: a calibrated fetch profile (empty: the defaults)
  bool far_rank_copy =
      false;  // --far rank: copy with MPI_Rget even where the window could be read in place
  bool given() const { return !memory_budget.empty() || far_ratio.has_value(); }
};

// Refuses contradictory options (both a budget and a ratio, --far without either).
void check_budget_options(const BudgetArgs& args, bool far_given);

// What one trial of `algorithm` holds besides edge blocks, and the plan for the rest.
struct PlanInputs {
  std::string_view algorithm;
  PassShape passes;                                       // the kernel's
  uint64_t state_bytes = 0;                               // the kernel's vertex state
  uint64_t index_bytes = 0;                               // the view's block index
  std::function<EngineHolding(uint64_t)> engine_holding;  // the engine's sets (PlanRequest)
  bool weights = false;                                   // its passes read weights
  bool parents = false;         // bfs --parents: a second per-vertex result
  bool result_in_state = true;  // the last trial's result is within state_bytes (not on an MPI
                                // rank: rank 0 gathers a copy)
  uint32_t trials = 1;          // each trial's result is held to the end of the run
  uint32_t threads = 1;
  bool far_in_place = false;  // --far rank, read in place (far_rank_reads_in_place said so)
  // On an MPI rank: its masters [first, end), and what its exchange holds (PlanRequest).
  std::optional<std::pair<uint64_t, uint64_t>> masters;
  uint64_t communication_bytes = 0;
};
TierPlan make_plan(const BudgetArgs& args, const GraphFile& file, const PlanInputs& inputs);
// An MPI rank's share of a run: its masters [first, end), its exchange's buffer bound
// (--exchange-memory) and whether the exchange keeps accumulate inbox windows.
struct RankShare {
  std::pair<uint64_t, uint64_t> masters;
  uint64_t exchange_bytes = 0;
  bool accumulate = false;
};
// The inputs for `kernel` on `view` (its graph file's view of one id width), with the run's
// threads; on an MPI rank, its masters and what its exchange holds for this kernel.
template <typename Kernel, typename View>
PlanInputs plan_inputs(const Kernel& kernel, const View& view, bool weights, bool parents,
                       uint32_t threads, std::optional<RankShare> rank = std::nullopt) {
  const unsigned id_bytes = sizeof(typename View::IdType);
  PlanInputs in{.algorithm = kernel.name,
                .passes = kernel.passes,
                .state_bytes = kernel.state_bytes(view.file(), id_bytes, weights, parents),
                .index_bytes = view.index_bytes(),
                .engine_holding =
                    [n = view.file().num_vertices(), passes = kernel.passes,
                     threads](uint64_t largest_range) {
                      return cpu_engine_holding(n, largest_range, sizeof(typename View::IdType),
                                                passes, threads);
                    },
                .weights = weights,
                .parents = parents,
                .result_in_state = !rank,
                .trials = 1,
                .threads = threads,
                .far_in_place = false,
                .masters = std::nullopt,
                .communication_bytes = 0};
  if (rank) {
    const uint64_t masters = rank->masters.second - rank->masters.first;
    in.masters = rank->masters;
    in.communication_bytes = exchange_holding_bytes(
        view.file().num_vertices(), rank->exchange_bytes,
        kernel.exchange_state(view.file(), id_bytes, weights), rank->accumulate ? masters : 0);
  }
  return in;
}

// Checks every block the plan keeps local and its passes read (structure, and hashes unless
// `hashes` is off), in parallel: a file opened under a budget checks its blocks before their first
// use, and local blocks are never fetched (far ones are checked as they arrive).
void check_local_blocks(const GraphFile& file, const TierPlan& plan, bool hashes, bool weights);

// The stores of a run under a budget: the plan's local blocks from the mapping, the far ones on
// its far tier (file, numa or rank), routed block by block. `composite` is null when no block is
// far (the engine then uses its own mapped store).
struct TieredStores {
  std::unique_ptr<BlockStore> local, far, composite;
  // The far-memory rank waits for the plan whatever it says: with nothing far it is told so, and
  // told the run is over when this goes (a FarRankStore or a RankTransfer holding nothing).
  std::shared_ptr<void> idle_far_rank;
};
struct TierOptions {
  uint32_t io_threads = 1;      // the fetching tiers' own threads
  bool weights = false;         // passes read weights
  bool check_hashes = true;     // blocks' hashes are checked as they arrive
  std::optional<int> far_node;  // numa: the node (default: the farthest)
  bool far_rank_in_place =
      false;  // rank: far_rank_reads_in_place said yes (every process was asked)
};
// out, in: the view's decoders (the local blocks, and the DCSR index the numa tier shares).
TieredStores make_tiered_stores(const TierPlan& plan, std::shared_ptr<const GraphFile> file,
                                const BlockDecoder* out, const BlockDecoder* in,
                                const TierOptions& options);

}  // namespace tg::run
