#include "cli/run_algorithm.h"

#include <omp.h>

#include <cmath>
#include <cstring>

#include "algorithms/sources.h"
#include "cli/commands.h"
#include "dist/comm.h"
#include "dist/dist_engine.h"
#include "dist/mpi_runtime.h"
#include "dist/partition.h"
#include "dist/steal.h"
#include "store/copying_store.h"
#include "store/numa_store.h"
#include "store/uring_transfer.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/log.h"
#include "util/progress.h"
#include "util/timer.h"

namespace tg::cli {

namespace {

// PageRank's default stopping rule: the L1 change between iterations below this, which leaves the
// ranks within about 6e-7 (0.85 / 0.15 times it) in L1 of the fixed point.
constexpr double kDefaultPageRankTolerance = 1e-7;

// The block store of a run: none (the engine's mapped store), the copying store (pread, with
// injected latency and order) or the file tier (O_DIRECT through io_uring).
std::unique_ptr<BlockStore> make_store(const RunRequest& a, std::shared_ptr<const GraphFile> file, bool weights) {
  if (a.store == "mapped") return nullptr;
  CopyingStoreOptions o;
  o.buffers = a.store_buffers;
  if (!a.store_buffer_bytes.empty()) o.buffer_bytes = *parse_byte_size(a.store_buffer_bytes);
  o.depth = a.store_depth;
  o.io_threads = a.store_io_threads;
  o.delay_seconds = a.store_delay;
  o.completion = a.store_order == "reverse"    ? CopyingStoreOptions::Completion::kReverse
                 : a.store_order == "shuffled" ? CopyingStoreOptions::Completion::kShuffled
                                               : CopyingStoreOptions::Completion::kInOrder;
  o.with_weights = weights;
  o.check_hashes = !a.no_checksums;
  std::unique_ptr<Transfer> transfer;
  if (a.store == "file") {
    if (a.store_delay > 0 || a.store_order != "in-order") {
      fail("--store-delay and --store-order shape the copying store's reads; the file store reads the disk as it is");
    }
    // Up to four ranges a request (a piece's parts), `depth` requests in flight.
    transfer = std::make_unique<UringTransfer>(file->path(), 4 * a.store_depth);
  }
  return std::make_unique<CopyingStore>(std::move(file), o, std::move(transfer));
}

nlohmann::json store_json(const BlockStore& store) {
  const StoreCounters c = store.counters();
  nlohmann::json j = {{"name", store.name()},     {"pool_bytes", store.pool_bytes()}, {"blocks_read", c.blocks},
                      {"bytes_fetched", c.bytes}, {"requests", c.requests},          {"wait_seconds", c.wait_seconds},
                      {"request_seconds", c.request_seconds}, {"max_in_flight", c.max_in_flight},
                      {"overlap", c.request_seconds > 0 ? 1.0 - c.wait_seconds / c.request_seconds : 1.0}};
  if (const auto* numa = dynamic_cast<const NumaStore*>(&store)) {
    j["node"] = numa->node();
    j["node_bytes"] = numa->node_bytes();
    j["blocks_held"] = numa->blocks_held();
  }
  if (const auto* copying = dynamic_cast<const CopyingStore*>(&store)) {
    j["buffer_bytes"] = copying->piece_bytes();
    j["blocks_in_pieces"] = copying->blocks_in_pieces();
    j["pieces_read"] = c.pieces;
  }
  return j;
}

// What a run reports of its stores and memory besides the trials.
struct RunExtras {
  nlohmann::json store;
  nlohmann::json tiers = nlohmann::json::array();
  double check_seconds = 0;     // checking the local blocks (under a budget)
  uint64_t far_node_bytes = 0;  // the numa tier's memory (on the far node: outside the local budget)
};

// This rank's figures for a trial on ranks: totals and per edge pass (bytes and messages sent,
// seconds computing, communicating and waiting at the exchanges), gathered on rank 0 as a list
// by rank, with the imbalance (the slowest rank's compute time over the mean).
template <typename Engine>
nlohmann::json rank_reports(Engine& engine, double seconds) {
  auto& comm = engine.comm();
  nlohmann::json passes = nlohmann::json::array();
  dist::CommCounters total;
  double compute = 0;
  for (const auto& p : engine.rank_passes()) {
    total += p.comm;
    compute += p.compute_seconds();
    passes.push_back({{"bytes_sent", p.comm.bytes_sent},
                      {"messages", p.comm.messages},
                      {"updates_sent", p.updates_sent},
                      {"updates_sent_early", p.updates_sent_early},
                      {"slices_stolen", p.slices_stolen},
                      {"compute_seconds", p.compute_seconds()},
                      {"communication_seconds", p.comm.communication_seconds},
                      {"wait_seconds", p.comm.wait_seconds}});
  }
  const dist::CommCounters rest = comm.take_counters();  // vertex passes, reductions, gathers
  total += rest;
  const nlohmann::json mine{{"rank", comm.rank()},
                            {"masters", comm.end(comm.rank()) - comm.first(comm.rank())},
                            {"seconds", seconds},
                            {"bytes_sent", total.bytes_sent},
                            {"messages", total.messages},
                            {"edge_pass_compute_seconds", compute},
                            {"communication_seconds", total.communication_seconds},
                            {"wait_seconds", total.wait_seconds},
                            {"communication_buffer_peak_bytes", comm.peak_buffer_bytes()},
                            {"passes", passes}};
  nlohmann::json report = mine;
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
  for (const auto& text : comm.gather_text(report.dump())) all.push_back(nlohmann::json::parse(text));
  return all;
}

uint64_t max_over_ranks(dist::Comm& comm, uint64_t x) {
  const auto bytes = comm.allgather(&x, sizeof(x));
  uint64_t most = 0;
  for (int r = 0; r < comm.size(); ++r) {
    uint64_t y = 0;
    std::memcpy(&y, bytes.data() + static_cast<size_t>(r) * sizeof(y), sizeof(y));
    most = std::max(most, y);
  }
  return most;
}

// The trials on one engine (shared-memory or distributed).
template <typename Kernel, typename Id, typename W, typename Engine>
void run_trials_on(const RunRequest& a, const Kernel& kernel, const GraphView<Id, W>& g, Engine& engine, uint64_t& passes,
                   std::unique_ptr<Progress>& progress, RunOutcome& out) {
  const bool root = !mpi::started() || mpi::rank() == 0;  // the rank that holds results and reports
  SourcePicker picker(g.num_vertices(), a.seed);
  KernelArgs args;
  args.parents = a.parents;
  args.delta = a.delta;
  // PageRank converges by default (an L1 change below kDefaultPageRankTolerance, as networkx and
  // GAPBS stop on a tolerance); -i alone asks for exactly that many iterations, and with
  // --tolerance it caps them.
  args.pagerank = PageRankOptions{a.damping, a.iterations, a.tolerance, 1000};
  if (!a.iterations_given && a.tolerance == 0) args.pagerank.tolerance = kDefaultPageRankTolerance;
  if (a.iterations_given && a.tolerance > 0) args.pagerank.max_iterations = a.iterations;
  for (int t = 0; t < a.trials; ++t) {
    TrialOutcome o;
    if (kernel.sources == Sources::kOne) {
      args.source = a.source ? g.file().dense_id(*a.source) : picker.next(g);
      o.source = args.source;
    }
    if (kernel.sources == Sources::kSample) {
      args.sources = !a.radii_sources.empty() ? a.radii_sources
                                              : radii_sources(g, a.samples, a.seed + static_cast<uint64_t>(t));
    }
    o.args = args;
    engine.reset_stats();
    passes = 0;
    progress = std::make_unique<Progress>(a.trials > 1 ? fmt::format("{} trial {}/{}:", kernel.name, t + 1, a.trials)
                                                       : fmt::format("{}:", kernel.name), 0,
                                          root && a.progress && log::level() >= log::Level::kInfo);  // -q: nothing
    if constexpr (requires { engine.comm(); }) engine.comm().wait_for_all();  // the ranks start together
    Timer timer;
    o.result = kernel.run(engine, args);
    o.seconds = timer.seconds();
    progress.reset();  // clears its line before results are printed
    if (a.pass_stats) o.iterations = to_json(engine.stats());
    o.vertex_bytes = engine.peak_vertex_bytes();
    o.memory = engine.memory();
    // Under a budget the verifier, which reads every edge from the mapping, runs after the peak
    // RSS of the trials is taken.
    if constexpr (requires { engine.rank_passes(); }) o.ranks = rank_reports(engine, o.seconds);
    if (a.verify && !a.budget.given() && root) o.verdict = kernel.verify(g, args, o.result);
    out.trials.push_back(std::move(o));
  }
}

template <typename Kernel, typename Id, typename W>
void run_trials(const RunRequest& a, const Kernel& kernel, const GraphView<Id, W>& g,
                std::shared_ptr<const GraphFile> file, RunOutcome& out, RunExtras& extras) {
  constexpr bool kWeights = !std::is_same_v<W, NoWeight>;
  std::unique_ptr<BlockStore> store;
  TieredStores tiers;
  if (a.budget.given()) {
    out.plan = make_plan(a.budget, *file,
                         {.algorithm = kernel.name,
                          .state_bytes = kernel.state_bytes(*file, sizeof(Id), kWeights),
                          .index_bytes = g.index_bytes(),
                          .weights = kWeights,
                          .parents = a.parents,
                          .threads = static_cast<uint32_t>(omp_get_max_threads())});
    for (const auto& line : out.plan->reasons) log::info("plan: {}", line);
    if (out.plan->far == "paging") file->advise_random();
    Timer check_timer;
    check_local_blocks(*file, *out.plan, !a.no_checksums, kWeights);
    extras.check_seconds = check_timer.seconds();
    tiers = make_tiered_stores(*out.plan, file, g.grid(Grid::kOut), g.grid(Grid::kIn),
                               {.io_threads = a.store_io_threads,
                                .weights = kWeights,
                                .check_hashes = !a.no_checksums,
                                .far_node = a.budget.far_node});
  } else {
    store = make_store(a, file, kWeights);
  }
  EngineOptions engine_options;
  engine_options.store = tiers.composite ? tiers.composite.get() : store.get();
  engine_options.schedule = a.schedule == "vertex" ? Schedule::kVertex : a.schedule == "block" ? Schedule::kBlock : Schedule::kAuto;
  engine_options.direction = a.direction == "push" ? Direction::kPush : a.direction == "pull" ? Direction::kPull : Direction::kAuto;
  engine_options.alpha = a.alpha;
  engine_options.beta = a.beta;
  engine_options.pull_share = a.pull_share;
  // A run of a second or more shows its passes on a terminal.
  std::unique_ptr<Progress> progress;
  uint64_t passes = 0;
  engine_options.hooks.end = [&](const IterationStats& s) {
    if (progress && progress->shown()) {  // no formatting per pass when nothing is drawn
      progress->status(fmt::format("pass {}: {} {}, {} vertices activated", ++passes, direction_name(s.direction),
                                   schedule_name(s.schedule), s.activated));
    }
    if (a.after_pass) a.after_pass();
  };
  std::unique_ptr<dist::Comm> comm;
  if (a.distributed) {
    const Partition partition = partition_vertices(*file, static_cast<uint32_t>(mpi::size()),
                                                   a.partition_alpha >= 0 ? a.partition_alpha : default_partition_alpha(static_cast<uint32_t>(mpi::size())));
    std::vector<uint64_t> bounds{0};
    for (const auto& r : partition.ranks) bounds.push_back(r.end);
    comm = std::make_unique<dist::Comm>(std::move(bounds));
    out.ranks = comm->size();
  }
  const auto trials = [&](auto& engine) { run_trials_on(a, kernel, g, engine, passes, progress, out); };
  if (comm) {
    const Exchange exchange = a.exchange == "accumulate" ? Exchange::kAccumulate
                              : a.exchange == "ring"     ? Exchange::kRing
                                                         : Exchange::kCollective;
    DistEngine<Id, W> engine(g, engine_options, *comm,
                             DistOptions{.exchange = exchange,
                                         .exchange_bytes = *parse_byte_size(a.exchange_memory),
                                         .ring_batch = a.ring_batch,
                                         .ring_hurried = a.ring_hurried,
                                         .slices = a.slices,
                                         .steal = a.steal});
    trials(engine);
    extras.store = store_json(engine.store());
  } else {
    Engine<Id, W> engine(g, engine_options);
    trials(engine);
    extras.store = store_json(engine.store());
  }
  out.peak_rss = peak_rss_bytes();
  if (comm) out.peak_rss = max_over_ranks(*comm, out.peak_rss);  // the largest rank's
  if (tiers.composite) extras.tiers = {store_json(*tiers.local), store_json(*tiers.far)};
  if (const auto* numa = dynamic_cast<const NumaStore*>(tiers.far.get())) extras.far_node_bytes = numa->node_bytes();
  if (a.verify && a.budget.given()) {
    for (auto& o : out.trials) o.verdict = kernel.verify(g, o.args, o.result);
  }
}


template <typename Kernel>
void check_kernel_fits(const RunRequest& a, const Kernel& kernel, const GraphFile& g) {
  if (a.parents && kernel.name != "bfs") fail("--parents applies to bfs only");
  if (!kernel.weighted) return;
  if (!g.weighted() && !a.unit_weights) {
    fail("{} needs edge weights and '{}' has none; pass --unit-weights to count hops as distance 1", kernel.name, g.path());
  }
  if (g.weighted() && !a.unit_weights && g.header().min_weight < 0) {
    fail("{} needs non-negative weights; '{}' has weights down to {}", kernel.name, g.path(), g.header().min_weight);
  }
}

nlohmann::json report_json(const RunRequest& a, const GraphFile& file, const RunOutcome& out, const RunExtras& extras,
                           double read_seconds, uint64_t baseline_rss) {
  double total = 0;
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& o : out.trials) {
    total += o.seconds;
    nlohmann::json t{{"seconds", o.seconds},
                     {"summary", o.result.summary},
                     {"iterations", o.iterations},
                     {"vertex_state_bytes", o.vertex_bytes},
                     {"memory", {{"vertex_state_peak", o.memory.vertex_state_peak},
                                 {"engine_sets", o.memory.engine_sets},
                                 {"block_index", o.memory.block_index},
                                 {"store_pool", o.memory.store_pool}}}};
    if (o.source) t["source"] = file.original_id(*o.source);
    if (o.result.edges_traversed) t["teps"] = static_cast<double>(o.result.edges_traversed) / o.seconds;
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
                   {"schedule", a.schedule},
                   {"store", extras.store},
                   {"trials", trials},
                   {"average_seconds", total / static_cast<double>(out.trials.size())}};
  if (out.ranks > 1) {
    j["ranks"] = out.ranks;
    j["exchange"] = a.exchange;
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
    // the numa tier's node is the local one, and RSS cannot tell them apart).
    const uint64_t local = out.peak_rss - std::min(out.peak_rss, extras.far_node_bytes);
    // The paging baseline is held to its budget by the kernel (a cgroup limit), not by tiergraph.
    if (out.plan->budget && out.plan->far != "paging") {
      j["within_budget"] = local <= *out.plan->budget + kFixedOverheadBytes;
    }
  }
  return j;
}

}  // namespace

