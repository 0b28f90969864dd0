// lcc's trials, compiled apart from the other kernels' (run_trials.h).
#include "run/run_trials_impl.h"

namespace tg::run {

static_assert(std::get<7>(kKernels).name == "lcc");
template void run_kernel_trials<7>(const RunRequest&, std::shared_ptr<const GraphFile>, RunOutcome&,
                                   RunExtras&);

}  // namespace tg::run
