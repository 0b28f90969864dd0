// What an MPI rank holds for its exchanges besides the engine's own sets, at most: the exchange's
// buffers (--exchange-memory, DistOptions::exchange_bytes), the source values a pull ships (8
// bytes a vertex at most: dist_engine.h's pull), a bitmap of every vertex (the whole frontier a
// pull reads) and a copy of a forest while the ranks merge it (an id a vertex: merge_forest); with
// the accumulate exchange, also its inbox window (dist/inbox.h: a value of at most 8 bytes and a
// bit per master; the algorithms push with one operator, so one inbox). A rank under a memory
// budget plans for it as hot data (plan/tier_plan.h).
#pragma once

#include <cstdint>

namespace tg {

inline uint64_t exchange_holding_bytes(uint64_t n, uint64_t exchange_bytes, uint64_t inbox_masters = 0) {
  const uint64_t inbox = inbox_masters * 8 + (inbox_masters + 63) / 64 * 8;
  return exchange_bytes + n * 8 + (n + 63) / 64 * 8 + n * 8 + inbox;
}

}  // namespace tg
