// BC's trials, compiled apart from the other kernels' (run_trials.h).
#include "run/run_trials_impl.h"

namespace tg::run {

static_assert(std::get<5>(kKernels).name == "bc");
template void run_kernel_trials<5>(const RunRequest&, std::shared_ptr<const GraphFile>, RunOutcome&,
                                   RunExtras&);

}  // namespace tg::run
