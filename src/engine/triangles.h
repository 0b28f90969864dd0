// What a triangle pass hands an algorithm: each triangle of the graph's undirected view once,
// with the arcs stored between each pair of its corners, and what the algorithm gives back: the
// amount the triangle adds at each corner (triangle counting adds 1 at each; the local
// clustering coefficient of a directed graph adds at each corner the arcs of the opposite side).
// The pass returns every vertex's sum. An engine that offers it satisfies IntersectingEngine
// (engine/concept.h); how it finds the triangles (on the CPU engine: degree-ordered lists merged
// pairwise) and how it adds (locally where it can) are its own.
#pragma once

#include <cstdint>

#include "util/host_device.h"

namespace tg {

// The arcs stored between two corners a and b of a triangle, a named before b: a -> b, b -> a,
// or both (every edge of an undirected graph).
enum ArcsBetween : uint8_t { kArcForward = 1, kArcBackward = 2, kArcsBoth = 3 };
// How many arcs that is: 1 or 2.
TG_HOST_DEVICE constexpr int64_t arc_count(uint8_t between) {
  return (between & kArcForward) + (between >> 1);
}

template <typename Id>
struct Triangle {
  Id u, v, w;          // its corners, each triangle once (in an order the engine picks)
  uint8_t uv, uw, vw;  // ArcsBetween each pair, named in that order
};

// What one triangle adds to each of its corners' sums.
struct CornerShares {
  int64_t u, v, w;
};

}  // namespace tg
