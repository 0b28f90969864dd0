// How weights become lengths: the distance type of a weight type and an edge's length (its
// weight, or 1 on an unweighted view, as --unit-weights asks). Shared by SSSP and its verifier.
#pragma once

#include <cstdint>
#include <type_traits>

#include "util/host_device.h"
#include "graph/no_weight.h"

namespace tg {

template <typename W>
using DistanceOf = std::conditional_t<std::is_floating_point_v<W>, double, int64_t>;

template <typename Dist, typename W>
TG_HOST_DEVICE Dist edge_length(W w) {
  if constexpr (std::is_same_v<W, NoWeight>) {
    return Dist{1};
  } else {
    return static_cast<Dist>(w);
  }
}

}  // namespace tg
