// Combine operators as atomics on device memory, written once with libcu++'s cuda::atomic_ref,
// which compiles to device atomics under nvcc and to host atomics under g++ (the OpenMP
// backend). Min and max run a compare-and-swap loop, which works for every 4- and 8-byte type
// (min on doubles has no hardware atomic); sum and or map to fetch_add and fetch_or.
#pragma once

#include <cstdint>
#include <cuda/atomic>
#include <type_traits>

#include "engine/combine.h"
#include "util/host_device.h"

namespace tg::device {

template <typename T>
using AtomicRef = cuda::atomic_ref<T, cuda::thread_scope_device>;

// Replaces x by m while better(m, x); true if it did.
template <typename T, typename Better>
TG_HOST_DEVICE bool replace_while(T& x, T m, Better better) {
  AtomicRef<T> ref(x);
  T old = ref.load(cuda::memory_order_relaxed);
  while (better(m, old)) {
    if (ref.compare_exchange_weak(old, m, cuda::memory_order_relaxed)) return true;
  }
  return false;
}

struct Less {
  template <typename T>
  TG_HOST_DEVICE bool operator()(T a, T b) const {
    return a < b;
  }
};
struct Greater {
  template <typename T>
  TG_HOST_DEVICE bool operator()(T a, T b) const {
    return b < a;
  }
};

// Combines m into x atomically with the operator's rule; true if x changed.
template <typename T>
TG_HOST_DEVICE bool atomic_combine(MinOp<T>, T& x, T m) {
  return replace_while(x, m, Less{});
}
template <typename T>
TG_HOST_DEVICE bool atomic_combine(MaxOp<T>, T& x, T m) {
  return replace_while(x, m, Greater{});
}
template <typename T>
TG_HOST_DEVICE bool atomic_combine(SumOp<T>, T& x, T m) {
  if (m == T{}) return false;
  AtomicRef<T>(x).fetch_add(m, cuda::memory_order_relaxed);
  return true;
}
template <typename T>
TG_HOST_DEVICE bool atomic_combine(OrOp<T>, T& x, T m) {
  AtomicRef<T> ref(x);
  if ((ref.load(cuda::memory_order_relaxed) | m) == ref.load(cuda::memory_order_relaxed))
    return false;
  const T old = ref.fetch_or(m, cuda::memory_order_relaxed);
  return (old | m) != old;
}

// Sets x from `expected` to m if it still holds `expected`; true if this call did.
template <typename T>
TG_HOST_DEVICE bool atomic_claim(T& x, T expected, T m) {
  return AtomicRef<T>(x).compare_exchange_strong(expected, m, cuda::memory_order_relaxed);
}

}  // namespace tg::device
