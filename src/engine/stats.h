#pragma once

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/direction.h"
#include "engine/schedule.h"

namespace tg {

// A pass's share of one tier's work, when the store has several (local and far).
struct TierPassStats {
  std::string name;
  uint64_t blocks = 0, blocks_partial = 0, bytes = 0, bytes_partial = 0, requests = 0;
  double wait_seconds = 0, request_seconds = 0;
};

struct IterationStats {
  uint64_t iteration = 0;
  Direction direction = Direction::kPush;
  uint64_t frontier_size = 0;
  uint64_t frontier_edges = 0;  // out-edges of the frontier
  uint64_t edges_examined = 0;  // edges the pass actually read
  uint64_t activated = 0;
  double seconds = 0;
  Schedule schedule = Schedule::kVertex;
  const char* schedule_reason = "";  // why (a static string)
  // The block store's share of the pass.
  uint64_t blocks_read = 0;  // leases taken
  uint64_t blocks_skipped =
      0;                       // blocks of the pass's grids not read (no arcs, or no active source)
  uint64_t bytes_fetched = 0;  // copied into local buffers (0 when zero-copy)
  uint64_t blocks_partial = 0;  // of blocks_read, those read as a selection of their entries
  uint64_t bytes_partial = 0;   // of bytes_fetched, those the selections moved
  uint64_t requests = 0;
  double wait_seconds = 0;           // worker time spent waiting for leases
  double request_seconds = 0;        // summed time of the requests
  double compute_seconds = 0;        // the pass's time less its workers' mean wait for leases
  std::vector<TierPassStats> tiers;  // per tier, when the store has more than one
};

// 1 - wait / total request time: the share of fetching hidden behind computing (1 with no fetch),
// from 0 (none hidden) to 1. Waits are summed over workers, and several workers may wait on one
// request, so the waits can exceed the requests' time: that is nothing hidden, 0, not the
// negative share (-2.24 for a far rank) the plain ratio gave.
inline double overlap(double wait_seconds, double request_seconds) {
  return request_seconds > 0 ? 1.0 - std::min(1.0, wait_seconds / request_seconds) : 1.0;
}
inline double overlap(const IterationStats& s) {
  return overlap(s.wait_seconds, s.request_seconds);
}

inline nlohmann::json to_json(const std::vector<IterationStats>& stats) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& s : stats) {
    a.push_back({{"iteration", s.iteration},
                 {"direction", direction_name(s.direction)},
                 {"frontier", s.frontier_size},
                 {"frontier_edges", s.frontier_edges},
                 {"edges_examined", s.edges_examined},
                 {"activated", s.activated},
                 {"seconds", s.seconds},
                 {"schedule", schedule_name(s.schedule)},
                 {"schedule_reason", s.schedule_reason},
                 {"blocks_read", s.blocks_read},
                 {"blocks_skipped", s.blocks_skipped},
                 {"bytes_fetched", s.bytes_fetched},
                 {"blocks_partial", s.blocks_partial},
                 {"bytes_partial", s.bytes_partial},
                 {"blocks_whole", s.blocks_read - s.blocks_partial},
                 {"bytes_whole", s.bytes_fetched - s.bytes_partial},
                 {"requests", s.requests},
                 {"wait_seconds", s.wait_seconds},
                 {"request_seconds", s.request_seconds},
                 {"overlap", overlap(s)},
                 {"compute_seconds", s.compute_seconds}});
    if (!s.tiers.empty()) {
      nlohmann::json tiers = nlohmann::json::array();
      for (const auto& t : s.tiers) {
        tiers.push_back({{"name", t.name},
                         {"blocks_read", t.blocks},
                         {"blocks_partial", t.blocks_partial},
                         {"bytes_fetched", t.bytes},
                         {"bytes_partial", t.bytes_partial},
                         {"requests", t.requests},
                         {"wait_seconds", t.wait_seconds},
                         {"request_seconds", t.request_seconds},
                         {"overlap", overlap(t.wait_seconds, t.request_seconds)}});
      }
      a.back()["tiers"] = std::move(tiers);
    }
  }
  return a;
}

}  // namespace tg
