// `tiergraph plan ALGO GRAPH --memory-budget SIZE | --far-ratio R [--json]`: what a run under that
// budget would place where, the fetch pipeline it would use, the bytes a pass is expected to
// fetch, and why; without reading an edge.
#include <omp.h>

#include <nlohmann/json.hpp>

#include "algorithms/kernels.h"
#include "cli/budget.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "graph/graph_view.h"
#include "util/error.h"
#include "util/log.h"

namespace tg::cli {

namespace {

struct PlanArgs {
  std::string algorithm;
  PathArgument graph;
  BudgetArgs budget;
  bool json = false, parents = false, unit_weights = false, far_given = false;
  int threads = 0;
};

void plan_command(const PlanArgs& a) {
  apply_threads(a.threads);
  check_budget_options(a.budget, a.far_given);
  if (!a.budget.given()) fail("give --memory-budget or --far-ratio: the plan is for a budget");
  const auto file = GraphFile::open(a.graph.path(), {.check_blocks = false});
  TierPlan plan;
  with_kernel(a.algorithm, [&](const auto& kernel) {
    const bool weights = kernel.weighted && !a.unit_weights && file->weighted();
    auto make = [&](const auto& view) {
      using Id = typename std::decay_t<decltype(view)>::IdType;
      plan = make_plan(a.budget, *file,
                       {.algorithm = kernel.name,
                        .state_bytes = kernel.state_bytes(file->num_vertices(), sizeof(Id)),
                        .index_bytes = view.index_bytes(),
                        .weights = weights,
                        .parents = a.parents,
                        .threads = static_cast<uint32_t>(omp_get_max_threads())});
    };
    if (weights) {
      with_weighted_view(file, make);
    } else {
      with_unweighted_view(file, make);
    }
  });
  if (a.json) {
    auto j = plan.to_json();
    j["algorithm"] = a.algorithm;
    j["graph"] = file->path();
    j["threads"] = omp_get_max_threads();
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("Plan for {} on {} ({} threads):\n{}", a.algorithm, file->path(), omp_get_max_threads(), plan.describe());
}

}  // namespace

Runner add_plan(CLI::App& app) {
  auto* cmd = app.add_subcommand("plan", "Show where a run under a memory budget would place the graph's blocks, and why");
  auto a = std::make_shared<PlanArgs>();
  cmd->add_option("algorithm", a->algorithm, "bfs | sssp | wcc (cc, components) | pr (pagerank) | radii")
      ->required()
      ->check(CLI::IsMember(kernel_names()));
  add_path_argument(*cmd, a->graph, "GRAPH", "Graph file");
  add_budget_options(*cmd, a->budget);
  cmd->add_option("-t,--threads", a->threads, "Threads the run would use (default: all cores)")->check(CLI::Range(1, 4096));
  cmd->add_flag("--parents", a->parents, "bfs: the run would also keep the BFS tree");
  cmd->add_flag("--unit-weights", a->unit_weights, "sssp: the run would ignore weights");
  cmd->add_flag("--json", a->json, "Print the plan as JSON");
  return [a, cmd] {
    a->far_given = cmd->count("--far") > 0;
    plan_command(*a);
  };
}

}  // namespace tg::cli