void check_run_request(const RunRequest& a) {
  if (!with_kernel(a.algorithm, [](const auto&) {})) {
    fail("unknown algorithm '{}': one of bfs, sssp, wcc (cc, components), pr (pagerank), radii", a.algorithm);
  }
  apply_threads(a.threads);
  if (a.trials < 1) fail("--trials must be at least 1");
  if (a.samples < 1 || a.samples > 64) fail("--samples must be between 1 and 64, got {}", a.samples);
  if (a.radii_sources.size() > 64) fail("radii takes at most 64 sources, got {}", a.radii_sources.size());
  if (a.iterations < 1) fail("--iterations must be at least 1");
  if (!(a.tolerance >= 0)) fail("--tolerance must not be negative");
  if (!(a.damping > 0 && a.damping < 1)) fail("--damping must be in (0, 1)");
  if (!(a.alpha > 0) || !(a.beta > 0)) fail("--alpha and --beta must be positive");
  if (!(a.pull_share > 0)) fail("--pull-share must be positive");
  if (!(a.delta >= 0)) fail("--delta must be positive, got {}", a.delta);
  if (a.direction != "auto" && a.direction != "push" && a.direction != "pull") {
    fail("--direction must be auto, push or pull, got '{}'", a.direction);
  }
  if (a.schedule != "auto" && a.schedule != "vertex" && a.schedule != "block") {
    fail("--schedule must be auto, vertex or block, got '{}'", a.schedule);
  }
  if (a.store != "mapped" && a.store != "copying" && a.store != "file") {
    fail("--store must be mapped, copying or file, got '{}'", a.store);
  }
  if (a.store_buffers < 1) fail("--store-buffers must be at least 1");
  if (a.store_depth < 1) fail("--store-depth must be at least 1");
  if (a.store_io_threads < 1 || a.store_io_threads > 64) fail("--store-io-threads must be 1 to 64, got {}", a.store_io_threads);
  if (!(a.store_delay >= 0 && a.store_delay <= 60)) fail("--store-delay must be between 0 and 60 seconds, got {}", a.store_delay);
  check_budget_options(a.budget, a.far_given);
  if (a.exchange != "collective" && a.exchange != "ring" && a.exchange != "accumulate") {
    fail("--exchange must be collective, ring or accumulate, got '{}'", a.exchange);
  }
  if (a.ring_batch < 1 || a.ring_batch > (1u << 20)) fail("--ring-batch must be 1 to 1048576 records, got {}", a.ring_batch);
  if (!(a.ring_hurried > 0 && a.ring_hurried <= 1)) fail("--ring-hurried must be a share of the ring in (0, 1], got {}", a.ring_hurried);
  if (a.slices < 1 || a.slices > 4096) fail("--slices must be 1 to 4096, got {}", a.slices);
  if (a.slices > 1 && a.exchange == "collective") {
    fail("--slices {} needs --exchange ring or accumulate: the collective exchange sends once, after the pass", a.slices);
  }
  if (a.steal && a.slices < 2) fail("--steal takes slices from other ranks: it needs --slices 2 or more (and --exchange ring or accumulate)");
  if (a.distributed) {
    const auto bound = parse_byte_size(a.exchange_memory);
    if (!bound || *bound < 4096) fail("--exchange-memory must be at least 4K, got '{}'", a.exchange_memory);
    if (a.steal && dist::TaskBoard::records_fitting(*bound / 8, 16, a.slices) == 0) {
      fail("--steal with --slices {} needs a larger --exchange-memory than {}: the task board's eighth of it holds no task", a.slices,
           a.exchange_memory);
    }
    if (a.budget.given()) fail("--memory-budget and --far-ratio on MPI ranks are not built yet; run the ranks without a budget");
    if (a.store != "mapped") fail("--store {} on MPI ranks is not built yet; each rank maps its rows of the file", a.store);
    if (a.schedule == "block") fail("--schedule block on MPI ranks is not built yet; ranks pass over their vertices (vertex-major)");
  }
  if (a.budget.given() && a.store != "mapped") {
    fail("--store puts every block in one store; under --memory-budget or --far-ratio the planner places them");
  }
}

RunOutcome run_algorithm(const RunRequest& a, std::shared_ptr<const GraphFile> file, double read_seconds,
                         uint64_t baseline_rss) {
  check_run_request(a);
  RunOutcome out;
  RunExtras extras;
  with_kernel(a.algorithm, [&](const auto& kernel) {
    out.algorithm = kernel.name;
    check_kernel_fits(a, kernel, *file);
    if (file->num_vertices() == 0) fail("'{}' has no vertices", file->path());
    for (uint64_t s : a.radii_sources) {
      if (s >= file->num_vertices()) fail("radii source {} is not a vertex (the graph has {})", s, file->num_vertices());
    }
    if (kernel.weighted && !a.unit_weights) {
      with_weighted_view(file, [&](const auto& view) { run_trials(a, kernel, view, file, out, extras); });
    } else {
      with_unweighted_view(file, [&](const auto& view) { run_trials(a, kernel, view, file, out, extras); });
    }
  });
  for (const auto& o : out.trials) {
    if (o.verdict && !o.verdict->ok) out.all_verified = false;
  }
  out.report = report_json(a, *file, out, extras, read_seconds, baseline_rss);
  return out;
}

}  // namespace tg::cli
