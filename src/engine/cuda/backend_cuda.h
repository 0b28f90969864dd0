// The device engine's GPU backend: Thrust's CUDA system (nvcc only). Memory is plain device
// memory (cudaMalloc through Thrust's allocator), never managed memory.
#pragma once

#if !defined(__CUDACC__)
#error "engine/cuda/backend_cuda.h is compiled by nvcc only"
#endif

#include <cuda_runtime.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/cuda/vector.h>

#include <new>

#include "util/error.h"

namespace tg::device {

struct CudaBackend {
  static constexpr const char* kName = "gpu";
  static constexpr bool kIsGpu = true;
  template <typename T>
  using Vector = thrust::cuda::vector<T>;
  static auto policy() { return thrust::cuda::par; }
  static void* obtain(size_t bytes) {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) throw std::bad_alloc();
    return p;
  }
  static void release(void* p) { cudaFree(p); }
  // Waits for the device; a kernel's error (an illegal address, say) surfaces here.
  static void synchronize() { check(cudaDeviceSynchronize()); }
  static void to_device(void* device, const void* host, size_t bytes) {
    check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  }
  static void to_host(void* host, const void* device, size_t bytes) {
    check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
  }
  static void check(cudaError_t e) {
    if (e != cudaSuccess) fail("CUDA: {}", cudaGetErrorString(e));
  }
};

}  // namespace tg::device
