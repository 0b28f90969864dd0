#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/direction.h"

namespace tg {

struct IterationStats {
  uint64_t iteration = 0;
  Direction direction = Direction::kPush;
  uint64_t frontier_size = 0;
  uint64_t frontier_edges = 0;  // out-edges of the frontier
  uint64_t edges_examined = 0;  // edges the pass actually read
  uint64_t activated = 0;
  double seconds = 0;
};

inline nlohmann::json to_json(const std::vector<IterationStats>& stats) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& s : stats) {
    a.push_back({{"iteration", s.iteration},
                 {"direction", direction_name(s.direction)},
                 {"frontier", s.frontier_size},
                 {"frontier_edges", s.frontier_edges},
                 {"edges_examined", s.edges_examined},
                 {"activated", s.activated},
                 {"seconds", s.seconds}});
  }
  return a;
}

}  // namespace tg
