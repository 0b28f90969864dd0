// lcc's trials on the device engine's CUDA backend, compiled apart from the other kernels' (nvcc
// takes minutes a kernel; apart, they build in parallel).
#include "engine/cuda/backend_cuda.h"
#include "gpu/run_kernel.h"

namespace tg::gpu {

static_assert(std::get<7>(kKernels).name == "lcc");
template TrialsOutput run_device_kernel<7, device::CudaBackend>(
    const std::shared_ptr<const GraphFile>&, const TrialsRequest&);

}  // namespace tg::gpu
