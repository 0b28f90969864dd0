// The device engine's host backend: Thrust's OpenMP system. The engine's passes are Thrust
// algorithms over index ranges and libcu++ atomics, so the same text that runs in CUDA kernels
// runs here on the CPU's threads: CI tests the device engine's logic on every run without a GPU,
// and `--device gpu-host` runs it anywhere.
#pragma once

#include <thrust/system/omp/execution_policy.h>
#include <thrust/system/omp/vector.h>

#include <cstring>

namespace tg::device {

struct OmpBackend {
  static constexpr const char* kName = "gpu-host";
  static constexpr bool kIsGpu = false;
  template <typename T>
  using Vector = thrust::omp::vector<T>;
  static auto policy() { return thrust::omp::par; }
  static void* obtain(size_t bytes) { return ::operator new(bytes); }
  static void release(void* p) { ::operator delete(p); }
  static void synchronize() {}
  static void to_device(void* device, const void* host, size_t bytes) {
    std::memcpy(device, host, bytes);
  }
  static void to_host(void* host, const void* device, size_t bytes) {
    std::memcpy(host, device, bytes);
  }
};

}  // namespace tg::device
