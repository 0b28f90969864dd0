// The types the CPU engine's API takes and returns: its options, a pass's options, the changed
// lists a two-phase pass hands from combine to apply, and the memory a run holds by class.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/cpu/frontier.h"
#include "engine/direction.h"
#include "engine/schedule.h"
#include "engine/stats.h"
#include "store/block_store.h"

namespace tg {

struct EngineOptions {
  Direction direction = Direction::kAuto;
  // The automatic direction's thresholds (engine/direction.h says the rule).
  double alpha = 15.0;
  double beta = 18.0;
  double pull_share = 0.5;
  bool record_stats = true;
  // Passes with less work than this (vertices + their edges) run on one thread: waking the team
  // costs more than a road graph's thousands of tiny levels.
  uint64_t serial_work = 4096;
  // Run every edge pass as combine_pass then apply_pass (what a relaxed barrier between ranks
  // needs) instead of the fused form; results are the same, which the tests check.
  bool two_phase = false;
  // Vertex-major or block-major edge passes (see schedule.h for auto's rule).
  Schedule schedule = Schedule::kAuto;
  // Where edge blocks come from; null: the mapped file (zero-copy). Not owned.
  BlockStore* store = nullptr;
  // The vertices this engine masters, [first, end): its vertex passes, pull targets, `all()`
  // and collect's map cover only these (an MPI rank's share; see engine/mpi/dist_engine.h). Push
  // still combines into any vertex. Bounds are multiples of 64 (bitmap words stay one rank's).
  struct VertexRange {
    uint64_t first = 0, end = UINT64_MAX;
  } owned{};
  // Worker threads of every parallel region the engine runs; 0: the caller's OpenMP setting.
  // A store's I/O threads are its own and not counted here (CopyingStoreOptions::io_threads).
  int threads = 0;
  // Called at the start of every edge pass (direction and schedule chosen, nothing read yet)
  // and at its end (with its figures): statistics, progress, a planner. Either may be empty.
  struct PassHooks {
    std::function<void(const IterationStats&)> begin, end;
  } hooks{};
};

// What a pass restricts itself to besides the frontier.
template <typename Id>
struct PassOptions {
  Direction direction = Direction::kAuto;  // kAuto: the engine's choice; --direction still wins
  const Frontier<Id>* targets = nullptr;   // only these vertices receive messages
};

// The vertices a combine pass changed, per worker, waiting for apply_pass.
template <typename Id>
struct Changed {
  std::vector<std::vector<Id>> lists;
  bool claimed = false;  // the vertices hold a claim bit that apply_pass clears
  IterationStats stats;
  uint64_t explored = 0;
  uint64_t previous_size = 0;
  double combine_seconds = 0;
};

// The memory a run holds besides the mapped file, by class: what a tier's budget counts.
struct MemoryUse {
  uint64_t vertex_state = 0;       // the program's vertex arrays, now
  uint64_t vertex_state_peak = 0;  // and at most so far (a kernel's state_bytes promises this)
  uint64_t engine_sets = 0;  // the engine's own: claim bitmap, per-thread push buffers, slices
  uint64_t block_index = 0;  // block decoders and the DCSR presence index
  uint64_t store_pool = 0;   // the block store's buffers
  uint64_t total() const { return vertex_state + engine_sets + block_index + store_pool; }
};

}  // namespace tg
