// Vertex state the engine owns and places. A program holds VertexArray views, never the
// storage: a view is three words (where vertex 0's value would be, the first id held, the count)
// that copy freely to a worker thread, a rank or a device; `[]` is one load. Where the storage
// lives (DRAM today; a NUMA node, an MPI window or device memory later) is the engine's choice,
// not the program's.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "util/host_device.h"

namespace tg {

template <typename T>
struct VertexArray {
  static_assert(std::is_trivially_copyable_v<T>,
                "vertex values are copied between threads, ranks and devices");
  // The address vertex 0's value would have: `[]` is then one load with a scaled index, no
  // subtraction (a subtraction per access kept a register per array busy in the engine's
  // loops and cost PageRank 20%). An integer, so forming it is defined even when first > 0.
  uintptr_t origin = 0;
  uint64_t first = 0;  // the first vertex id held
  uint64_t count = 0;

  static VertexArray over(T* values, uint64_t first_id, uint64_t n) {
    return {reinterpret_cast<uintptr_t>(values) - first_id * sizeof(T), first_id, n};
  }
  T* data() const { return reinterpret_cast<T*>(origin + first * sizeof(T)); }
  TG_HOST_DEVICE T& operator[](uint64_t v) const {
    return *reinterpret_cast<T*>(origin + v * sizeof(T));
  }
  TG_HOST_DEVICE uint64_t size() const { return count; }
  // A read or write of a value other threads may be combining into at the same time (relaxed:
  // every algorithm here converges from any recent value). Plain moves on x86, but race-free.
  TG_HOST_DEVICE T load(uint64_t v) const {
#if defined(__CUDA_ARCH__)
    return *const_cast<const volatile T*>(&(*this)[v]);
#else
    return std::atomic_ref<T>((*this)[v]).load(std::memory_order_relaxed);
#endif
  }
  TG_HOST_DEVICE void store(uint64_t v, T x) const {
#if defined(__CUDA_ARCH__)
    *const_cast<volatile T*>(&(*this)[v]) = x;
#else
    std::atomic_ref<T>((*this)[v]).store(x, std::memory_order_relaxed);
#endif
  }
};

// The owner of one vertex array's values in DRAM: a std::vector, so that collect() can hand the
// values to the result without a copy. (Huge pages were tried: on these VMs first-touching a
// huge-page mapping cost more than the TLB misses it saved on a BFS.)
class VertexStorage {
 public:
  template <typename T>
  static VertexStorage of(uint64_t n, T init) {
    auto values = std::make_shared<std::vector<T>>(n > 0 ? n : 1, init);  // never a null data()
    VertexStorage s;
    s.data_ = values->data();
    s.bytes_ = values->size() * sizeof(T);
    s.owner_ = std::move(values);
    return s;
  }
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  // The values, moved out; the storage is empty afterwards.
  template <typename T>
  std::vector<T> take() {
    std::vector<T> values = std::move(*static_cast<std::vector<T>*>(owner_.get()));
    owner_.reset();
    data_ = nullptr;
    bytes_ = 0;
    return values;
  }

 private:
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace tg
