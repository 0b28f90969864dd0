// The CPU engine's and the device engine's OpenMP backend's trials (compiled by g++).
#include "engine/cpu/engine.h"
#include "engine/cuda/backend_omp.h"
#include "gpu/run_kernel.h"
#include "util/error.h"

namespace tg::gpu {

size_t kernel_index(const std::string& name) {
  size_t found = SIZE_MAX, k = 0;
  for_each_kernel([&](const auto& kernel) {
    if (found == SIZE_MAX && kernel.answers_to(name)) found = k;
    ++k;
  });
  if (found == SIZE_MAX) fail("no kernel is called '{}' (bfs, sssp, wcc, pr, radii)", name);
  return found;
}

namespace {

// One kernel's trials on the CPU engine.
template <size_t K>
TrialsOutput run_cpu_kernel(std::shared_ptr<const GraphFile> file, const TrialsRequest& r) {
  const auto& kernel = std::get<K>(kKernels);
  return with_view_for(kernel, file, [&](const auto& g) {
    using G = std::decay_t<decltype(g)>;
    using CpuEngine = Engine<typename G::IdType, typename G::WeightType>;
    return device::run_trials(
        kernel, g, r,
        [&](const G& view) {
          EngineOptions options;
          options.direction = r.direction;
          options.threads = r.threads;
          return std::make_unique<CpuEngine>(view, options);
        },
        [](CpuEngine& e) { return passes_json(e.stats()); },
        [&](const CpuEngine&) {
          return nlohmann::json{{"backend", "cpu"}, {"threads", r.threads}};
        });
  });
}

template <typename Run>
TrialsOutput by_index(size_t k, Run run) {
  switch (k) {
    case 0:
      return run(std::integral_constant<size_t, 0>{});
    case 1:
      return run(std::integral_constant<size_t, 1>{});
    case 2:
      return run(std::integral_constant<size_t, 2>{});
    case 3:
      return run(std::integral_constant<size_t, 3>{});
    case 4:
      return run(std::integral_constant<size_t, 4>{});
    default:
      fail("internal: kernel {} out of range", k);
  }
}
static_assert(std::tuple_size_v<decltype(kKernels)> == 5, "a new kernel needs a case above");
}  // namespace

TrialsOutput run_on_cpu(size_t kernel, const std::shared_ptr<const GraphFile>& file,
                        const TrialsRequest& r) {
  return by_index(kernel, [&](auto k) { return run_cpu_kernel<decltype(k)::value>(file, r); });
}

TrialsOutput run_on_gpu_host(size_t kernel, const std::shared_ptr<const GraphFile>& file,
                             const TrialsRequest& r) {
  return by_index(kernel, [&](auto k) {
    return run_device_kernel<decltype(k)::value, device::OmpBackend>(file, r);
  });
}

}  // namespace tg::gpu
