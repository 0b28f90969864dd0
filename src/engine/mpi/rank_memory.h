// What an MPI rank holds for its exchanges besides the engine's own sets, at most: the exchange's
// buffers (--exchange-memory, DistOptions::exchange_bytes), a bitmap of every vertex (the whole
// frontier a pull reads, or a push's targets), and what the algorithm's own exchanges need per
// vertex of the graph (ExchangeState: the source values a pull ships, a forest's copy while the
// ranks merge it); with the accumulate exchange, also its inbox window (engine/mpi/inbox.h: a value
// of at most 8 bytes and a bit per master; the algorithms push with one operator, so one inbox). A
// rank under a memory budget plans for it as hot data (plan/tier_plan.h).
#pragma once

#include <cstdint>

namespace tg {

// Per vertex of the graph, what a kernel's exchanges hold on a rank (the kernel table declares
// it; DistEngine::exchange_held() reports what a run held, and a test holds every kernel
// to its row).
struct ExchangeState {
  // The source values a pull ships (dist_engine.h's pull): the width of the program's source
  // value, 0 when it is the vertex's own id (kSourceIsVertex: BFS ships only the bitmap).
  uint64_t shipped_value_bytes = 0;
  // The copy of a forest the ranks linked into, held while they merge it (merge_forest: WCC).
  uint64_t forest_copy_bytes = 0;
};

inline uint64_t exchange_holding_bytes(uint64_t n, uint64_t exchange_bytes, ExchangeState state,
                                       uint64_t inbox_masters = 0) {
  const uint64_t inbox = inbox_masters * 8 + (inbox_masters + 63) / 64 * 8;
  return exchange_bytes + n * (state.shipped_value_bytes + state.forest_copy_bytes) +
         (n + 63) / 64 * 8 + inbox;
}

}  // namespace tg
