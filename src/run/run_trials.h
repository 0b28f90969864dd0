// A run's trials of one kernel, as run_algorithm() makes them. A kernel runs on either engine
// (shared memory, or MPI ranks) for every id width and weight type a graph file may have, which
// makes its trials the heaviest templates of the project: all five kernels in one translation
// unit took 5 minutes of one core in a release build and 18 with ASan, while the other core
// had finished everything else. So each kernel's trials compile on their own, in
// run_kernel_<name>.cc, and a build spreads them over the cores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "graph/graph_file.h"
#include "run/run_algorithm.h"

namespace tg::run {

// What a run reports of its stores and memory besides the trials.
struct RunExtras {
  nlohmann::json store;
  nlohmann::json tiers = nlohmann::json::array();
  double check_seconds = 0;  // checking the local blocks (under a budget)
  // the numa tier's memory (on the far node: outside the local budget)
  uint64_t far_node_bytes = 0;
  // Peak RSS less the numa tier's memory, which a budget promises to keep within it; on MPI
  // ranks the largest rank's.
  uint64_t local_peak_rss = 0;
};

// Runs the request's trials of the kernel in row K of kKernels on `file` into `out` and `extras`
// (the request already checked, the kernel known to fit the file). Defined in run_trials_impl.h;
// instantiated once per kernel, each in its run_kernel_<name>.cc, so a kernel added to kKernels
// without its file fails to link.
template <size_t K>
void run_kernel_trials(const RunRequest& request, std::shared_ptr<const GraphFile> file,
                       RunOutcome& out, RunExtras& extras);

}  // namespace tg::run
