// The device engine's per-vertex primitives (see engine/cpu/vertex_ops.h): plain views and device
// atomics, so the vertex functions an algorithm writes run inside kernels (and on the OpenMP
// backend's threads).
#pragma once

#include <cstdint>

#include "engine/cuda/atomics.h"
#include "engine/forest.h"
#include "engine/vertex_array.h"

namespace tg::device {

template <typename Id>
struct DeviceOps {
  const uint64_t* degree = nullptr;  // out-degrees, in device memory

  TG_HOST_DEVICE uint64_t out_degree(uint64_t v) const { return degree[v]; }
  template <typename Op>
  TG_HOST_DEVICE bool combine_at(Op op, VertexArray<typename Op::Value> a, uint64_t v,
                                 typename Op::Value x) const {
    return atomic_combine(op, a[v], x);
  }
  template <typename T>
  TG_HOST_DEVICE bool update(VertexArray<T> a, uint64_t v, T x) const {
    if (a[v] == x) return false;
    a[v] = x;
    return true;
  }
  // The forest primitives every engine shares (engine/forest.h), hooking with a device
  // compare-and-swap (a lambda in a host-device function is host-device itself).
  TG_HOST_DEVICE void link(VertexArray<Id> parent, Id u, Id v) const {
    forest::link(parent, u, v, [](Id& slot, Id expected, Id desired) {
      return atomic_claim(slot, expected, desired);
    });
  }
  TG_HOST_DEVICE Id root(VertexArray<Id> parent, Id v) const { return forest::root(parent, v); }
  TG_HOST_DEVICE Id root_halving(VertexArray<Id> parent, Id v) const {
    return forest::root_halving(parent, v);
  }
};

}  // namespace tg::device
