// The GPU half of tiergraph-gpu when it was built without nvcc (see TG_GPU_CLI_CUDA).
#include "gpu/runs.h"
#include "util/error.h"

namespace tg::gpu {

bool built_with_cuda() { return false; }
nlohmann::json gpu_device_info() {
  fail(
      "--device gpu: this tiergraph-gpu was built without its CUDA half (no nvcc, or configured "
      "without "
      "-DTG_GPU_CLI_CUDA=ON; scripts/gpu_check.sh --build-only builds it), so it cannot use a GPU; "
      "--device gpu-host runs the same engine on the CPU");
}
nlohmann::json gpu_bandwidth_probe(uint64_t) { return gpu_device_info(); }
TrialsOutput run_on_gpu(size_t, const std::shared_ptr<const GraphFile>&, const TrialsRequest&) {
  gpu_device_info();
  return {};
}

}  // namespace tg::gpu
