// Combine operators: how two updates to one vertex merge. An algorithm names one; the engine
// derives every mechanism from it: a relaxed atomic read-modify-write in push mode, a plain
// local reduction in pull mode, a reduction over vertices (an allreduce across ranks). What each
// backend issues for an operator is that backend's trait of it (engine/mpi/ops.h: the MPI
// reduction; engine/cuda/atomics.h: the device atomic), written only for these four, so an
// operator a backend does not know fails to compile there.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "util/host_device.h"

namespace tg {

// Replaces x by m for as long as better(m, x) holds (a compare-and-swap loop); true if it did.
template <typename T, typename Better>
bool atomic_replace_while(T& x, T m, Better better) {
  std::atomic_ref<T> ref(x);
  T old = ref.load(std::memory_order_relaxed);
  while (better(m, old)) {
    if (ref.compare_exchange_weak(old, m, std::memory_order_relaxed)) return true;
  }
  return false;
}

template <typename T>
struct MinOp {
  using Value = T;
  // Infinity for real values, so an unreached distance is +inf as networkx and numpy print it.
  TG_HOST_DEVICE static constexpr T identity() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  }
  TG_HOST_DEVICE static T combine(T a, T b) { return a < b ? a : b; }
  // Lowers x to at most m; true if x changed.
  static bool atomic_combine(T& x, T m) {
    return atomic_replace_while(x, m, [](T a, T b) { return a < b; });
  }
};

template <typename T>
struct MaxOp {
  using Value = T;
  TG_HOST_DEVICE static constexpr T identity() { return std::numeric_limits<T>::lowest(); }
  TG_HOST_DEVICE static T combine(T a, T b) { return a < b ? b : a; }
  static bool atomic_combine(T& x, T m) {
    return atomic_replace_while(x, m, [](T a, T b) { return b < a; });
  }
};

template <typename T>
struct SumOp {
  using Value = T;
  TG_HOST_DEVICE static constexpr T identity() { return T{}; }
  TG_HOST_DEVICE static T combine(T a, T b) { return a + b; }
  static bool atomic_combine(T& x, T m) {
    if (m == T{}) return false;
    std::atomic_ref<T>(x).fetch_add(m, std::memory_order_relaxed);
    return true;
  }
};

template <typename T>
struct OrOp {
  using Value = T;
  TG_HOST_DEVICE static constexpr T identity() { return T{0}; }
  TG_HOST_DEVICE static T combine(T a, T b) { return a | b; }
  static bool atomic_combine(T& x, T m) {
    std::atomic_ref<T> ref(x);
    if ((ref.load(std::memory_order_relaxed) | m) == ref.load(std::memory_order_relaxed))
      return false;
    const T old = ref.fetch_or(m, std::memory_order_relaxed);
    return (old | m) != old;
  }
};

// Two sums reduced in one pass over the vertices (PageRank's change and dangling rank).
template <typename T>
struct Pair {
  T first{}, second{};
  TG_HOST_DEVICE friend Pair operator+(Pair a, Pair b) {
    return {a.first + b.first, a.second + b.second};
  }
  friend bool operator==(const Pair&, const Pair&) = default;
};

}  // namespace tg
