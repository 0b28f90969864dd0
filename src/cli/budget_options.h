// The command line's memory-tier options of `run` and `plan` (--memory-budget, --far-ratio, --far,
// --profile, --far-rank-copy, --far-node), into the request both fronts fill (run/budget.h).
#pragma once

#include <CLI/CLI.hpp>

#include "run/budget.h"

namespace tg::cli {

void add_budget_options(CLI::App& cmd, run::BudgetArgs& args);

}  // namespace tg::cli
