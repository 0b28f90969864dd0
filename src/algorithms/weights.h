// How weights become lengths: the distance type of a weight type and an edge's length (its
// weight, or 1 on an unweighted view, as --unit-weights asks), shared by SSSP and its verifier;
// and distances as a result holds them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "algorithms/result.h"
#include "engine/combine.h"
#include "engine/concept.h"
#include "graph/no_weight.h"
#include "util/host_device.h"

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

// An unreached 32-bit distance (the identity) as the result's kUnreached.
struct Unreached32 {
  TG_HOST_DEVICE int64_t operator()(uint32_t d) const {
    return d == MinOp<uint32_t>::identity() ? kUnreached : int64_t{d};
  }
};
// The distances as the result holds them: unreached vertices as the identity (+inf for real
// distances, kUnreached for integers).
template <GraphEngine Engine, typename Dist>
auto collect_distances(Engine& engine, VertexArray<Dist> dist) {
  if constexpr (std::is_same_v<Dist, uint32_t>) {
    return engine.collect(dist, Unreached32{});
  } else {
    return engine.collect(dist);
  }
}

}  // namespace tg
