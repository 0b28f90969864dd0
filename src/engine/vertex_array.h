// Vertex state the engine owns and places. A program holds VertexArray views, never the
// storage: a view is three words (pointer, first id, size) that copy freely to a worker thread,
// a rank or a device; `[]` is one subtraction and one load. Where the storage lives (DRAM today;
// a NUMA node, an MPI window or device memory later) is the engine's choice, not the program's.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>

#include "engine/device.h"

namespace tg {

template <typename T>
struct VertexArray {
  static_assert(std::is_trivially_copyable_v<T>, "vertex values are copied between threads, ranks and devices");
  T* data = nullptr;
  uint64_t first = 0;  // the first vertex id held
  uint64_t count = 0;

  TG_HOST_DEVICE T& operator[](uint64_t v) const { return data[v - first]; }
  TG_HOST_DEVICE uint64_t size() const { return count; }
  // A read or write of a value other threads may be combining into at the same time (relaxed:
  // every algorithm here converges from any recent value). Plain moves on x86, but race-free.
  TG_HOST_DEVICE T load(uint64_t v) const {
#if defined(__CUDA_ARCH__)
    return *const_cast<const volatile T*>(&data[v - first]);
#else
    return std::atomic_ref<T>(data[v - first]).load(std::memory_order_relaxed);
#endif
  }
  TG_HOST_DEVICE void store(uint64_t v, T x) const {
#if defined(__CUDA_ARCH__)
    *const_cast<volatile T*>(&data[v - first]) = x;
#else
    std::atomic_ref<T>(data[v - first]).store(x, std::memory_order_relaxed);
#endif
  }
};

// One block of DRAM for a vertex array. Large arrays are mapped and asked for transparent huge
// pages: random vertex loads are the engine's dominant cost and huge pages cut their TLB misses.
class VertexStorage {
 public:
  explicit VertexStorage(size_t bytes) : bytes_(bytes) {
    if (bytes_ >= kHugeThreshold) {
      void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      madvise(p, bytes_, MADV_HUGEPAGE);
      data_ = p;
      mapped_ = true;
    } else {
      data_ = std::aligned_alloc(64, (bytes_ + 63) / 64 * 64 + 64);
      if (!data_) throw std::bad_alloc();
    }
  }
  ~VertexStorage() {
    if (mapped_) munmap(data_, bytes_);
    else std::free(data_);
  }
  VertexStorage(const VertexStorage&) = delete;
  VertexStorage& operator=(const VertexStorage&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  static constexpr size_t kHugeThreshold = size_t{4} << 20;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  bool mapped_ = false;
};

}  // namespace tg
