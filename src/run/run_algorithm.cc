#include "run/run_algorithm.h"

#include <omp.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "run/kernels.h"
#if TG_HAVE_MPI
#include "engine/mpi/steal.h"
#endif
#include "run/run_trials.h"
#include "run/threads.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/option_names.h"

namespace tg::run {

namespace {

template <typename Kernel>
void check_kernel_fits(const RunRequest& a, const Kernel& kernel, const GraphFile& g) {
  if (a.parents && kernel.name != "bfs") fail("{} applies to bfs only", option_name("parents"));
  // A source the kernel would not use is refused, not ignored.
  if (a.source && kernel.sources != Sources::kOne && kernel.sources != Sources::kMany) {
    fail("{} is the source of bfs, sssp and bc; {} {}", option_name("source"), kernel.name,
         kernel.sources == Sources::kSample
             ? fmt::format("runs from sampled sources (their number is {}, their draw {})",
                           option_name("samples"), option_name("seed"))
             : std::string("takes no source"));
  }
  if (a.samples_given && kernel.sources != Sources::kSample && kernel.sources != Sources::kMany) {
    fail("{} is the number of sampled sources of radii and bc; {} {}", option_name("samples"),
         kernel.name,
         kernel.sources == Sources::kOne ? "runs from one source" : std::string("takes no source"));
  }
  if (!kernel.weighted) return;
  if (!g.weighted() && !a.unit_weights) {
    fail("{} needs edge weights and {} has none; pass {} to count hops as distance 1", kernel.name,
         g.name(), option_on("unit-weights"));
  }
  if (g.weighted() && !a.unit_weights && g.header().min_weight < 0) {
    fail("{} needs non-negative weights; {} has weights down to {}", kernel.name, g.name(),
         g.header().min_weight);
  }
}

nlohmann::json report_json(const RunRequest& a, const GraphFile& file, const RunOutcome& out,
                           const RunExtras& extras, double read_seconds, uint64_t baseline_rss) {
  double total = 0;
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& o : out.trials) {
    total += o.seconds;
    nlohmann::json t{{"seconds", o.seconds},
                     {"summary", o.result.summary},
                     {"iterations", o.iterations},
                     {"vertex_state_bytes", o.vertex_bytes},
                     {"memory",
                      {{"vertex_state_peak", o.memory.vertex_state_peak},
                       {"engine_sets", o.memory.engine_sets},
                       {"block_index", o.memory.block_index},
                       {"store_pool", o.memory.store_pool}}}};
    if (o.source) t["source"] = file.original_id(*o.source);
    if (!o.args.sources.empty()) {  // radii's and bc's, drawn or given
      nlohmann::json sources = nlohmann::json::array();
      for (uint64_t v : o.args.sources) sources.push_back(file.original_id(v));
      t["sources"] = std::move(sources);
    }
    if (o.result.edges_traversed)
      t["teps"] = static_cast<double>(o.result.edges_traversed) / o.seconds;
    if (o.verdict) {
      t["verified"] = o.verdict->ok;
      if (!o.verdict->ok) t["verification_error"] = o.verdict->message;
    }
    if (!o.ranks.is_null()) {
      t["ranks"] = o.ranks;
      double slowest = 0, sum = 0;
      for (const auto& r : o.ranks) {
        const double c = r["edge_pass_compute_seconds"].get<double>();
        slowest = std::max(slowest, c);
        sum += c;
      }
      t["imbalance"] = sum > 0 ? slowest / (sum / static_cast<double>(o.ranks.size())) : 1.0;
    }
    trials.push_back(t);
  }
  nlohmann::json j{{"algorithm", out.algorithm},
                   {"graph", file.path()},
                   {"vertices", file.num_vertices()},
                   {"edges", file.num_edges()},
                   {"directed", file.directed()},
                   {"threads", omp_get_max_threads()},
                   {"read_seconds", read_seconds},
                   {"schedule", choice_name(a.schedule)},
                   {"store", extras.store},
                   {"trials", trials},
                   {"average_seconds", total / static_cast<double>(out.trials.size())}};
  if (out.ranks > 1) {
    j["ranks"] = out.ranks;
    j["exchange"] = choice_name(a.exchange);
    j["slices"] = a.slices;
    j["steal"] = a.steal;
  }
  if (a.verify) j["verification"] = out.all_verified ? "PASS" : "FAIL";
  j["peak_rss_bytes"] = out.peak_rss;
  j["baseline_rss_bytes"] = baseline_rss;
  if (out.plan) {
    j["plan"] = out.plan->to_json();
    j["local_check_seconds"] = extras.check_seconds;
    j["tiers"] = extras.tiers;
    j["far_node_bytes"] = extras.far_node_bytes;
    // Local memory: what the process holds, less the far node's share (on a one-node machine
    // the numa tier's node is the local one, and RSS cannot tell them apart); on ranks, the
    // largest rank's against the budget each rank plans for.
    // The paging baseline is held to its budget by the kernel (a cgroup limit), not by tiergraph.
    if (out.plan->budget && out.plan->far != FarTier::kPaging) {
      j["within_budget"] = extras.local_peak_rss <= *out.plan->budget + kFixedOverheadBytes;
    }
  }
  return j;
}

// Runs the trials of the kernel that answers to `name` (one does), through its own translation
// unit (run_trials.h).
template <size_t... K>
void run_kernel_named(std::string_view name, const RunRequest& a,
                      const std::shared_ptr<const GraphFile>& file, RunOutcome& out,
                      RunExtras& extras, std::index_sequence<K...>) {
  (void)((std::get<K>(kKernels).answers_to(name) &&
          (run_kernel_trials<K>(a, file, out, extras), true)) ||
         ...);
}

}  // namespace

