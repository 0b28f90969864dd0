// The GPU half of tiergraph-gpu (nvcc): the device in use, copy bandwidths, and the dispatch of a
// kernel's trials to the CUDA backend after checking that the graph fits the device's memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/cuda/backend_cuda.h"
#include "gpu/kernel_switch.h"
#include "gpu/run_kernel.h"
#include "util/error.h"
#include "util/timer.h"

namespace tg::gpu {

extern template TrialsOutput run_device_kernel<0, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);
extern template TrialsOutput run_device_kernel<1, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);
extern template TrialsOutput run_device_kernel<2, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);
extern template TrialsOutput run_device_kernel<3, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);
extern template TrialsOutput run_device_kernel<4, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);
extern template TrialsOutput run_device_kernel<5, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);
extern template TrialsOutput run_device_kernel<6, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);
extern template TrialsOutput run_device_kernel<7, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);
extern template TrialsOutput run_device_kernel<8, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail("CUDA: {}: {}", what, cudaGetErrorString(e));
}
}  // namespace

bool built_with_cuda() { return true; }

nlohmann::json gpu_device_info() {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    fail(
        "--device gpu: no usable GPU: looked for an NVIDIA GPU through the CUDA runtime "
        "(cudaGetDeviceCount: {}); "
        "--device gpu-host runs the same engine on the CPU",
        e == cudaSuccess ? "0 devices" : cudaGetErrorString(e));
  }
  int device = 0, driver = 0, runtime = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  size_t free = 0, total = 0;
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return {{"name", p.name},
          {"compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor)},
          {"multiprocessors", p.multiProcessorCount},
          {"l2_bytes", p.l2CacheSize},
          {"memory_bytes", total},
          {"free_bytes", free},
          {"driver_version", driver},
          {"runtime_version", runtime}};
}

nlohmann::json gpu_bandwidth_probe(uint64_t bytes) {
  gpu_device_info();
  void *a = nullptr, *b = nullptr, *host = nullptr;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMallocHost(&host, bytes), "cudaMallocHost");
  check(cudaMemset(a, 1, bytes), "cudaMemset");
  std::memset(host, 2, bytes);
  // Best of five of each copy (the first warms the path).
  auto best = [&](auto copy) {
    double fastest = 1e30;
    for (int k = 0; k < 5; ++k) {
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      Timer t;
      copy();
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      fastest = std::min(fastest, t.seconds());
    }
    return static_cast<double>(bytes) / fastest / 1e9;
  };
  const double d2d =
      best([&] { check(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "device to device"); });
  const double h2d = best(
      [&] { check(cudaMemcpy(a, host, bytes, cudaMemcpyHostToDevice), "pinned host to device"); });
  const double d2h = best(
      [&] { check(cudaMemcpy(host, a, bytes, cudaMemcpyDeviceToHost), "device to pinned host"); });
  cudaFree(a);
  cudaFree(b);
  cudaFreeHost(host);
  // A device-to-device copy reads and writes each byte: the memory moved twice the bytes.
  return {{"bytes", bytes},
          {"device_to_device_gb_s", 2 * d2d},
          {"pinned_host_to_device_gb_s", h2d},
          {"device_to_pinned_host_gb_s", d2h}};
}

TrialsOutput run_on_gpu(size_t kernel, const std::shared_ptr<const GraphFile>& file,
                        const TrialsRequest& r) {
  const nlohmann::json info = gpu_device_info();
  // The graph's blocks and the kernel's vertex state must fit what is free (part 2 streams
  // larger graphs); the engine's own sets take about 16 bytes a vertex beside them, and a list
  // pass's lists as the device engine builds them.
  uint64_t state = 0;
  for_each_kernel([&, k = size_t{0}](const auto& kk) mutable {
    if (k++ != kernel) return;
    state = kk.state_bytes(*file, file->id_bytes(), kk.weighted && file->weighted(),
                           false);  // no parents on the GPU
    const uint64_t n = file->num_vertices(), arcs = file->num_arcs();
    if (kk.passes.triangles) state += device::oriented_lists_bytes(n, arcs);
    if (kk.passes.gathers)
      state += device::neighbour_lists_bytes(n, arcs, file->directed(), file->id_bytes());
  });
  const uint64_t blocks = file->file_bytes(), sets = 16 * file->num_vertices();
  const uint64_t free = info["free_bytes"].get<uint64_t>();
  if (blocks + state + sets > free) {
    fail(
        "'{}' needs about {} bytes on the GPU ({} of blocks, {} of vertex state and lists, {} "
        "of engine sets), but {} has {} free; "
        "streaming larger graphs through the device is not built yet",
        file->path(), blocks + state + sets, blocks, state, sets, info["name"].get<std::string>(),
        free);
  }
  TrialsOutput out = with_kernel_row(kernel, [&](auto k) {
    return run_device_kernel<decltype(k)::value, device::CudaBackend>(file, r);
  });
  out.report["device"] = info;
  return out;
}

}  // namespace tg::gpu
