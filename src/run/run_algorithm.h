// One run of an algorithm on an open graph file, as `tiergraph run` and the Python package both
// make it: the request (every option of `run` that shapes the run itself), its checks, the trials
// (each timed, verified if asked) and the report, the document `run --json` prints. The CLI adds
// reading the graph, the far-memory rank, text output and result files; Python adds arrays.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/result.h"
#include "engine/cpu/engine.h"
#include "graph/graph_file.h"
#include "plan/tier_plan.h"
#include "run/budget.h"
#include "run/choices.h"
#include "run/kernels.h"
#include "util/memory.h"

namespace tg::run {

struct RunRequest {
  std::string algorithm;  // a kernel's name or alias (kernel_names())
  int trials = 1, threads = 0, iterations = 20, samples = 64;
  bool iterations_given = false;  // -i given: a fixed count (or a cap on --tolerance)
  bool samples_given = false;     // -k given (bc's default differs: kDefaultBcSources); bc: 0 all
  bool verify = false, parents = false, unit_weights = false, no_checksums = false;
  bool pass_stats = false;  // per-pass statistics in the report (road SSSP's 12,815 passes: 20 MiB)
  std::optional<uint64_t> source;  // original id; none: picked per trial
  std::vector<uint64_t> sources;   // radii (at most 64), bc: dense ids; empty: sampled per trial
  uint64_t seed = 27491095;
  double alpha = EngineOptions{}.alpha, beta = EngineOptions{}.beta,
         pull_share = EngineOptions{}.pull_share;
  double tolerance = 0, damping = 0.85, delta = 0;
  PageRankPrecision precision = PageRankPrecision::kDouble;  // pr's contributions
  Direction direction = Direction::kAuto;
  Schedule schedule = Schedule::kAuto;
  StoreKind store = StoreKind::kMapped;
  StoreOrder store_order = StoreOrder::kInOrder;
  uint32_t store_buffers = 8, store_depth = 4, store_io_threads = 1;
  std::string store_buffer_bytes;  // empty: the largest block's size
  double store_delay = 0;
  BudgetArgs budget;
  bool far_rank_in_place =
      false;  // --far rank: the job reads its far ranks in place (decided at its start)
  bool far_given = false;  // --far on the command line (meaningless without a budget)
  bool progress = true;    // a status line per pass on a terminal, for runs of a second or more
  // On the ranks of an MPI job (MPI started, more than one rank): each rank masters a vertex range
  // (Gemini's chunking with this alpha; negative: Gemini's default) and updates travel by
  // `exchange`. Rank 0 gets the results and the report.
  bool distributed = false;
  Exchange exchange = Exchange::kCollective;
  std::string exchange_memory = "64M";  // what the exchange's buffers may hold at once, per rank
  uint32_t ring_batch = 128;            // --exchange ring: records per batch
  double ring_hurried = 0.8;  // --exchange ring: how full a ring is before batches are hurried
  uint32_t slices =
      1;               // ring, accumulate: a push pass's frontier slices, each sent before the next
  bool steal = false;  // with slices: ranks take each other's slices when their own are done
  double partition_alpha = -1;
  // Called after every edge pass, on the calling thread; may throw to end the run (Python's
  // Ctrl-C), which unwinds cleanly out of the engine.
  std::function<void()> after_pass;
};

// Refuses impossible options with the message `run` prints (before any graph is read). It only
// reads the request: run_algorithm applies its thread count.
void check_run_request(const RunRequest& request);

struct TrialOutcome {
  KernelArgs args;
  AlgorithmResult result;
  double seconds = 0;
  std::optional<uint64_t> source;  // dense id
  std::optional<Verdict> verdict;
  nlohmann::json iterations;
  uint64_t vertex_bytes = 0;  // peak of the vertex state the engine held
  MemoryUse memory;           // by class, at the end of the trial
  nlohmann::json ranks;       // on MPI ranks: each rank's figures (rank 0's copy)
};

struct RunOutcome {
  std::string algorithm;  // the kernel's own name (an alias resolved)
  std::vector<TrialOutcome> trials;
  std::optional<TierPlan> plan;
  bool all_verified = true;  // no trial's verification failed
  uint64_t peak_rss = 0;     // on MPI ranks: the largest rank's
  int ranks = 1;
  // What `run --json` prints (run_algorithm fills it). An empty object to begin with: a null
  // json is made by a constructor whose unreachable throw clang-tidy reads as one escaping
  // RunOutcome's implicit noexcept constructor (bugprone-exception-escape).
  nlohmann::json report = nlohmann::json::object();
};

// Runs the request's trials on `file` (its checks first). `read_seconds` and `baseline_rss` go
// into the report as given (the caller read the graph).
RunOutcome run_algorithm(const RunRequest& request, std::shared_ptr<const GraphFile> file,
                         double read_seconds = 0, uint64_t baseline_rss = current_rss_bytes());

}  // namespace tg::run
