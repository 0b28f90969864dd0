// What an MPI rank holds for its exchanges besides the engine's own sets, at most: the exchange's
// buffers (--exchange-memory, DistOptions::exchange_bytes), the source values a pull ships (8
// bytes a vertex at most: dist_engine.h's pull), a bitmap of every vertex (the whole frontier a
// pull reads) and a copy of a forest while the ranks merge it (an id a vertex: merge_forest). A
// rank under a memory budget plans for it as hot data (plan/tier_plan.h).
#pragma once

#include <cstdint>

namespace tg {

inline uint64_t exchange_holding_bytes(uint64_t n, uint64_t exchange_bytes) {
  return exchange_bytes + n * 8 + (n + 63) / 64 * 8 + n * 8;
}

}  // namespace tg
