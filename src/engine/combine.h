// Combine operators: how two updates to one vertex merge. An algorithm names one; the engine
// derives every mechanism from it: a relaxed atomic read-modify-write in push mode, a plain
// local reduction in pull mode, a reduction over vertices (an allreduce across ranks). Each also
// names what an MPI backend (MPI_Accumulate / MPI_Allreduce op) and a CUDA backend (device
// atomic) issue for it, so those backends derive from the same declaration.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "util/host_device.h"

namespace tg {

// The MPI datatype a value travels as. Unsigned types use the fixed-width names: Open MPI 4.1
// treats MPI_UNSIGNED_LONG as signed in MIN/MAX (see shared/PLATFORM.md).
template <typename T>
constexpr const char* mpi_datatype_name() {
  if constexpr (std::is_same_v<T, uint32_t>) return "MPI_UINT32_T";
  else if constexpr (std::is_same_v<T, uint64_t>) return "MPI_UINT64_T";
  else if constexpr (std::is_same_v<T, int32_t>) return "MPI_INT32_T";
  else if constexpr (std::is_same_v<T, int64_t>) return "MPI_INT64_T";
  else if constexpr (std::is_same_v<T, double>) return "MPI_DOUBLE";
  else return "MPI_BYTE";  // composite values (Pair) travel as bytes with a user op
}

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
  static constexpr const char* kMpiOp = "MPI_MIN";
  static constexpr const char* kDeviceAtomic = "atomicMin";
  // Infinity for real values, so an unreached distance is +inf as networkx and numpy print it.
  TG_HOST_DEVICE static constexpr T identity() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  TG_HOST_DEVICE static T combine(T a, T b) { return a < b ? a : b; }
  // Lowers x to at most m; true if x changed.
  static bool atomic_combine(T& x, T m) { return atomic_replace_while(x, m, [](T a, T b) { return a < b; }); }
};

template <typename T>
struct MaxOp {
  using Value = T;
  static constexpr const char* kMpiOp = "MPI_MAX";
  static constexpr const char* kDeviceAtomic = "atomicMax";
  TG_HOST_DEVICE static constexpr T identity() { return std::numeric_limits<T>::lowest(); }
  TG_HOST_DEVICE static T combine(T a, T b) { return a < b ? b : a; }
  static bool atomic_combine(T& x, T m) { return atomic_replace_while(x, m, [](T a, T b) { return b < a; }); }
};

template <typename T>
struct SumOp {
  using Value = T;
  static constexpr const char* kMpiOp = "MPI_SUM";
  static constexpr const char* kDeviceAtomic = "atomicAdd";
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
  static constexpr const char* kMpiOp = "MPI_BOR";
  static constexpr const char* kDeviceAtomic = "atomicOr";
  TG_HOST_DEVICE static constexpr T identity() { return T{0}; }
  TG_HOST_DEVICE static T combine(T a, T b) { return a | b; }
  static bool atomic_combine(T& x, T m) {
    std::atomic_ref<T> ref(x);
    if ((ref.load(std::memory_order_relaxed) | m) == ref.load(std::memory_order_relaxed)) return false;
    const T old = ref.fetch_or(m, std::memory_order_relaxed);
    return (old | m) != old;
  }
};

// Two sums reduced in one pass over the vertices (PageRank's change and dangling rank).
template <typename T>
struct Pair {
  T first{}, second{};
  TG_HOST_DEVICE friend Pair operator+(Pair a, Pair b) { return {a.first + b.first, a.second + b.second}; }
  friend bool operator==(const Pair&, const Pair&) = default;
};

}  // namespace tg
