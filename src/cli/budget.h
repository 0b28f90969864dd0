// The memory-tier options `run` and `plan` share: a memory budget or a far ratio, and the far
// tier; and the plan they make for one kernel on one graph.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "graph/graph_file.h"
#include "plan/tier_plan.h"

namespace tg::cli {

struct BudgetArgs {
  std::string memory_budget;        // empty: none
  std::optional<double> far_ratio;
  std::string far = "file";
  std::optional<int> far_node;      // --far numa: the node (default: the farthest from this CPU's)
  bool given() const { return !memory_budget.empty() || far_ratio.has_value(); }
};

void add_budget_options(CLI::App& cmd, BudgetArgs& args);
// Refuses contradictory options (both a budget and a ratio, --far without either).
void check_budget_options(const BudgetArgs& args, bool far_given);

// What one trial of `algorithm` holds besides edge blocks, and the plan for the rest.
struct PlanInputs {
  std::string_view algorithm;
  uint64_t state_bytes = 0;  // the kernel's vertex state
  uint64_t index_bytes = 0;  // the view's block index
  bool weights = false;      // its passes read weights
  bool parents = false;      // bfs --parents: a second per-vertex result
  uint32_t threads = 1;
};
TierPlan make_plan(const BudgetArgs& args, const GraphFile& file, const PlanInputs& inputs);

// Checks every block the plan keeps local (structure, and hashes unless `hashes` is off), in
// parallel: a file opened under a budget checks its blocks before their first use, and local
// blocks are never fetched (far ones are checked as they arrive).
void check_local_blocks(const GraphFile& file, const TierPlan& plan, bool hashes, bool weights);

}  // namespace tg::cli
