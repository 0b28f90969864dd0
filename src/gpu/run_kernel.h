// One kernel's trials on the device engine over a backend: included by the files that instantiate
// them (run_gpu_<kernel>.cu for CUDA, device_host_runs.cc for the OpenMP backend).
#pragma once

#include <memory>
#include <tuple>
#include <type_traits>

#include "engine/cuda/device_engine.h"
#include "gpu/kernel_view.h"
#include "gpu/runs.h"
#include "gpu/trials.h"
#include "util/error.h"

namespace tg::gpu {

template <size_t K, typename Backend>
TrialsOutput run_device_kernel(const std::shared_ptr<const GraphFile>& file,
                               const TrialsRequest& r) {
  const auto& kernel = std::get<K>(kKernels);
  return with_view_for(kernel, file, [&](const auto& g) {
    using G = std::decay_t<decltype(g)>;
    using Engine = device::DeviceEngine<typename G::IdType, typename G::WeightType, Backend>;
    return device::run_trials(
        kernel, g, r,
        [&](const G& view) {
          device::DeviceEngineOptions options;
          options.direction = r.direction;
          return std::make_unique<Engine>(view, options);
        },
        [](const Engine& e) { return passes_json(e.stats()); },
        [](const Engine& e) {
          return nlohmann::json{{"backend", Backend::kName},
                                {"graph_bytes_on_device", e.graph_bytes()},
                                {"copy_in_seconds", e.copy_in_seconds()},
                                {"peak_vertex_bytes", e.peak_vertex_bytes()},
                                {"peak_pass_bytes", e.peak_pass_bytes()}};
        });
  });
}

}  // namespace tg::gpu
