#include "run/budget.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "mpi/mpi_runtime.h"
#include "store/composite_store.h"
#include "store/copying_store.h"
#include "store/mapped_store.h"
#include "store/numa_store.h"
#include "store/uring_transfer.h"
#if TG_HAVE_MPI
#include "store/far_rank_store.h"
#include "store/rank_transfer.h"
#endif
#include "util/byte_size.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_names.h"

namespace tg::run {

void check_budget_options(const BudgetArgs& a, bool far_given) {
  const std::string budget = option_name("memory-budget"), ratio = option_name("far-ratio");
  if (!a.memory_budget.empty() && a.far_ratio) fail("give {} or {}, not both", budget, ratio);
  // The command line's validator checks the size as it parses; Python hands the text over as is.
  if (!a.memory_budget.empty()) {
    const auto bytes = parse_byte_size(a.memory_budget);
    if (!bytes || *bytes == 0) {
      fail("{} must be a size above 0 (and below 16 EiB) such as 4096, 64K, 512M or 2G, got '{}'",
           budget, a.memory_budget);
    }
  }
  if (a.far_ratio && !(*a.far_ratio >= 0 && *a.far_ratio <= 1)) {
    fail("{} must be between 0 and 1, got {}", ratio, *a.far_ratio);
  }
  if (!a.given() && far_given)
    fail("{} places blocks under a budget: give {} or {} too", option_name("far"), budget, ratio);
  if (a.far_node && a.far != FarTier::kNuma) {
    fail("{} names the node of the numa tier: give {} too", option_name("far-node"),
         option_with("far", far_tier_name(FarTier::kNuma)));
  }
  if (a.far_rank_copy && a.far != FarTier::kRank) {
    fail("{} says how a far-memory rank is read: give {} too", option_name("far-rank-copy"),
         option_with("far", far_tier_name(FarTier::kRank)));
  }
  if (!a.profile.empty() && !a.given()) {
    fail("{} sizes the fetch pipeline under a budget: give {} or {} too", option_name("profile"),
         budget, ratio);
  }
  if (!a.profile.empty() && a.far != FarTier::kFile && a.far != FarTier::kRank) {
    fail("{} sizes the fetch pipeline of the file and rank tiers; {} fetches nothing",
         option_name("profile"), option_with("far", far_tier_name(a.far)));
  }
}

TierPlan make_plan(const BudgetArgs& a, const GraphFile& file, const PlanInputs& in) {
  PlanRequest r;
  r.algorithm = std::string(in.algorithm);
  r.passes = in.passes;
  r.vertex_state_bytes = in.state_bytes;
  // The result: a value per vertex (8 bytes), and with --parents a parent per vertex.
  r.result_bytes = file.num_vertices() * 8 * (in.parents ? 2 : 1);
  r.result_in_state = in.result_in_state;
  r.trials = in.trials;
  r.index_bytes = in.index_bytes;
  r.engine_holding = in.engine_holding;
  r.weights = in.weights;
  if (!a.memory_budget.empty()) r.budget = parse_byte_size(a.memory_budget);
  r.far_ratio = a.far_ratio;
  r.far = a.far;
  r.threads = in.threads;
  r.far_in_place = in.far_in_place;
  if (!a.profile.empty())
    r.profile = load_fetch_profile(a.profile, std::string(far_tier_name(a.far)));
  r.machine_bytes = machine_memory_bytes();
  if (in.masters) {
    // The rows of the ranges that hold the masters (rank bounds are 64-aligned; ranges need not
    // be).
    const auto ranges = file.ranges();
    auto row_of = [&](uint64_t v) {
      return static_cast<uint32_t>(std::upper_bound(ranges.begin(), ranges.end(), v) -
                                   ranges.begin() - 1);
    };
    const auto [first, end] = *in.masters;
    if (first >= end)
      fail("an MPI rank with no vertices cannot run under a budget: run fewer ranks on {}",
           file.path());
    r.rows = {{row_of(first), row_of(end - 1) + 1}};
    r.communication_bytes = in.communication_bytes;
  }
  return plan_tiers(file, r);
}

void check_local_blocks(const GraphFile& file, const TierPlan& plan, bool hashes, bool weights) {
  struct Local {
    Grid grid;
    uint32_t major, minor;
  };
  std::vector<Local> local;
  const uint32_t p = file.blocks_per_side();
  for (Grid g : {Grid::kOut, Grid::kIn}) {
    if (g == Grid::kIn && !file.directed()) break;
    for (uint32_t i = 0; i < p; ++i)
      for (uint32_t j = 0; j < p; ++j)
        if (plan.reads({g, i, j}) && !plan.is_far({g, i, j})) local.push_back({g, i, j});
  }
  // The first bad block in storage order, whatever the threads' timing.
  std::atomic<int64_t> first_bad{static_cast<int64_t>(local.size())};
  std::string problem;
#pragma omp parallel for schedule(dynamic, 4)
  for (int64_t k = 0; k < static_cast<int64_t>(local.size()); ++k) {
    if (k > first_bad.load(std::memory_order_relaxed)) continue;
    try {
      file.check_block(local[k].grid, local[k].major, local[k].minor, hashes, weights);
    } catch (const Error& e) {
#pragma omp critical(tg_local_blocks)
      if (k < first_bad.load()) {
        first_bad.store(k);
        problem = e.what();
      }
    }
  }
  if (!problem.empty()) throw Error(problem);
}

TieredStores make_tiered_stores(const TierPlan& plan, std::shared_ptr<const GraphFile> file,
                                const BlockDecoder* out, const BlockDecoder* in,
                                const TierOptions& options) {
  TieredStores s;
#if TG_HAVE_MPI
  if (!plan.needs_far_tier()) {
    if (plan.far == FarTier::kRank && options.far_rank_in_place) {
      s.idle_far_rank = std::make_shared<FarRankStore>(file, plan.far_slots(), out, in,
                                                       options.weights, options.check_hashes);
    } else if (plan.far == FarTier::kRank) {
      s.idle_far_rank = std::make_shared<RankTransfer>(*file, plan.far_slots(), 1 << 20);
    }
    return s;
  }
#else
  if (plan.far == FarTier::kRank)
    mpi::refuse_without_mpi(option_with("far", far_tier_name(FarTier::kRank)));
  if (!plan.needs_far_tier()) return s;
#endif
  s.local = std::make_unique<MappedStore>(out, in, file->blocks_per_side());
  if (plan.far == FarTier::kNuma) {
    const NumaNodes nodes = numa_nodes();
    if (!numa_built()) {
      fail(
          "{} binds memory to a node with libnuma, and this build of tiergraph has none (libnuma "
          "was not found when it was built: install libnuma-dev, as scripts/setup.sh does, and "
          "build again)",
          option_with("far", far_tier_name(FarTier::kNuma)));
    }
    if (!nodes.available)
      fail("{} needs NUMA support, and this kernel has none",
           option_with("far", far_tier_name(FarTier::kNuma)));
    const int node = options.far_node.value_or(nodes.farthest);
    if (node == nodes.local) {
      log::info(
          "numa tier: node {} is this CPU's own node{}: the far blocks are placed correctly but "
          "are not far",
          node, nodes.count == 1 ? " (the machine has one node)" : "");
    }
    s.far = std::make_unique<NumaStore>(
        file, [&plan](const BlockId& b) { return plan.is_far(b); }, out, in, node, options.weights,
        options.check_hashes);
#if TG_HAVE_MPI
  } else if (plan.far == FarTier::kRank && options.far_rank_in_place) {
    s.far = std::make_unique<FarRankStore>(file, plan.far_slots(), out, in, options.weights,
                                           options.check_hashes);
#endif
  } else {
    CopyingStoreOptions o;
    o.buffers = plan.buffers;
    o.buffer_bytes = plan.buffer_bytes;
    o.depth = plan.depth;
    o.io_threads = options.io_threads;
    o.with_weights = options.weights;
    o.check_hashes = options.check_hashes;
    std::unique_ptr<Transfer> transfer;
#if TG_HAVE_MPI
    if (plan.far == FarTier::kRank)
      transfer = std::make_unique<RankTransfer>(*file, plan.far_slots(), plan.chunk_bytes);
#endif
    if (!transfer) {
      transfer =
          std::make_unique<UringTransfer>(file->path(), UringTransfer::kMaxRanges * plan.depth);
    }
    s.far = std::make_unique<CopyingStore>(std::move(file), o, std::move(transfer));
  }
  // The plan outlives the stores (the run holds both).
  s.composite = std::make_unique<CompositeStore>(
      std::vector<BlockStore*>{s.local.get(), s.far.get()},
      [&plan](const BlockId& b) -> size_t { return plan.is_far(b) ? 1 : 0; });
  return s;
}

}  // namespace tg::run
