// The CPU engine's trials (compiled by g++ at -O3 where the binary has --device gpu: they are
// what the GPU is timed against; -O1 in a release build without it), and the kernel a name asks
// for.
#include "engine/cpu/engine.h"
#include "gpu/kernel_switch.h"
#include "gpu/kernel_view.h"
#include "gpu/trials.h"
#include "util/error.h"

namespace tg::gpu {

size_t kernel_index(const std::string& name) {
  size_t found = SIZE_MAX, k = 0;
  for_each_kernel([&](const auto& kernel) {
    if (found == SIZE_MAX && kernel.answers_to(name)) found = k;
    ++k;
  });
  if (found == SIZE_MAX)
    fail("no kernel is called '{}' (bfs, sssp, wcc, pr, radii, bc, tc, lcc, cdlp)", name);
  return found;
}

namespace {

// One kernel's trials on the CPU engine.
template <size_t K>
TrialsOutput run_cpu_kernel(const std::shared_ptr<const GraphFile>& file, const TrialsRequest& r) {
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

}  // namespace

TrialsOutput run_on_cpu(size_t kernel, const std::shared_ptr<const GraphFile>& file,
                        const TrialsRequest& r) {
  return with_kernel_row(kernel,
                         [&](auto k) { return run_cpu_kernel<decltype(k)::value>(file, r); });
}

}  // namespace tg::gpu
