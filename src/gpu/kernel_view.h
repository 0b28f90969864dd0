// What the CPU and the device engine's trials share in tiergraph-gpu: the view a kernel reads of a
// file, and the per-pass stats as JSON. Apart from run_kernel.h so that host_runs.cc (the CPU
// engine) does not parse the device engine and Thrust: with them clang-tidy took 79 s over it.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/direction.h"
#include "gpu/runs.h"
#include "graph/graph_file.h"
#include "graph/graph_view.h"
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
                      {"edges_examined", s.edges_examined},
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

}  // namespace tg::gpu
