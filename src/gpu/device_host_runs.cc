// The device engine's trials on its OpenMP backend (gpu-host), compiled by g++: the device
// engine's logic run on any machine. It is checked there, not timed (the CUDA backend is the one
// timed), so the release build compiles this file at -O1 (CMakeLists.txt).
#include "engine/cuda/backend_omp.h"
#include "gpu/kernel_switch.h"
#include "gpu/run_kernel.h"

namespace tg::gpu {

TrialsOutput run_on_gpu_host(size_t kernel, const std::shared_ptr<const GraphFile>& file,
                             const TrialsRequest& r) {
  return with_kernel_row(kernel, [&](auto k) {
    return run_device_kernel<decltype(k)::value, device::OmpBackend>(file, r);
  });
}

}  // namespace tg::gpu
