// One kernel's trials on the device engine over a backend: included by the files that instantiate
// them (run_gpu_<kernel>.cu for CUDA, host_runs.cc for the OpenMP backend).
#pragma once

#include <memory>
#include <tuple>
#include <type_traits>

#include "engine/cuda/device_engine.h"
#include "gpu/runs.h"
#include "gpu/trials.h"
#include "util/error.h"

namespace tg::gpu {

// Per edge pass: the direction, the frontier, the activations and the time (the CPU engine's
// IterationStats and the device engine's DevicePassStats both name these).
template <typename Stats>
nlohmann::json passes_json(const std::vector<Stats>& stats) {
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& s : stats) {
    passes.push_back({{"direction", direction_name(s.direction)},
                      {"frontier_size", s.frontier_size},
                      {"frontier_edges", s.frontier_edges},
                      {"activated", s.activated},
                      {"seconds", s.seconds}});
  }
  return passes;
}

// f(view) with the view the kernel reads: weighted if it reads weights and the file has them
// (SSSP on an unweighted file counts hops, as `tiergraph run` does). 32-bit ids only: a graph of
// more than 2^32 vertices holds more vertex state than one GPU's memory (and compiling the 64-bit
// engines too doubles nvcc's time).
template <typename Kernel, typename F>
TrialsOutput with_view_for(const Kernel& kernel, const std::shared_ptr<const GraphFile>& file,
                           F f) {
  if (file->id_bytes() != 4) {
    fail("'{}' has {} vertices (64-bit ids): tiergraph-gpu runs graphs of at most 2^32 vertices",
         file->path(), file->num_vertices());
  }
  if (!kernel.weighted || !file->weighted()) return f(GraphView<uint32_t, NoWeight>(file));
  switch (file->weight_type()) {
    case format::WeightType::kInt32:
      return f(GraphView<uint32_t, int32_t>(file));
    case format::WeightType::kInt64:
      return f(GraphView<uint32_t, int64_t>(file));
    case format::WeightType::kFloat64:
      return f(GraphView<uint32_t, double>(file));
    default:
      fail("'{}': weights of an unknown type", file->path());
  }
}

template <size_t K, typename Backend>
TrialsOutput run_device_kernel(std::shared_ptr<const GraphFile> file, const TrialsRequest& r) {
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
                                {"peak_vertex_bytes", e.peak_vertex_bytes()}};
        });
  });
}

}  // namespace tg::gpu
