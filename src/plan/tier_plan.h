// The planner: given a memory budget (or a far ratio), decides which edge blocks stay in local
// memory and which are placed on a far tier, and sizes the fetch pipeline, before a run reads an
// edge. Vertex state, frontiers, the block index and the result are hot and always local; edge
// blocks are cold, read-only and movable, so they are what a budget trades.
//
// Which blocks stay local: a block kept local saves its bytes from being fetched on every pass
// that reads it, so the planner keeps the blocks a pass is most likely to read, per byte:
//   1. blocks of the grid the algorithm's passes read most, as its kernel declares (PassShape:
//      PageRank pulls every pass, so its in grid; SSSP pushes, so its out grid; BFS, Radii and
//      WCC switch direction, so both);
//   2. within a grid, dense blocks first (most arcs per byte: a selective pass skips a block
//      only when none of its sources is active, and a block with more arcs is read more often);
//   3. then storage order, so the plan is deterministic.
// This is a greedy knapsack on expected bytes saved per byte kept, which is exact when every
// block of a grid is equally likely to be read (PageRank) and a model otherwise.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/graph_file.h"
#include "plan/far_tier.h"
#include "plan/pass_shape.h"
#include "store/block_store.h"
#include "store/fetch_profile.h"

namespace tg {

// The allowance for what a run holds besides its planned classes: the binary, the C++ and
// OpenMP runtimes, thread stacks, the io_uring rings. A budget's promise is peak RSS <= budget
// + this.
inline constexpr uint64_t kFixedOverheadBytes = uint64_t{64} << 20;

// A fetch buffer holds a whole block up to this size (a block read whole is one lease, and only
// whole blocks can be read as selections).
inline constexpr uint64_t kWholeBlockBytes = uint64_t{4} << 20;

// The vertices of the file's largest vertex range.
uint64_t largest_range(const GraphFile& file);

// What the engine holds besides vertex state (its sets and a kernel's frontiers: the plan's
// `frontiers`), as the engine declares it (the CPU engine's: engine/cpu/working_memory.h); of
// that, a block-major pull's accumulators, which a finer grid cuts.
struct EngineHolding {
  uint64_t bytes = 0, pull_scratch = 0;
};

// What a run holds besides edge blocks comes from the component that holds it, each declaring
// its own bound: the kernel its vertex state and result (run/kernels.h), the engine its sets
// (engine_holding), the view its block index, an MPI rank's exchange its buffers
// (engine/mpi/rank_memory.h), the fetching store its pool (CopyingStore::pool_bytes_for, sized
// here). The plan sums them and places edge blocks in the rest.
struct PlanRequest {
  std::string algorithm;            // its name, for messages
  PassShape passes;                 // the grids its passes read, its frontiers (the kernel's)
  uint64_t vertex_state_bytes = 0;  // the kernel's state_bytes(file, id_bytes, weights)
  uint64_t result_bytes = 0;        // the per-vertex result a trial hands back
  uint32_t trials = 1;              // each trial's result is held to the end of the run
  bool result_in_state =
      false;  // the last trial's result is within vertex_state_bytes (its joint peak)
  uint64_t index_bytes = 0;  // the in-memory block index (decoders, DCSR presence)
  // The engine's declaration for a grid whose largest vertex range has this many vertices: asked
  // for the file's grid, and for a finer one to name the cure in a refusal. Unset: none held.
  std::function<EngineHolding(uint64_t largest_range)> engine_holding;
  bool weights = false;             // passes read the weights part
  std::optional<uint64_t> budget;   // --memory-budget
  std::optional<double> far_ratio;  // --far-ratio (give one of the two)
  FarTier far = FarTier::kFile;
  bool far_in_place = false;  // rank: its window is shared memory, read in place (no pipeline)
  uint32_t threads = 1;
  FetchProfile profile;
  uint64_t machine_bytes = 0;  // physical memory (a budget above it is refused); 0: unchecked
  // On an MPI rank: the block rows its passes read, [first, end) (those of the ranges that hold
  // its masters: push reads a source's out row, pull a destination's in row), and what its
  // exchange holds besides the engine's (--exchange-memory, the shipped source values and a
  // frontier bitmap over every vertex). The budget is the rank's own; other ranks' rows are
  // neither local nor far here.
  std::optional<std::pair<uint32_t, uint32_t>> rows;
  uint64_t communication_bytes = 0;
};

struct TierPlan {
  // The local memory classes, in bytes.
  // `result`: what the trials' results add to the vertex state at the last trial's end (the
  // earlier trials' results, and the last one's less what it moved out of the state).
  uint64_t vertex_state = 0, frontiers = 0, index = 0, result = 0, pool = 0, communication = 0;
  uint64_t results_held = 0;  // every trial's result, held after the trials (what a verifier finds)
  uint64_t minimum() const {
    return vertex_state + frontiers + index + result + pool + communication;
  }
  std::optional<uint64_t> budget;
  FarTier far = FarTier::kFile;
  // Edge bytes of the grids the algorithm reads, and how they are placed.
  uint64_t edge_bytes = 0, local_bytes = 0, far_bytes = 0;
  uint64_t local_blocks = 0, far_blocks = 0;
  double far_ratio = 0;  // far_bytes / edge_bytes
  // The fetch pipeline (when any block is far).
  uint32_t buffers = 0, depth = 0;
  uint64_t buffer_bytes = 0;
  uint64_t chunk_bytes =
      0;  // the largest single transfer of a request (the rank tier splits by it)
  double expected_far_bytes_per_pass =
      0;  // sum over far blocks of the share of passes reading them (2 for a pass building
          // lists, which reads each twice) x their bytes
  std::string profile_source;
  std::vector<std::string> reasons;  // the decisions, in words

  bool any_far() const { return far_blocks > 0; }  // of the blocks the passes read
  bool needs_far_tier() const {                    // any block at all is placed far
    for (unsigned char f : far_of_)
      if (f) return true;
    return false;
  }
  bool is_far(const BlockId& b) const { return far_of_[slot(b)] != 0; }
  // Whether this process's passes read the block at all (on an MPI rank: one of its rows).
  bool reads(const BlockId& b) const { return b.major >= first_row_ && b.major < end_row_; }
  uint32_t first_row() const { return first_row_; }
  uint32_t end_row() const { return end_row_; }
  const std::vector<unsigned char>& far_slots() const { return far_of_; }
  nlohmann::json to_json() const;
  std::string describe() const;  // what `tiergraph plan` prints

  // internal
  uint32_t p_ = 1;
  bool directed_ = true;
  uint32_t first_row_ = 0, end_row_ = 1;
  std::vector<unsigned char> far_of_;  // by slot: out grid then in grid, storage order
  uint64_t slot(const BlockId& b) const {
    const bool in = b.grid == Grid::kIn && directed_;
    return (in ? uint64_t{p_} * p_ : 0) + uint64_t{b.major} * p_ + b.minor;
  }
};

// The plan; throws tg::Error when the budget cannot hold the minimum (saying what the minimum is
// and what it is made of), when a budget exceeds the machine, or when the request is malformed.
TierPlan plan_tiers(const GraphFile& file, const PlanRequest& request);

// Physical memory of this machine (sysconf), or its cgroup's limit when that is lower.
uint64_t machine_memory_bytes();

}  // namespace tg
