// Forests of parent pointers in a vertex array (WCC's Afforest and Shiloach-Vishkin): the walks
// and the hook every engine runs, on the host and inside device kernels alike. Each engine brings
// only its compare-and-swap (std::atomic_ref on the host, libcu++'s on a device).
#pragma once

#include "engine/vertex_array.h"
#include "util/host_device.h"

namespace tg::forest {

// The root of v's tree (pointer jumping; read-only).
template <typename Id>
TG_HOST_DEVICE Id root(VertexArray<Id> parent, Id v) {
  Id r = parent.load(v);
  for (Id up = parent.load(r); up != r; up = parent.load(r)) r = up;
  return r;
}

// v's root, halving the path on the way: each vertex passed points at its grandparent, an
// ancestor in the same tree, so concurrent walks stay valid and later ones are shorter.
template <typename Id>
TG_HOST_DEVICE Id root_halving(VertexArray<Id> parent, Id v) {
  Id x = v, up = parent.load(x);
  for (Id above = parent.load(up); above != up; above = parent.load(up)) {
    parent.store(x, above);
    x = above;
    up = parent.load(x);
  }
  return up;
}

// Joins the trees of u and v, the larger root hooked under the smaller, lock-free: a hook is
// `claim(slot, expected, desired)`, a compare-and-swap on a root's pointer that fails when another
// thread moved that root first (then both walks go on from where the pointers now lead).
template <typename Id, typename Claim>
TG_HOST_DEVICE void link(VertexArray<Id> parent, Id u, Id v, Claim claim) {
  Id a = parent.load(u), b = parent.load(v);
  while (a != b) {
    const Id high = a < b ? b : a, low = a < b ? a : b;
    const Id above = parent.load(high);
    if (above == high && claim(parent[high], high, low)) return;
    a = parent.load(above);
    b = parent.load(low);
  }
}

}  // namespace tg::forest
