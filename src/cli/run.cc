// `tiergraph run ALGO GRAPH`: the benchmark driver, in the manner of GAPBS: read the graph once,
// run the kernel for each trial (timing only the kernel), verify each trial if asked, print
// `Label: value` lines (or JSON), and write the last trial's per-vertex result if asked.
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "algorithms/kernels.h"
#include "algorithms/output.h"
#include "algorithms/sources.h"
#include "cli/budget.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/validators.h"
#include "dist/mpi_runtime.h"
#include "engine/engine.h"
#include "graph/format.h"
#include "store/copying_store.h"
#include "store/numa_store.h"
#include "store/uring_transfer.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt_cleanup.h"
#include "util/log.h"
#include "util/memory.h"
#include "util/progress.h"
#include "util/timer.h"

namespace tg::cli {

namespace {

// PageRank's default stopping rule: the L1 change between iterations below this, which leaves the
// ranks within about 6e-7 (0.85 / 0.15 times it) in L1 of the fixed point.
constexpr double kDefaultPageRankTolerance = 1e-7;

struct RunArgs {
  std::string algorithm, graph, output, direction = "auto", schedule = "auto", store = "mapped", store_order = "in-order";
  uint32_t store_buffers = 8, store_depth = 4, store_io_threads = 1;
  std::string store_buffer_bytes;  // empty: the largest block's size
  PathArgument graph_arg;
  bool iterations_given = false;  // -i on the command line: a fixed count (or a cap on --tolerance)
  double store_delay = 0;
  GraphInputArgs input;
  int trials = 1, threads = 0, iterations = 20, samples = 64;
  bool verify = false, json = false, parents = false, unit_weights = false, no_checksums = false, overwrite = false;
  std::optional<uint64_t> source;
  uint64_t seed = 27491095;
  double alpha = EngineOptions{}.alpha, beta = EngineOptions{}.beta, pull_share = EngineOptions{}.pull_share;
  double tolerance = 0, damping = 0.85, delta = 0;
  BudgetArgs budget;
  bool far_given = false;
};

bool is_graph_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  return in.gcount() == 8 && std::memcmp(magic, format::kMagic, 8) == 0;
}

// A graph file for `path`: itself, or a temporary conversion of a text input.
std::shared_ptr<const GraphFile> open_graph(const RunArgs& a) {
  OpenOptions open_options{.verify_checksums = !a.no_checksums, .verify_block_hashes = !a.no_checksums};
  if (!std::filesystem::exists(a.graph)) fail("cannot open '{}': no such file", a.graph);
  // Under a budget, blocks are checked one by one before their first use, not all at the open.
  open_options.check_blocks = !a.budget.given();
  if (is_graph_file(a.graph)) return GraphFile::open(a.graph, open_options);
  if (a.budget.given()) {
    fail("--memory-budget and --far-ratio need a graph file ('{}' would be converted in memory first); convert it with: "
         "tiergraph convert {} GRAPH.tg",
         a.graph, a.graph);
  }
  log::info("'{}' is not a graph file: converting it on the fly", a.graph);
  const auto dir = std::filesystem::temp_directory_path();
  std::string temp = (dir / "tiergraph-run-XXXXXX").string();
  const int fd = create_temporary_file(temp);
  if (fd < 0) fail("cannot create a temporary file in {}: {}", dir.string(), std::strerror(errno));
  close(fd);
  struct Forget {  // removed below; the interrupt handler need not know it any more
    const std::string& path;
    ~Forget() { forget_on_interrupt(path); }
  } forget{temp};
  ConvertOptions options = make_convert_options(a.input);
  options.overwrite = true;
  try {
    const auto report = convert_file(a.graph, temp, options);
    log_convert_report(report);
    auto g = GraphFile::open(temp, open_options);
    std::filesystem::remove(temp);  // the mapping keeps the data alive
    return g;
  } catch (...) {
    std::filesystem::remove(temp);
    throw;
  }
}

struct TrialOutcome {
  KernelArgs args;
  AlgorithmResult result;
  double seconds = 0;
  std::optional<uint64_t> source;
  std::optional<Verdict> verdict;
  nlohmann::json iterations;
  uint64_t vertex_bytes = 0;  // peak of the vertex state the engine held
  MemoryUse memory;           // by class, at the end of the trial
};

// The block store of a run: none (the engine's mapped store), the copying store (pread, with
// injected latency and order) or the file tier (O_DIRECT through io_uring).
std::unique_ptr<BlockStore> make_store(const RunArgs& a, std::shared_ptr<const GraphFile> file, bool weights) {
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

// What a run reports of its memory: the plan under a budget, and the peak RSS it reached.
struct MemoryReport {
  std::optional<TierPlan> plan;
  double check_seconds = 0;     // checking the local blocks (under a budget)
  uint64_t peak_rss = 0;        // after the trials, before any verification
  uint64_t far_node_bytes = 0;  // the numa tier's memory (on the far node: outside the local budget)
  nlohmann::json tiers = nlohmann::json::array();
};

template <typename Kernel, typename Id, typename W>
std::vector<TrialOutcome> run_trials(const RunArgs& a, const Kernel& kernel, const GraphView<Id, W>& g,
                                     std::shared_ptr<const GraphFile> file, nlohmann::json& store_report,
                                     MemoryReport& memory) {
  constexpr bool kWeights = !std::is_same_v<W, NoWeight>;
  std::unique_ptr<BlockStore> store;
  TieredStores tiers;
  if (a.budget.given()) {
    memory.plan = make_plan(a.budget, *file,
                            {.algorithm = kernel.name,
                             .state_bytes = kernel.state_bytes(g.num_vertices(), sizeof(Id)),
                             .index_bytes = g.index_bytes(),
                             .weights = kWeights,
                             .parents = a.parents,
                             .threads = static_cast<uint32_t>(omp_get_max_threads())});
    for (const auto& line : memory.plan->reasons) log::info("plan: {}", line);
    if (memory.plan->far == "paging") file->advise_random();
    Timer check_timer;
    check_local_blocks(*file, *memory.plan, !a.no_checksums, kWeights);
    memory.check_seconds = check_timer.seconds();
    tiers = make_tiered_stores(*memory.plan, file, g.grid(Grid::kOut), g.grid(Grid::kIn),
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
  };
  Engine<Id, W> engine(g, engine_options);
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
  std::vector<TrialOutcome> outcomes;
  for (int t = 0; t < a.trials; ++t) {
    TrialOutcome o;
    if (kernel.sources == Sources::kOne) {
      args.source = a.source ? g.file().dense_id(*a.source) : picker.next(g);
      o.source = args.source;
    }
    if (kernel.sources == Sources::kSample) args.sources = radii_sources(g, a.samples, a.seed + static_cast<uint64_t>(t));
    o.args = args;
    engine.reset_stats();
    passes = 0;
    progress = std::make_unique<Progress>(a.trials > 1 ? fmt::format("{} trial {}/{}:", kernel.name, t + 1, a.trials)
                                                       : fmt::format("{}:", kernel.name), 0,
                                          log::level() >= log::Level::kInfo);  // -q: nothing
    Timer timer;
    o.result = kernel.run(engine, args);
    o.seconds = timer.seconds();
    progress.reset();  // clears its line before results are printed
    if (a.json) o.iterations = to_json(engine.stats());  // road SSSP's 12,815 passes make 20 MiB of JSON
    o.vertex_bytes = engine.peak_vertex_bytes();
    o.memory = engine.memory();
    // Under a budget the verifier, which reads every edge from the mapping, runs after the peak
    // RSS of the trials is taken.
    if (a.verify && !a.budget.given()) o.verdict = kernel.verify(g, args, o.result);
    outcomes.push_back(std::move(o));
  }
  memory.peak_rss = peak_rss_bytes();
  store_report = store_json(engine.store());
  if (tiers.composite) memory.tiers = {store_json(*tiers.local), store_json(*tiers.far)};
  if (const auto* numa = dynamic_cast<const NumaStore*>(tiers.far.get())) memory.far_node_bytes = numa->node_bytes();
  if (a.verify && a.budget.given()) {
    for (auto& o : outcomes) o.verdict = kernel.verify(g, o.args, o.result);
  }
  return outcomes;
}

template <typename Kernel>
void check_kernel_fits(const RunArgs& a, const Kernel& kernel, const GraphFile& g) {
  if (a.parents && kernel.name != "bfs") fail("--parents applies to bfs only");
  if (!kernel.weighted) return;
  if (!g.weighted() && !a.unit_weights) {
    fail("{} needs edge weights and '{}' has none; pass --unit-weights to count hops as distance 1", kernel.name, g.path());
  }
  if (g.weighted() && !a.unit_weights && g.header().min_weight < 0) {
    fail("{} needs non-negative weights; '{}' has weights down to {}", kernel.name, g.path(), g.header().min_weight);
  }
}

void run_command(const RunArgs& a) {
  apply_threads(a.threads);
  if (a.trials < 1) fail("--trials must be at least 1");
  if (a.samples < 1 || a.samples > 64) fail("--samples must be between 1 and 64, got {}", a.samples);
  if (a.iterations < 1) fail("--iterations must be at least 1");
  if (a.tolerance < 0) fail("--tolerance must not be negative");
  if (!(a.damping > 0 && a.damping < 1)) fail("--damping must be in (0, 1)");
  if (a.alpha <= 0 || a.beta <= 0) fail("--alpha and --beta must be positive");
  if (!(a.pull_share > 0)) fail("--pull-share must be positive");
  if (!a.output.empty()) {  // before any work: a bad name or an existing file is refused at once
    result_format(a.output);
    refuse_existing_output(a.output, a.overwrite);
  }
  if (a.store_buffers < 1) fail("--store-buffers must be at least 1");
  if (a.store_depth < 1) fail("--store-depth must be at least 1");
  if (a.store_io_threads < 1 || a.store_io_threads > 64) fail("--store-io-threads must be 1 to 64, got {}", a.store_io_threads);
  if (!(a.store_delay >= 0 && a.store_delay <= 60)) fail("--store-delay must be between 0 and 60 seconds, got {}", a.store_delay);
  check_budget_options(a.budget, a.far_given);
  if (a.budget.given() && a.store != "mapped") {
    fail("--store puts every block in one store; under --memory-budget or --far-ratio the planner places them");
  }
  const uint64_t baseline_rss = current_rss_bytes();
  if (a.budget.given() && a.budget.far == "rank") {
    if (!mpi::launched()) {
      fail("--far rank reads the far blocks from a second process, a far-memory rank: start the run with "
           "`mpirun -np 2 tiergraph run ...` (as root add --allow-run-as-root; on one machine, --mca osc sm)");
    }
    mpi::start();
    if (mpi::size() != 2) fail("--far rank runs as two ranks (rank 1 serves the far blocks), not {}", mpi::size());
  }
  Timer read_timer;
  auto file = open_graph(a);
  if (mpi::started() && mpi::rank() == 1) {  // the far-memory rank: serve, print nothing
    serve_far_blocks(*file);
    return;
  }
  const double read_seconds = read_timer.seconds();
  std::vector<TrialOutcome> outcomes;
  std::string algorithm;
  nlohmann::json store_report;
  MemoryReport memory;
  with_kernel(a.algorithm, [&](const auto& kernel) {
    algorithm = kernel.name;
    check_kernel_fits(a, kernel, *file);
    if (file->num_vertices() == 0) fail("'{}' has no vertices", file->path());
    if (kernel.weighted && !a.unit_weights) {
      with_weighted_view(file, [&](const auto& view) { outcomes = run_trials(a, kernel, view, file, store_report, memory); });
    } else {
      with_unweighted_view(file, [&](const auto& view) { outcomes = run_trials(a, kernel, view, file, store_report, memory); });
    }
  });

  double total = 0;
  bool all_ok = true;
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& o : outcomes) {
    total += o.seconds;
    if (o.verdict && !o.verdict->ok) all_ok = false;
    nlohmann::json t{{"seconds", o.seconds},
                     {"summary", o.result.summary},
                     {"iterations", o.iterations},
                     {"vertex_state_bytes", o.vertex_bytes},
                     {"memory", {{"vertex_state_peak", o.memory.vertex_state_peak},
                                 {"engine_sets", o.memory.engine_sets},
                                 {"block_index", o.memory.block_index},
                                 {"store_pool", o.memory.store_pool}}}};
    if (o.source) t["source"] = file->original_id(*o.source);
    if (o.result.edges_traversed) t["teps"] = static_cast<double>(o.result.edges_traversed) / o.seconds;
    if (o.verdict) {
      t["verified"] = o.verdict->ok;
      if (!o.verdict->ok) t["verification_error"] = o.verdict->message;
    }
    trials.push_back(t);
  }
  const double average = total / static_cast<double>(outcomes.size());
  if (a.json) {
    nlohmann::json j{{"algorithm", algorithm},
                     {"graph", file->path()},
                     {"vertices", file->num_vertices()},
                     {"edges", file->num_edges()},
                     {"directed", file->directed()},
                     {"threads", omp_get_max_threads()},
                     {"read_seconds", read_seconds},
                     {"schedule", a.schedule},
                     {"store", store_report},
                     {"trials", trials},
                     {"average_seconds", average}};
    if (a.verify) j["verification"] = all_ok ? "PASS" : "FAIL";
    j["peak_rss_bytes"] = memory.peak_rss;
    j["baseline_rss_bytes"] = baseline_rss;
    if (memory.plan) {
      j["plan"] = memory.plan->to_json();
      j["local_check_seconds"] = memory.check_seconds;
      j["tiers"] = memory.tiers;
      j["far_node_bytes"] = memory.far_node_bytes;
      // Local memory: what the process holds, less the far node's share (on a one-node machine
      // the numa tier's node is the local one, and RSS cannot tell them apart).
      const uint64_t local = memory.peak_rss - std::min(memory.peak_rss, memory.far_node_bytes);
      // The paging baseline is held to its budget by the kernel (a cgroup limit), not by tiergraph.
      if (memory.plan->budget && memory.plan->far != "paging") {
        j["within_budget"] = local <= *memory.plan->budget + kFixedOverheadBytes;
      }
    }
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("Graph: {} ({} vertices, {} {} edges)\n", file->path(), file->num_vertices(), file->num_edges(),
               file->directed() ? "directed" : "undirected");
    fmt::print("Read Time: {:.5f}\n", read_seconds);
    for (const auto& o : outcomes) {
      if (o.source) fmt::print("Source: {}\n", file->original_id(*o.source));
      fmt::print("Trial Time: {:.5f}\n", o.seconds);
      for (const auto& [key, value] : o.result.summary.items()) fmt::print("{}: {}\n", key, value.dump());
      if (o.result.edges_traversed) fmt::print("MTEPS: {:.2f}\n", static_cast<double>(o.result.edges_traversed) / o.seconds / 1e6);
      if (o.verdict) {
        fmt::print("Verification: {}\n", o.verdict->ok ? "PASS" : "FAIL");
        if (!o.verdict->ok) log::info("verification failed: {}", o.verdict->message);
      }
    }
    fmt::print("Average Time: {:.5f}\n", average);
    if (memory.plan) {
      fmt::print("Far Ratio: {:.3f}\n", memory.plan->far_ratio);
      fmt::print("Peak RSS: {}{}\n", format_byte_size(memory.peak_rss),
                 memory.plan->budget ? fmt::format(" (budget {} + {} runtime)", format_byte_size(*memory.plan->budget),
                                                   format_byte_size(kFixedOverheadBytes))
                                     : std::string());
    }
  }
  if (!a.output.empty()) {
    write_result(*file, outcomes.back().result, a.output);
    log::info("Wrote per-vertex results to '{}'", a.output);
  }
  if (!all_ok) fail("verification failed");
}

}  // namespace

Runner add_run(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run an algorithm: bfs, sssp, wcc (cc, components), pr (pagerank), radii");
  auto a = std::make_shared<RunArgs>();
  cmd->add_option("algorithm", a->algorithm, "bfs | sssp | wcc (cc, components) | pr (pagerank) | radii")->required()->check(CLI::IsMember(kernel_names()));
  add_path_argument(*cmd, a->graph_arg, "GRAPH", "Graph file, or any input `convert` reads (converted on the fly)");
  cmd->add_option("-n,--trials", a->trials, "Trials (each timed; sources differ per trial)");
  cmd->add_option("-t,--threads", a->threads, "Threads, at least 1 (default: all cores)")->check(CLI::Range(1, 4096));
  cmd->add_flag("-v,--verify", a->verify, "Check each trial's result with the algorithm's serial verifier");
  cmd->add_flag("--json", a->json, "Print the run report (with per-iteration statistics) as JSON");
  cmd->add_option("-o,--output", a->output,
                  "Write per-vertex results, in the format the extension names: .tsv/.txt (id<TAB>value lines), .csv "
                  "(header id,value) or .npy (structured array of id u8 and value i8 or f8); unreached vertices are "
                  "'infinity' in text and the int64 maximum (or inf) in .npy");
  cmd->add_flag("--overwrite", a->overwrite, "Replace the output file if it exists");
  cmd->add_option("-r,--source", a->source, "Source vertex (original id, not negative) for bfs and sssp")->check(vertex_id());
  cmd->add_option("--seed", a->seed, "Seed for source sampling (bfs, sssp, radii)");
  cmd->add_option("--direction", a->direction, "Edge pass direction: auto (per iteration), push or pull")->check(CLI::IsMember({"auto", "push", "pull"}));
  cmd->add_option("--schedule", a->schedule, "Edge passes vertex by vertex or block by block: auto (vertex-major when every block is resident, block-major when the store fetches), vertex or block")->check(CLI::IsMember({"auto", "vertex", "block"}));
  cmd->add_option("--store", a->store, "Where edge blocks come from: mapped (the file's mapping, zero-copy), file (the disk tier: read with O_DIRECT through io_uring into a pool of buffers, no page cache) or copying (pread into the pool with injected latency and order; for tests and benchmarks of the block store)")->check(CLI::IsMember({"mapped", "copying", "file"}));
  cmd->add_option("--store-buffers", a->store_buffers, "copying store: buffers in the pool (default 8)");
  cmd->add_option("--store-buffer-bytes", a->store_buffer_bytes, "copying store: bytes each buffer holds, e.g. 256K (default: the largest block's size); larger blocks are leased in pieces, which only block-major passes read")->check(byte_size());
  cmd->add_option("--store-depth", a->store_depth, "copying store: requests in flight at most (default 4)");
  cmd->add_option("--store-io-threads", a->store_io_threads, "copying store: its own threads completing requests, not counted in --threads (default 1)");
  cmd->add_option("--store-delay", a->store_delay, "copying store: injected latency per request, in seconds (default 0)");
  cmd->add_option("--store-order", a->store_order, "copying store: order requests complete in: in-order, reverse or shuffled")->check(CLI::IsMember({"in-order", "reverse", "shuffled"}));
  cmd->add_option("--alpha", a->alpha, "Auto direction: pull when the frontier's edges exceed unexplored edges / alpha (default 15)");
  cmd->add_option("--beta", a->beta, "Auto direction: back to push when the frontier has fewer than n / beta vertices (default 18)");
  cmd->add_option("--pull-share", a->pull_share, "Auto direction for programs that cannot stop a pull early (sssp, wcc): pull when the frontier's edges exceed this share of all arcs (default 0.5)");
  cmd->add_flag("--parents", a->parents, "bfs: also compute the BFS tree (verified as a tree)");
  cmd->add_option("-d,--delta", a->delta, "sssp: delta-stepping bucket width, > 0 (default: mean weight / mean degree)")->check(positive_number());
  cmd->add_flag("--unit-weights", a->unit_weights, "sssp: every edge has length 1 (hop distances)");
  auto* iterations = cmd->add_option("-i,--iterations", a->iterations, "pr: exactly this many iterations; with --tolerance, at most this many");
  cmd->add_option("--tolerance", a->tolerance, "pr: iterate until the L1 change between iterations is below this, > 0 (default 1e-7, at most 1000 iterations, when -i is not given)")->check(positive_number());
  cmd->add_option("--damping", a->damping, "pr: damping factor (default 0.85)");
  cmd->add_option("-k,--samples", a->samples, "radii: sampled sources, at most 64 (default 64)");
  cmd->add_flag("--no-checksums", a->no_checksums, "Skip verifying the graph file's checksums and hashes (its structure is always checked)");
  add_budget_options(*cmd, a->budget);
  add_graph_input_options(*cmd, a->input);
  return [a, iterations, cmd] {
    a->graph = a->graph_arg.path();
    a->far_given = cmd->count("--far") > 0;
    a->iterations_given = iterations->count() > 0;
    run_command(*a);
  };
}

}  // namespace tg::cli
