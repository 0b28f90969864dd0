// Radii's trials, compiled apart from the other kernels' (run_trials.h).
#include "run/run_trials_impl.h"

namespace tg::run {

static_assert(std::get<4>(kKernels).name == "radii");
template void run_kernel_trials<4>(const RunRequest&, std::shared_ptr<const GraphFile>, RunOutcome&,
                                   RunExtras&);

}  // namespace tg::run
