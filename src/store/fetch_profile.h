// What the planner knows of this machine's far tiers: the request size and depth at which each
// reads well. `tiergraph calibrate` measures bandwidth and latency per chunk size, depth and
// reading threads, chooses from them, and writes a profile; `run`/`plan --profile FILE` read it.
// Without one, the defaults below hold (measured on the development machine, and named so in
// every plan).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tg {

struct FetchProfile {
  std::string source = "default";     // "default" or the profile file's path
  uint64_t chunk_bytes = 4ull << 20;  // the preferred buffer (a piece) size
  uint64_t smallest_chunk =
      256 << 10;  // below it the per-request cost dominates (bench/results/pieces)
  uint32_t depth =
      4;  // requests in flight (overlap 0.99 at depth 4: bench/results/store-overlap.md)
};

// One measurement: `threads` readers, each with `depth` requests of `chunk_bytes` in flight.
struct FetchPoint {
  uint64_t chunk_bytes = 0;
  uint32_t depth = 1, threads = 1;
  double bytes_per_second = 0;
  double latency_seconds = 0;  // a request's mean time, start to completion
  uint64_t requests = 0;
};

// A tier's measurements and what they choose: the smallest chunk whose best bandwidth is within
// 10% of the best of all, the smallest depth reaching 90% of that chunk's best, and as the
// smallest chunk the planner may shrink to, the smallest reaching half the best bandwidth.
struct TierProfile {
  std::string tier;                // file or rank
  std::string where;               // what was measured (the file's directory, the transport)
  std::vector<FetchPoint> points;  // threads == 1 over chunks x depths, then thread scaling
  FetchProfile chosen;
};
FetchProfile choose_fetch_profile(const std::vector<FetchPoint>& points);

nlohmann::json profile_to_json(const std::vector<TierProfile>& tiers);
// The chosen fetch profile of `tier` in the profile file at `path`; throws tg::Error naming the
// file and what is wrong (unreadable, not a profile, no such tier, a value out of range).
FetchProfile load_fetch_profile(const std::string& path, const std::string& tier);

}  // namespace tg
