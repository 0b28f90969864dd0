// What the CPU engine holds besides vertex arrays, at most: its declaration, which the planner
// sums with the others' (the kernel's vertex state, the view's index, the MPI exchange's state,
// the store's pool) and which engine tests hold the engine's measured sets to
// (Engine::memory().engine_sets, Engine::peak_pull_scratch_bytes()). An MPI rank runs this
// engine on its share, so a rank declares the same plus its exchange (engine/mpi/rank_memory.h).
#pragma once

#include <algorithm>
#include <cstdint>

#include "plan/pass_shape.h"
#include "plan/tier_plan.h"

namespace tg {

// A block-major pull's slice accumulators: each thread works on one slice at a time and a slice
// lies within one vertex range, so at most `threads` ranges' worth (all n on a 1x1 grid).
inline uint64_t pull_scratch_bytes(uint64_t n, uint64_t largest_range, unsigned id_bytes,
                                   const PassShape& passes, uint32_t threads) {
  const uint64_t live = std::min(n, uint64_t{std::max<uint32_t>(threads, 1)} * largest_range);
  return live * passes.pull_scratch_bytes(id_bytes);
}

// The engine's own sets and a kernel's frontiers (the plan's `frontiers`) on n vertices whose
// largest vertex range has `largest_range` vertices: the claim bitmap, the pull pass's chunks, the
// push buffers (an id per vertex activated in a pass), two frontiers (this pass's and the next,
// each a list of ids or a bitmap) and the pull accumulators. A kernel without frontier lists
// (PageRank's passes run over every vertex and activate none) holds bitmaps only (the claim
// bitmap, a fused pull's next set, one spare): counting lists for it made Kronecker-27 (2^27
// vertices) need 7 GiB where 5.6 do.
inline uint64_t frontier_bytes(uint64_t n, uint64_t largest_range, unsigned id_bytes,
                               const PassShape& passes, uint32_t threads) {
  const uint64_t bitmap = (n + 63) / 64 * 8;
  // The pull pass's balanced chunks: 32 a thread (Adjacency::balanced_chunks).
  const uint64_t chunks = (uint64_t{std::max<uint32_t>(threads, 1)} * 32 + 1) * 8;
  const uint64_t pull = pull_scratch_bytes(n, largest_range, id_bytes, passes, threads);
  if (!passes.frontier_lists) return 3 * bitmap + chunks + pull;
  return bitmap + n * id_bytes + 2 * (n * id_bytes + bitmap) + chunks + pull;
}

// The declaration in the planner's terms, for a grid whose largest range has `largest_range`
// vertices (PlanRequest::engine_holding).
inline EngineHolding cpu_engine_holding(uint64_t n, uint64_t largest_range, unsigned id_bytes,
                                        const PassShape& passes, uint32_t threads) {
  return {.bytes = frontier_bytes(n, largest_range, id_bytes, passes, threads),
          .pull_scratch = pull_scratch_bytes(n, largest_range, id_bytes, passes, threads)};
}

}  // namespace tg
