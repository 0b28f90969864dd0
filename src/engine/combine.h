// Combine operators: how two updates to one vertex merge. An algorithm names one; the engine
// derives every mechanism from it: a relaxed atomic read-modify-write in push mode, a plain local
// reduction in pull mode (and later, MPI_MIN/MPI_SUM accumulates and CUDA atomics).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

namespace tg {

// A plain load of a value other threads may be updating (relaxed: any recent value will do,
// the algorithms converge from either).
template <typename T>
T relaxed_load(const T& x) {
  return std::atomic_ref<T>(const_cast<T&>(x)).load(std::memory_order_relaxed);
}

template <typename T>
struct MinOp {
  using Value = T;
  static constexpr T identity() { return std::numeric_limits<T>::max(); }
  static T combine(T a, T b) { return std::min(a, b); }
  // Lowers x to at most m; true if x changed.
  static bool atomic_combine(T& x, T m) {
    std::atomic_ref<T> ref(x);
    T old = ref.load(std::memory_order_relaxed);
    while (m < old) {
      if (ref.compare_exchange_weak(old, m, std::memory_order_relaxed)) return true;
    }
    return false;
  }
};

template <typename T>
struct SumOp {
  using Value = T;
  static constexpr T identity() { return T{0}; }
  static T combine(T a, T b) { return a + b; }
  static bool atomic_combine(T& x, T m) {
    if (m == T{0}) return false;
    std::atomic_ref<T>(x).fetch_add(m, std::memory_order_relaxed);
    return true;
  }
};

template <typename T>
struct OrOp {
  using Value = T;
  static constexpr T identity() { return T{0}; }
  static T combine(T a, T b) { return a | b; }
  static bool atomic_combine(T& x, T m) {
    std::atomic_ref<T> ref(x);
    if ((ref.load(std::memory_order_relaxed) | m) == ref.load(std::memory_order_relaxed)) return false;
    const T old = ref.fetch_or(m, std::memory_order_relaxed);
    return (old | m) != old;
  }
};

}  // namespace tg
