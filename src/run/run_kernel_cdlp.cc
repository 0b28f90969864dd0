// cdlp's trials, compiled apart from the other kernels' (run_trials.h).
#include "run/run_trials_impl.h"

namespace tg::run {

static_assert(std::get<8>(kKernels).name == "cdlp");
template void run_kernel_trials<8>(const RunRequest&, std::shared_ptr<const GraphFile>, RunOutcome&,
                                   RunExtras&);

}  // namespace tg::run
