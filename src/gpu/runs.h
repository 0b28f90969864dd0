// What `tiergraph-gpu` runs: a kernel's trials on the CPU engine, on the device engine's OpenMP
// backend (gpu-host) or on its CUDA backend (gpu), and what it can say about the GPU. The CUDA
// half is compiled by nvcc (cuda_runs.cu, run_gpu_<kernel>.cu); without nvcc, no_cuda.cc says so.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gpu/trials.h"
#include "graph/graph_file.h"

namespace tg::gpu {

using device::TrialsOutput;
using device::TrialsRequest;

// The row of kKernels that answers to `name`; fails naming the kernels if none does.
size_t kernel_index(const std::string& name);

TrialsOutput run_on_cpu(size_t kernel, const std::shared_ptr<const GraphFile>& file,
                        const TrialsRequest& r);
TrialsOutput run_on_gpu_host(size_t kernel, const std::shared_ptr<const GraphFile>& file,
                             const TrialsRequest& r);
TrialsOutput run_on_gpu(size_t kernel, const std::shared_ptr<const GraphFile>& file,
                        const TrialsRequest& r);

bool built_with_cuda();
// The GPU in use (name, memory, driver, runtime); fails saying what was looked for if there is
// no usable GPU.
nlohmann::json gpu_device_info();
// Measured copy bandwidths: device to device, pinned host to device and back.
nlohmann::json gpu_bandwidth_probe(uint64_t bytes);

}  // namespace tg::gpu
