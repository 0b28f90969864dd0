// The device engine's per-vertex primitives (see engine/vertex_ops.h): plain views and device
// atomics, so the vertex functions an algorithm writes run inside kernels (and on the OpenMP
// backend's threads).
#pragma once

#include <cstdint>

#include "engine/cuda/atomics.h"
#include "engine/vertex_array.h"

namespace tg::device {

template <typename Id>
struct DeviceOps {
  const uint64_t* degree = nullptr;  // out-degrees, in device memory

  TG_HOST_DEVICE uint64_t out_degree(uint64_t v) const { return degree[v]; }
  template <typename Op>
  TG_HOST_DEVICE bool combine_at(Op op, VertexArray<typename Op::Value> a, uint64_t v, typename Op::Value x) const {
    return atomic_combine(op, a[v], x);
  }
  template <typename T>
  TG_HOST_DEVICE bool update(VertexArray<T> a, uint64_t v, T x) const {
    if (a[v] == x) return false;
    a[v] = x;
    return true;
  }
  // The larger root hooked under the smaller by a compare-and-swap on the root's pointer, as the
  // host engines link.
  TG_HOST_DEVICE void link(VertexArray<Id> parent, Id u, Id v) const {
    Id a = parent.load(u), b = parent.load(v);
    while (a != b) {
      const Id high = a < b ? b : a, low = a < b ? a : b;
      const Id above = parent.load(high);
      if (above == high && atomic_claim(parent[high], high, low)) return;
      a = parent.load(above);
      b = parent.load(low);
    }
  }
  TG_HOST_DEVICE Id root(VertexArray<Id> parent, Id v) const {
    Id r = parent.load(v);
    for (Id up = parent.load(r); up != r; up = parent.load(r)) r = up;
    return r;
  }
  // v's root, each vertex passed pointed at its grandparent (an ancestor: concurrent walks stay valid).
  TG_HOST_DEVICE Id root_halving(VertexArray<Id> parent, Id v) const {
    Id x = v, up = parent.load(x);
    for (Id above = parent.load(up); above != up; above = parent.load(up)) {
      parent.store(x, above);
      x = above;
      up = parent.load(x);
    }
    return up;
  }
};

}  // namespace tg::device
