// The definition of run_kernel_trials<K> (run_trials.h) and the templates it runs, included only
// by the run_kernel_<name>.cc files, one per kernel.
#pragma once

#include <omp.h>

#include <tuple>

#include "algorithms/sources.h"
#include "engine/cpu/engine.h"
#include "engine/mpi/partition.h"
#include "mpi/comm.h"
#include "mpi/mpi_runtime.h"
#if TG_HAVE_MPI
#include "engine/mpi/dist_engine.h"
#endif
#include "run/kernels.h"
#include "run/run_trials.h"
#include "store/block_store.h"
#include "store/resident_store.h"
#include "util/byte_size.h"
#include "util/log.h"
#include "util/memory.h"
#include "util/progress.h"
#include "util/timer.h"

namespace tg::run {

// PageRank's default stopping rule: the L1 change between iterations below this, which leaves the
// ranks within about 6e-7 (0.85 / 0.15 times it) in L1 of the fixed point.
constexpr double kDefaultPageRankTolerance = 1e-7;

// The block store of a run: none (the engine's mapped store), the copying store (pread, with
// injected latency and order) or the file tier (O_DIRECT through io_uring). In run_trials.cc.
std::unique_ptr<BlockStore> make_store(const RunRequest& a, std::shared_ptr<const GraphFile> file,
                                       bool weights);
// A store's counters (and a tier's own figures) for the report.
nlohmann::json store_json(const BlockStore& store);
// Under a budget, --verify runs after the trials, once the engine and its stores are gone: it
// holds the graph's index, every trial's result and the verifier's own arrays
// (`verifier_bytes`). Refuses the run before it starts when the budget cannot hold them, saying
// what would.
void check_verifier_fits(const TierPlan& plan, int trials, uint64_t verifier_bytes);

// This rank's figures for a trial on ranks: totals and per edge pass (bytes and messages sent,
// seconds computing, communicating and waiting at the exchanges), gathered on rank 0 as a list
// by rank, with the imbalance (the slowest rank's compute time over the mean), and its store's
// counters. Under a budget, each rank's own plan (its rows, and its blocks local and far).
template <typename Engine>
nlohmann::json rank_reports(Engine& engine, double seconds, const std::optional<TierPlan>& plan) {
  auto& comm = engine.comm();
  nlohmann::json passes = nlohmann::json::array();
  mpi::CommCounters total;
  double compute = 0;
  for (const auto& p : engine.rank_passes()) {
    total += p.comm;
    compute += p.compute_seconds();
    passes.push_back({{"bytes_sent", p.comm.bytes_sent},
                      {"messages", p.comm.messages},
                      {"updates_sent", p.updates_sent},
                      {"updates_sent_early", p.updates_sent_early},
                      {"slices_stolen", p.slices_stolen},
                      {"updates_held", p.updates_held},
                      {"compute_seconds", p.compute_seconds()},
                      {"communication_seconds", p.comm.communication_seconds},
                      {"wait_seconds", p.comm.wait_seconds}});
  }
  mpi::CommCounters outside = engine.between_edge_passes();
  outside += comm.take_counters();  // vertex passes, reductions, gathers since the last edge pass
  total += outside;
  const nlohmann::json mine{
      {"rank", comm.rank()},
      {"masters", comm.end(comm.rank()) - comm.first(comm.rank())},
      {"seconds", seconds},
      {"bytes_sent", total.bytes_sent},
      {"messages", total.messages},
      {"edge_pass_compute_seconds", compute},
      {"communication_seconds", total.communication_seconds},
      {"communication_seconds_outside_edge_passes", outside.communication_seconds},
      {"wait_seconds", total.wait_seconds},
      {"communication_buffer_peak_bytes", comm.peak_buffer_bytes()},
      {"inbox_window_bytes", engine.inbox_window_bytes()},
      {"exchange_held_bytes",
       {{"shipped_values", engine.exchange_held().shipped_values},
        {"forest_copy", engine.exchange_held().forest_copy},
        {"forest_hooks", engine.exchange_held().forest_hooks}}},
      {"peak_rss_bytes", peak_rss_bytes()},  // so far
      {"passes", passes}};
  nlohmann::json report = mine;
  if (plan) {
    report["plan"] = {{"rows", {plan->first_row(), plan->end_row()}},
                      {"local_bytes", plan->local_bytes},
                      {"far_bytes", plan->far_bytes},
                      {"local_blocks", plan->local_blocks},
                      {"far_blocks", plan->far_blocks}};
  }
  report["store"] = store_json(engine.store());
  if (const auto ring = engine.ring_report()) {
    report["ring"] = {{"slots", ring->slots},
                      {"batch_records", ring->batch_records},
                      {"bytes", ring->bytes},
                      {"batches", ring->counters.batches},
                      {"hurried_batches", ring->counters.hurried},
                      {"full_waits", ring->counters.full_waits},
                      {"clears_published", ring->counters.clears}};
  }
  nlohmann::json all = nlohmann::json::array();
  for (const auto& text : comm.gather_text(report.dump()))
    all.push_back(nlohmann::json::parse(text));
  return all;
}

// The trials on one engine (shared-memory or distributed).
template <typename Kernel, typename Id, typename W, typename Engine>
void run_trials_on(const RunRequest& a, const Kernel& kernel, const GraphView<Id, W>& g,
                   Engine& engine, uint64_t& passes, std::unique_ptr<Progress>& progress,
                   RunOutcome& out) {
  const bool root = !mpi::started() || mpi::rank() == 0;  // the rank that holds results and reports
  SourcePicker picker(g.num_vertices(), a.seed);
  KernelArgs args;
  args.parents = a.parents;
  args.delta = a.delta;
  // PageRank converges by default (an L1 change below kDefaultPageRankTolerance, as networkx and
  // GAPBS stop on a tolerance); -i alone asks for exactly that many iterations, and with
  // --tolerance it caps them.
  args.pagerank = PageRankOptions{a.damping, a.iterations, a.tolerance, 1000, a.precision};
  if (!a.iterations_given && a.tolerance == 0) {
    args.pagerank.tolerance = a.precision == PageRankPrecision::kFloat ? kFloatPageRankTolerance
                                                                       : kDefaultPageRankTolerance;
  }
  if (a.iterations_given && a.tolerance > 0) args.pagerank.max_iterations = a.iterations;
  if (a.iterations_given) args.rounds = static_cast<uint32_t>(a.iterations);
  for (int t = 0; t < a.trials; ++t) {
    TrialOutcome o;
    if (kernel.sources == Sources::kOne) {
      args.source = a.source ? g.file().dense_id(*a.source) : picker.next(g);
      o.source = args.source;
      // A source given that has no out-edges reaches only itself: the answer is right but
      // looks like a failure ("levels: 1"), so say why (sampled sources always have out-edges).
      if (a.source && t == 0 && root && g.out_degree(args.source) == 0) {
        log::info("note: source {} has no out-edges, so {} reaches only the source itself",
                  *a.source, kernel.name);
      }
    }
    if (kernel.sources == Sources::kSample || kernel.sources == Sources::kMany) {
      if (!a.sources.empty()) {
        args.sources = a.sources;
      } else if (a.source) {  // BC from one source given (bfs and sssp took theirs above)
        args.sources = {g.file().dense_id(*a.source)};
      } else {
        args.sources =
            sampled_sources(g, sources_to_draw(kernel.sources, a.samples, a.samples_given),
                            a.seed + static_cast<uint64_t>(t));
      }
    }
    o.args = args;
    engine.reset_stats();
    passes = 0;
    progress = std::make_unique<Progress>(
        a.trials > 1 ? fmt::format("{} trial {}/{}:", kernel.name, t + 1, a.trials)
                     : fmt::format("{}:", kernel.name),
        0,
        root && a.progress && log::level() >= log::Level::kInfo);  // -q: nothing
    if constexpr (requires { engine.comm(); })
      engine.comm().wait_for_all();  // the ranks start together
    Timer timer;
    o.result = kernel.run(engine, args);
    o.seconds = timer.seconds();
    progress.reset();  // clears its line before results are printed
    if (a.pass_stats) o.iterations = to_json(engine.stats());
    o.vertex_bytes = engine.peak_vertex_bytes();
    o.memory = engine.memory();
    // Under a budget the verifier, which reads every edge from the mapping, runs after the peak
    // RSS of the trials is taken.
    if constexpr (requires { engine.rank_passes(); })
      o.ranks = rank_reports(engine, o.seconds, out.plan);
    if (a.verify && !a.budget.given() && root) o.verdict = kernel.verify(g, args, o.result);
    out.trials.push_back(std::move(o));
  }
}

template <typename Kernel, typename Id, typename W>
void run_trials(const RunRequest& a, const Kernel& kernel, const GraphView<Id, W>& g,
                const std::shared_ptr<const GraphFile>& file, RunOutcome& out, RunExtras& extras) {
  constexpr bool kWeights = !std::is_same_v<W, NoWeight>;
  const bool root = !mpi::started() || mpi::rank() == 0;
  std::unique_ptr<mpi::Comm> comm;
#if TG_HAVE_MPI  // (without MPI there are no ranks: a request is never distributed)
  if (a.distributed) {
    const Partition partition = partition_vertices(
        *file, static_cast<uint32_t>(mpi::size()),
        a.partition_alpha >= 0
            ? a.partition_alpha
            : partition_alpha_for(kernel.passes.vertex_weight, static_cast<uint32_t>(mpi::size())));
    std::vector<uint64_t> bounds{0};
    for (const auto& r : partition.ranks) bounds.push_back(r.end);
    comm = std::make_unique<mpi::Comm>(std::move(bounds));
    out.ranks = comm->size();
  }
#endif
  const DistOptions dist_options{.exchange = a.exchange,
                                 .exchange_bytes = comm ? *parse_byte_size(a.exchange_memory) : 0,
                                 .ring_batch = a.ring_batch,
                                 .ring_hurried = a.ring_hurried,
                                 .slices = a.slices,
                                 .steal = a.steal};
  std::unique_ptr<BlockStore> store;
  TieredStores tiers;
  if (a.budget.given()) {
    const uint32_t threads = static_cast<uint32_t>(omp_get_max_threads());
    // On ranks, this rank's share: the rows of its masters, and its exchange's memory.
    PlanInputs inputs =
        comm ? plan_inputs(kernel, g, kWeights, a.parents, threads,
                           RankShare{{comm->first(comm->rank()), comm->end(comm->rank())},
                                     dist_options.exchange_bytes,
                                     dist_options.exchange == Exchange::kAccumulate})
             : plan_inputs(kernel, g, kWeights, a.parents, threads);
    inputs.far_in_place = a.far_rank_in_place;
    inputs.trials = static_cast<uint32_t>(std::max(a.trials, 1));
    out.plan = make_plan(a.budget, *file, inputs);
    if (root) {
      for (const auto& line : out.plan->reasons) log::info("plan: {}", line);
    }
    if (a.verify && root && out.plan->budget)
      check_verifier_fits(*out.plan, a.trials, kernel.verify_bytes(*file));
    if (out.plan->far == FarTier::kPaging) file->advise_random();
    Timer check_timer;
    check_local_blocks(*file, *out.plan, !a.no_checksums, kWeights);
    extras.check_seconds = check_timer.seconds();
    tiers = make_tiered_stores(*out.plan, file, g.grid(Grid::kOut), g.grid(Grid::kIn),
                               {.io_threads = a.store_io_threads,
                                .weights = kWeights,
                                .check_hashes = !a.no_checksums,
                                .far_node = a.budget.far_node,
                                .far_rank_in_place = a.far_rank_in_place});
  } else {
    store = make_store(a, file, kWeights);
  }
  EngineOptions engine_options;
  engine_options.store = tiers.composite ? tiers.composite.get() : store.get();
  engine_options.schedule = a.schedule;
  engine_options.direction = a.direction;
  engine_options.alpha = a.alpha;
  engine_options.beta = a.beta;
  engine_options.pull_share = a.pull_share;
  // A run of a second or more shows its passes on a terminal.
  std::unique_ptr<Progress> progress;
  uint64_t passes = 0;
  engine_options.hooks.end = [&](const IterationStats& s) {
    if (progress && progress->shown()) {  // no formatting per pass when nothing is drawn
      progress->status(fmt::format("pass {}: {} {}, {} vertices activated", ++passes,
                                   direction_name(s.direction), schedule_name(s.schedule),
                                   s.activated));
    }
    if (a.after_pass) a.after_pass();
  };
  const auto trials = [&](auto& engine) {
    run_trials_on(a, kernel, g, engine, passes, progress, out);
  };
#if TG_HAVE_MPI
  if (comm) {
    DistEngine<Id, W> engine(g, engine_options, *comm, dist_options);
    trials(engine);
    extras.store = store_json(engine.store());
  } else
#endif
  {
    Engine<Id, W> engine(g, engine_options);
    trials(engine);
    extras.store = store_json(engine.store());
  }
  out.peak_rss = peak_rss_bytes();
  // json::array(...), not `= {...}`: in a function template clang 14 never destroys the
  // parameter that braced assignment makes, so the array it replaced leaked (LeakSanitizer).
  if (tiers.composite)
    extras.tiers = nlohmann::json::array({store_json(*tiers.local), store_json(*tiers.far)});
  // The far tier's memory, where this process maps it: a NUMA node's, or a far rank's shared
  // window.
  if (const auto* resident = dynamic_cast<const ResidentStore*>(tiers.far.get()))
    extras.far_node_bytes = resident->region_bytes();
  extras.local_peak_rss = out.peak_rss - std::min(out.peak_rss, extras.far_node_bytes);
#if TG_HAVE_MPI
  if (comm) {  // the largest rank's
    comm->allreduce(&out.peak_rss, 1, mpi::Scalar::kU64, mpi::ReduceOp::kMax);
    comm->allreduce(&extras.local_peak_rss, 1, mpi::Scalar::kU64, mpi::ReduceOp::kMax);
  }
#endif
  if (a.verify && a.budget.given() && root) {
    for (auto& o : out.trials) o.verdict = kernel.verify(g, o.args, o.result);
  }
}

template <size_t K>
void run_kernel_trials(const RunRequest& a, std::shared_ptr<const GraphFile> file, RunOutcome& out,
                       RunExtras& extras) {
  const auto& kernel = std::get<K>(kKernels);
  if (kernel.weighted && !a.unit_weights) {
    with_weighted_view(file,
                       [&](const auto& view) { run_trials(a, kernel, view, file, out, extras); });
  } else {
    with_unweighted_view(file,
                         [&](const auto& view) { run_trials(a, kernel, view, file, out, extras); });
  }
}

}  // namespace tg::run