void check_run_request(const RunRequest& a) {
  if (!with_kernel(a.algorithm, [](const auto&) {})) {
    fail(
        "unknown algorithm '{}': one of bfs, sssp, wcc (cc, components), pr (pagerank), radii, "
        "bc (betweenness), tc (triangles), lcc (clustering), cdlp (label_propagation)",
        a.algorithm);
  }
  check_threads(a.threads);
  // Options Python passes too are named as its user wrote them (util/option_names.h).
  if (a.trials < 1) fail("{} must be at least 1", option_name("trials"));
  with_kernel(a.algorithm, [&](const auto& kernel) {
    if (kernel.sources == Sources::kMany) {
      if (a.samples < 0)
        fail("{} must be a count of sources or 'all', got {}", option_name("samples"), a.samples);
    } else if (a.samples < 1 || a.samples > 64) {
      fail("{} must be between 1 and 64, got {}", option_name("samples"), a.samples);
    }
    if (kernel.sources == Sources::kSample && a.sources.size() > 64)
      fail("radii takes at most 64 sources, got {}", a.sources.size());
  });
  if (a.iterations < 1) fail("{} must be at least 1", option_name("iterations"));
  if (!(a.tolerance >= 0)) fail("{} must not be negative", option_name("tolerance"));
  if (a.precision == PageRankPrecision::kFloat && a.tolerance > 0 &&
      a.tolerance < kFloatPageRankTolerance) {
    fail(
        "{} {} cannot be reached with float contributions: rounding them alone changes the ranks "
        "by about 1e-7 (L1) an iteration; give {} or more, a fixed {}, or double",
        option_name("tolerance"), a.tolerance, kFloatPageRankTolerance, option_name("iterations"));
  }
  if (!(a.damping > 0 && a.damping < 1)) fail("{} must be in (0, 1)", option_name("damping"));
  if (!(a.alpha > 0) || !(a.beta > 0)) fail("--alpha and --beta must be positive");
  if (!(a.pull_share > 0)) fail("--pull-share must be positive");
  if (!(a.delta >= 0)) fail("{} must be positive, got {}", option_name("delta"), a.delta);
  if (a.store_buffers < 1) fail("--store-buffers must be at least 1");
  if (a.store_depth < 1) fail("--store-depth must be at least 1");
  if (a.store_io_threads < 1 || a.store_io_threads > 64)
    fail("--store-io-threads must be 1 to 64, got {}", a.store_io_threads);
  if (!(a.store_delay >= 0 && a.store_delay <= 60))
    fail("--store-delay must be between 0 and 60 seconds, got {}", a.store_delay);
  check_budget_options(a.budget, a.far_given);
  if (a.ring_batch < 1 || a.ring_batch > (1u << 20))
    fail("--ring-batch must be 1 to 1048576 records, got {}", a.ring_batch);
  if (!(a.ring_hurried > 0 && a.ring_hurried <= 1))
    fail("--ring-hurried must be a share of the ring in (0, 1], got {}", a.ring_hurried);
  if (a.slices < 1 || a.slices > 4096) fail("--slices must be 1 to 4096, got {}", a.slices);
  if (a.slices > 1 && a.exchange == Exchange::kCollective) {
    fail(
        "--slices {} needs --exchange ring or accumulate: the collective exchange sends once, "
        "after the pass",
        a.slices);
  }
  if (a.steal && a.slices < 2)
    fail(
        "--steal takes slices from other ranks: it needs --slices 2 or more (and --exchange ring "
        "or accumulate)");
  if (a.distributed) {
    const auto bound = parse_byte_size(a.exchange_memory);
    if (!bound || *bound < 4096)
      fail("--exchange-memory must be at least 4K, got '{}'", a.exchange_memory);
#if TG_HAVE_MPI  // (without MPI there are no ranks: a request is never distributed)
    if (a.steal && dist::TaskBoard::records_fitting(*bound / 8, 16, a.slices) == 0) {
      fail(
          "--steal with --slices {} needs a larger --exchange-memory than {}: the task board's "
          "eighth of it holds no task",
          a.slices, a.exchange_memory);
    }
#endif
    if (a.steal && (a.budget.given() || a.store != StoreKind::kMapped)) {
      fail(
          "--steal with {} on MPI ranks is not built: a stolen slice's sources lie in another "
          "rank's rows, and a "
          "rank's block-major passes read only the rows of its own masters",
          a.budget.given() ? "a memory budget" : fmt::format("--store {}", choice_name(a.store)));
    }
  }
  if (a.budget.given() && a.store != StoreKind::kMapped) {
    fail("{} puts every block in one store; under {} or {} the planner places them",
         option_name("store"), option_name("memory-budget"), option_name("far-ratio"));
  }
}

RunOutcome run_algorithm(const RunRequest& a, std::shared_ptr<const GraphFile> file,
                         double read_seconds, uint64_t baseline_rss) {
  check_run_request(a);
  apply_threads(a.threads);
  RunOutcome out;
  RunExtras extras;
  with_kernel(a.algorithm, [&](const auto& kernel) {
    out.algorithm = kernel.name;
    check_kernel_fits(a, kernel, *file);
    if (file->num_vertices() == 0) fail("{} has no vertices", file->name());
    for (uint64_t s : a.sources) {
      if (s >= file->num_vertices())
        fail("{} source {} is not a vertex (the graph has {})", kernel.name, s,
             file->num_vertices());
    }
  });
  run_kernel_named(
      a.algorithm, a, file, out, extras,
      std::make_index_sequence<std::tuple_size_v<std::remove_const_t<decltype(kKernels)>>>{});
  for (const auto& o : out.trials) {
    if (o.verdict && !o.verdict->ok) out.all_verified = false;
  }
  out.report = report_json(a, *file, out, extras, read_seconds, baseline_rss);
  return out;
}

}  // namespace tg::run
