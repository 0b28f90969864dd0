// What a vertex function may ask of its engine. Every function an algorithm hands to an engine
// (for_each, select, reduce, sample_pass, arc_pass, the map of collect, to_bins' key) is a
// lambda that captures by value and is marked TG_HOST_DEVICE, so that a device engine can run
// it in a kernel; such a lambda cannot hold the engine itself (a reference to host memory), so
// it takes this handle from engine.ops() and calls the engine's per-vertex primitives through it.
//
// Host engines hand out EngineOps, a pointer that forwards each call (the distributed engine's
// combine_at and link keep their replica bookkeeping); the device engine hands out a struct of
// device views whose functions are TG_HOST_DEVICE (engine/cuda/device_ops.h).
#pragma once

#include <cstdint>

#include "engine/vertex_array.h"

namespace tg {

template <typename E>
struct EngineOps {
  E* engine = nullptr;

  uint64_t out_degree(uint64_t v) const { return engine->out_degree(v); }
  // Combines x into a[v] atomically (any vertex, any thread); true if a[v] changed.
  template <typename Op>
  bool combine_at(Op op, VertexArray<typename Op::Value> a, uint64_t v,
                  typename Op::Value x) const {
    return engine->combine_at(op, a, v, x);
  }
  // Writes x to a[v] if it differs (v's own entry, from the thread handling v); true if it did.
  template <typename T>
  bool update(VertexArray<T> a, uint64_t v, T x) const {
    return engine->update(a, v, x);
  }
  // Joins the trees of u and v in a forest of parent pointers.
  template <typename Id>
  void link(VertexArray<Id> parent, Id u, Id v) const {
    engine->link(parent, u, v);
  }
  // The root of v's tree.
  template <typename Id>
  Id root(VertexArray<Id> parent, Id v) const {
    return engine->root(parent, v);
  }
};

}  // namespace tg
