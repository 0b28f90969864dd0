// `tiergraph plan ALGO GRAPH --memory-budget SIZE | --far-ratio R [--json]`: what a run under that
// budget would place where, the fetch pipeline it would use, the bytes a pass is expected to
// fetch, and why; without reading an edge. `--ranks N`: how N MPI ranks would divide the graph
// (masters, arcs, cut arcs and mirrors per rank; this one reads every arc once), and with a
// budget each rank's plan for the block rows of its masters.
#include <omp.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "cli/budget_options.h"
#include "cli/choice_option.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/validators.h"
#include "engine/mpi/partition.h"
#include "graph/graph_view.h"
#include "run/budget.h"
#include "run/kernels.h"
#include "run/threads.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/log.h"

namespace tg::cli {

namespace {

struct PlanArgs {
  std::string algorithm;
  PathArgument graph;
  run::BudgetArgs budget;
  bool json = false, parents = false, unit_weights = false, far_given = false;
  int threads = 0;
  uint32_t ranks = 0;                   // 0: no partition asked for
  std::string exchange_memory = "64M";  // --ranks under a budget: what each rank's exchange holds
  Exchange exchange =
      Exchange::kCollective;  // and which exchange (accumulate adds its inbox window)
  uint64_t exchange_bytes = 0;
  std::optional<double> partition_alpha;
};

void plan_command(const PlanArgs& a) {
  run::apply_threads(a.threads);
  run::check_budget_options(a.budget, a.far_given);
  if (!a.budget.given() && a.ranks == 0)
    fail("give --memory-budget or --far-ratio (a plan for a budget), or --ranks N");
  const auto file = GraphFile::open(a.graph.path(), {.check_blocks = false});
  std::optional<Partition> partition;
  if (a.ranks > 0) {
    if (a.ranks > file->num_vertices()) {
      fail(
          "--ranks {} is more than the {} vertices of {}: each rank masters vertices, so ask for "
          "at most {} (fewer "
          "ranks are faster on so small a graph)",
          a.ranks, file->num_vertices(), file->name(), file->num_vertices());
    }
    double alpha = 0;
    with_kernel(a.algorithm, [&](const auto& kernel) {
      alpha = a.partition_alpha.value_or(partition_alpha_for(kernel.passes.vertex_weight, a.ranks));
    });
    partition = partition_vertices(*file, a.ranks, alpha);
    count_cut_arcs(file, *partition);
    // Ranks master multiples of 64 vertices: on a small graph some get none and would only wait.
    uint32_t empty = 0;
    for (const auto& share : partition->ranks) empty += share.first == share.end ? 1 : 0;
    if (empty > 0) {
      log::info(
          "note: {} of the {} ranks master no vertex ({} vertices, in multiples of 64, fill {}): "
          "they would "
          "only wait; {} ranks would do the same work",
          empty, a.ranks, file->num_vertices(), a.ranks - empty, a.ranks - empty);
    }
    // As `run` on N ranks: without -t, the N ranks share this machine's cores (as `mpirun -np N`
    // here places them), so a rank runs cores / N threads, not every core.
    if (a.threads == 0) omp_set_num_threads(run::threads_per_rank(static_cast<int>(a.ranks)));
  }
  if (!a.budget.given()) {
    if (a.json) {
      nlohmann::json j{{"graph", file->path()}, {"partition", partition->to_json()}};
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("{}", partition->describe());
    }
    return;
  }
  // The plan of one process, or (masters given) of the MPI rank that masters them.
  auto plan_for = [&](std::optional<std::pair<uint64_t, uint64_t>> masters) {
    TierPlan plan;
    with_kernel(a.algorithm, [&](const auto& kernel) {
      const bool weights = kernel.weighted && !a.unit_weights && file->weighted();
      auto make = [&](const auto& view) {
        std::optional<run::RankShare> rank;
        if (masters)
          rank = run::RankShare{*masters, a.exchange_bytes, a.exchange == Exchange::kAccumulate};
        plan = run::make_plan(a.budget, *file,
                              run::plan_inputs(kernel, view, weights, a.parents,
                                               static_cast<uint32_t>(omp_get_max_threads()), rank));
      };
      if (weights) {
        with_weighted_view(file, make);
      } else {
        with_unweighted_view(file, make);
      }
    });
    return plan;
  };
  // With --ranks, each rank's plan: its budget holds the rows of its masters.
  std::vector<TierPlan> rank_plans;
  if (partition && partition->ranks.size() > 1) {
    for (const auto& share : partition->ranks)
      rank_plans.push_back(plan_for({{share.first, share.end}}));
  }
  const TierPlan plan = rank_plans.empty() ? plan_for(std::nullopt) : rank_plans.front();
  if (a.json) {
    auto j = plan.to_json();
    j["algorithm"] = a.algorithm;
    j["graph"] = file->path();
    j["threads"] = omp_get_max_threads();
    if (partition) j["partition"] = partition->to_json();
    if (!rank_plans.empty()) {
      j["rank_plans"] = nlohmann::json::array();
      for (const auto& p : rank_plans) j["rank_plans"].push_back(p.to_json());
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }
  if (rank_plans.empty()) {
    fmt::print("Plan for {} on {} ({} threads):\n{}", a.algorithm, file->path(),
               omp_get_max_threads(), plan.describe());
  } else {
    for (size_t r = 0; r < rank_plans.size(); ++r) {
      const int threads = omp_get_max_threads();
      fmt::print("Plan for {} on {}, rank {} of {} ({} thread{} a rank):\n{}", a.algorithm,
                 file->path(), r, rank_plans.size(), threads, threads == 1 ? "" : "s",
                 rank_plans[r].describe());
    }
  }
  if (partition) fmt::print("{}", partition->describe());
}

}  // namespace

Runner add_plan(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "plan", "Show where a run under a memory budget would place the graph's blocks, and why");
  auto a = std::make_shared<PlanArgs>();
  cmd->add_option("algorithm", a->algorithm,
                  "bfs | sssp | wcc (cc, components) | pr (pagerank) | radii | bc (betweenness) | "
                  "tc (triangles) | lcc (clustering) | cdlp (label_propagation)")
      ->required()
      ->check(CLI::IsMember(kernel_names()));
  add_path_argument(*cmd, a->graph, "GRAPH", "Graph file");
  add_budget_options(*cmd, a->budget);
  cmd->add_option("-t,--threads", a->threads, "Threads the run would use (default: all cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--parents", a->parents, "bfs: the run would also keep the BFS tree");
  cmd->add_flag("--unit-weights", a->unit_weights, "sssp: the run would ignore weights");
  cmd->add_option(
         "--ranks", a->ranks,
         "Also (or only) show how this many MPI ranks would divide the graph: contiguous vertex "
         "ranges balanced on alpha * vertices + out-arcs, with each rank's cut arcs and mirrors")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--partition-alpha", a->partition_alpha,
                  "--ranks: the weight of a vertex against an arc in a rank's load (default 8 * "
                  "(ranks - 1), as Gemini; at least 32 for pr, whose every vertex takes a step)")
      ->check(non_negative_number());
  cmd->add_option(
         "--exchange-memory", a->exchange_memory,
         "--ranks under a budget: what each rank's exchange buffers may hold (as run's option)")
      ->check(byte_size());
  add_choice(cmd, "--exchange", a->exchange,
             "--ranks under a budget: the exchange the run would use (as run's option; "
             "accumulate also holds an inbox window per rank)");
  cmd->add_flag("--json", a->json, "Print the plan as JSON");
  return [a, cmd] {
    a->far_given = cmd->count("--far") > 0;
    a->exchange_bytes = *parse_byte_size(a->exchange_memory);
    plan_command(*a);
  };
}

}  // namespace tg::cli
