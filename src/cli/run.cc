// `tiergraph run ALGO GRAPH`: the benchmark driver, in the manner of GAPBS: read the graph once,
// run the kernel for each trial (timing only the kernel), verify each trial if asked, print
// `Label: value` lines (or JSON), and write the last trial's per-vertex result if asked.
#include <omp.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "algorithms/output.h"
#include "cli/budget_options.h"
#include "cli/choice_option.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/validators.h"
#include "engine/cpu/engine.h"
#include "graph/format.h"
#include "mpi/comm.h"
#include "mpi/mpi_runtime.h"
#include "run/kernels.h"
#include "run/run_algorithm.h"
#include "run/threads.h"
#include "store/far_rank.h"
#include "util/atomic_file.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/interrupt_cleanup.h"
#include "util/log.h"
#include "util/memory.h"
#include "util/timer.h"

namespace tg::cli {

namespace {

// `run`'s arguments: the request, and what only the command line has (the graph's path, how
// to read a text input, the output file, JSON or text).
struct RunArgs {
  run::RunRequest request;
  std::string graph, output;
  PathArgument graph_arg;
  GraphInputArgs input;
  bool json = false, overwrite = false;
  bool output_given = false;  // -o, even as "": an empty name is refused, not taken for no output
};

bool is_graph_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  return in.gcount() == 8 && std::memcmp(magic, format::kMagic, 8) == 0;
}

// A graph file for `path`: itself, or a temporary conversion of a text input.
std::shared_ptr<const GraphFile> open_graph(const RunArgs& a) {
  OpenOptions open_options{.verify_checksums = !a.request.no_checksums,
                           .verify_block_hashes = !a.request.no_checksums};
  if (!std::filesystem::exists(a.graph)) fail("cannot open '{}': no such file", a.graph);
  // Under a budget, blocks are checked one by one before their first use, not all at the open.
  open_options.check_blocks = !a.request.budget.given();
  if (is_graph_file(a.graph)) return GraphFile::open(a.graph, open_options);
  if (a.request.budget.given()) {
    fail(
        "--memory-budget and --far-ratio need a graph file ('{}' would be converted in memory "
        "first); convert it with: "
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
  ConvertOptions options = run::make_convert_options(a.input);
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

void run_command(const RunArgs& a) {
  const run::RunRequest& r = a.request;
  const uint64_t baseline_rss = current_rss_bytes();
  const bool far_ranks = r.budget.given() && r.budget.far == FarTier::kRank;
  const bool under_mpirun = mpi::launched() && mpi::launched_size() > 1;
  // Under mpirun every process checks the same options and opens the same file: MPI starts
  // first, so the start is agreed on (mpi::agree) and an error every rank meets is told once.
  if (under_mpirun) mpi::start();
  run::RunRequest request = r;
  std::shared_ptr<const GraphFile> file;
  Timer read_timer;
  mpi::agree([&] {
    run::check_run_request(r);
    run::apply_threads(r.threads);  // reading the graph file checks its blocks on these threads
    if (a.output_given) {  // before any work: a bad name, directory or an existing file is refused
                           // at once
      check_output_path(a.output, a.overwrite);
      result_format(a.output);
    }
#if !TG_HAVE_MPI
    if (far_ranks) mpi::refuse_without_mpi("--far rank");
#endif
    if (far_ranks && !under_mpirun) {
      fail(
          "--far rank reads the far blocks from a second process, a far-memory rank: start the run "
          "with "
          "`mpirun -np 2 tiergraph run ...`, or -np 2N for N computing ranks (as root add "
          "--allow-run-as-root; on one "
          "machine, --mca osc sm)");
    }
  });
  // Each step that calls a collective is agreed on apart: a process that failed before it must
  // not leave the others waiting in it.
  if (far_ranks)
    mpi::agree(
        mpi::pair_with_far_ranks);  // the first half computes, the second serves their far blocks
  mpi::agree([&] {
    if (mpi::started() && !mpi::serves_far_blocks() && mpi::size() > 1) {
      request.distributed = true;
      run::check_run_request(request);
      if (r.threads == 0) {  // the machine's cores shared among the computing ranks on it
        const int processes_here =
            std::max(1, mpi::environment_count("OMPI_COMM_WORLD_LOCAL_SIZE"));
        const int ranks_here = far_ranks ? std::max(1, processes_here / 2) : processes_here;
        omp_set_num_threads(run::threads_per_rank(ranks_here));
      }
    }
    read_timer.restart();
    file = open_graph(a);
  });
  // Every process holds its file now: the pair of a far rank, and the computing ranks, compare
  // theirs.
#if TG_HAVE_MPI  // (without MPI, far_ranks was refused above)
  if (far_ranks)
    mpi::agree(
        [&] { check_far_rank_file(*file); });  // before any block moves: the pair reads one file
#endif
  mpi::agree([&] {  // every process agrees, though only the computing ranks compare
    if (request.distributed)
      mpi::check_same_graph(file->file_bytes(), file->header().header_checksum,
                            file->path().c_str());
  });
  // In place where every pair shares a machine (the same answer on every process).
#if TG_HAVE_MPI
  if (far_ranks)
    mpi::agree(
        [&] { request.far_rank_in_place = far_rank_reads_in_place(!r.budget.far_rank_copy); });
  if (mpi::serves_far_blocks()) {  // a far-memory rank: serve, print nothing
    serve_far_blocks(*file, request.far_rank_in_place);
    return;
  }
#endif
  const run::RunOutcome out = run::run_algorithm(request, file, read_timer.seconds(), baseline_rss);
  if (request.distributed && mpi::rank() != 0) return;  // rank 0 reports and writes
  if (a.json) {
    fmt::print("{}\n", out.report.dump(2));
  } else {
    fmt::print("Graph: {} ({} vertices, {} {} edges)\n", file->path(), file->num_vertices(),
               file->num_edges(), file->directed() ? "directed" : "undirected");
    fmt::print("Read Time: {:.5f}\n", out.report["read_seconds"].get<double>());
    for (const auto& o : out.trials) {
      if (o.source) fmt::print("Source: {}\n", file->original_id(*o.source));
      fmt::print("Trial Time: {:.5f}\n", o.seconds);
      for (const auto& [key, value] : o.result.summary.items())
        fmt::print("{}: {}\n", key, value.dump());
      if (o.result.edges_traversed)
        fmt::print("MTEPS: {:.2f}\n",
                   static_cast<double>(o.result.edges_traversed) / o.seconds / 1e6);
      if (o.verdict) {
        fmt::print("Verification: {}\n", o.verdict->ok ? "PASS" : "FAIL");
        if (!o.verdict->ok) log::info("verification failed: {}", o.verdict->message);
      }
    }
    fmt::print("Average Time: {:.5f}\n", out.report["average_seconds"].get<double>());
    if (out.plan) {
      fmt::print("Far Ratio: {:.3f}\n", out.plan->far_ratio);
      fmt::print("Peak RSS: {}{}\n", format_byte_size(out.peak_rss),
                 out.plan->budget
                     ? fmt::format(" (budget {} + {} runtime)", format_byte_size(*out.plan->budget),
                                   format_byte_size(kFixedOverheadBytes))
                     : std::string());
    }
  }
  if (!a.output.empty()) {
    write_result(*file, out.trials.back().result, a.output);
    log::info("Wrote per-vertex results to '{}'", a.output);
  }
  if (!out.all_verified) fail("verification failed");
}

}  // namespace

Runner add_run(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "run",
      "Run an algorithm: bfs, sssp, wcc (cc, components), pr (pagerank), radii, bc (betweenness), "
      "tc (triangles), lcc (clustering), cdlp (label_propagation)");
  auto a = std::make_shared<RunArgs>();
  cmd->add_option("algorithm", a->request.algorithm,
                  "bfs | sssp | wcc (cc, components) | pr (pagerank) | radii | bc (betweenness) | "
                  "tc (triangles) | lcc (clustering) | cdlp (label_propagation)")
      ->required()
      ->check(CLI::IsMember(kernel_names()));
  add_path_argument(*cmd, a->graph_arg, "GRAPH",
                    "Graph file, or any input `convert` reads (converted on the fly)");
  cmd->add_option("-n,--trials", a->request.trials,
                  "Trials (each timed; sources differ per trial)");
  cmd->add_option("-t,--threads", a->request.threads, "Threads, at least 1 (default: all cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("-v,--verify", a->request.verify,
                "Check each trial's result with the algorithm's serial verifier");
  cmd->add_flag("--json", a->json, "Print the run report (with per-iteration statistics) as JSON");
  cmd->add_option("-o,--output", a->output,
                  "Write per-vertex results, in the format the extension names: .tsv/.txt "
                  "(id<TAB>value lines), .csv "
                  "(header id,value) or .npy (structured array of id u8 and value i8 or f8); "
                  "unreached vertices are "
                  "'infinity' in text and the int64 maximum (or inf) in .npy; with --parents a "
                  "third column, parent "
                  "(the BFS-tree parent's id; the source is its own, empty if unreached; in .npy "
                  "i8, -1 for none); "
                  "Parquet comes from the Python package");
  cmd->add_flag("--overwrite", a->overwrite, "Replace the output file if it exists");
  cmd->add_option("-r,--source", a->request.source,
                  "Source vertex (original id, not negative) for bfs and sssp; bc: the one "
                  "source")
      ->check(vertex_id());
  cmd->add_option("--seed", a->request.seed, "Seed for source sampling (bfs, sssp, radii, bc)");
  add_choice(cmd, "--direction", a->request.direction,
             "Edge pass direction: auto (per iteration), push or pull");
  add_choice(cmd, "--schedule", a->request.schedule,
             "Edge passes vertex by vertex or block by block: auto (vertex-major when every "
             "block is resident, block-major when the store fetches), vertex or block");
  add_choice(cmd, "--store", a->request.store,
             "Where edge blocks come from: mapped (the file's mapping, zero-copy), file (the "
             "disk tier: read with O_DIRECT through io_uring into a pool of buffers, no page "
             "cache) or copying (pread into the pool with injected latency and order; for "
             "tests and benchmarks of the block store)");
  cmd->add_option("--store-buffers", a->request.store_buffers,
                  "copying store: buffers in the pool (default 8)");
  cmd->add_option("--store-buffer-bytes", a->request.store_buffer_bytes,
                  "copying store: bytes each buffer holds, e.g. 256K (default: the largest block's "
                  "size); larger blocks are leased in pieces, which only block-major passes read")
      ->check(byte_size());
  cmd->add_option("--store-depth", a->request.store_depth,
                  "copying store: requests in flight at most (default 4)");
  cmd->add_option(
      "--store-io-threads", a->request.store_io_threads,
      "copying store: its own threads completing requests, not counted in --threads (default 1)");
  cmd->add_option("--store-delay", a->request.store_delay,
                  "copying store: injected latency per request, in seconds (default 0)");
  add_choice(cmd, "--store-order", a->request.store_order,
             "copying store: order requests complete in: in-order, reverse or shuffled");
  cmd->add_option("--alpha", a->request.alpha,
                  "Auto direction: pull when the frontier's edges exceed unexplored edges / alpha "
                  "(default 15)");
  cmd->add_option("--beta", a->request.beta,
                  "Auto direction: back to push when the frontier has fewer than n / beta vertices "
                  "(default 18)");
  cmd->add_option("--pull-share", a->request.pull_share,
                  "Auto direction for programs that cannot stop a pull early (sssp, wcc): pull "
                  "when the frontier's edges exceed this share of all arcs (default 0.5)");
  cmd->add_flag("--parents", a->request.parents,
                "bfs: also compute the BFS tree (verified as a tree)");
  cmd->add_option("-d,--delta", a->request.delta,
                  "sssp: delta-stepping bucket width, > 0 (default: mean weight / mean degree)")
      ->check(positive_number());
  cmd->add_flag("--unit-weights", a->request.unit_weights,
                "sssp: every edge has length 1 (hop distances)");
  auto* iterations =
      cmd->add_option("-i,--iterations", a->request.iterations,
                      "pr: exactly this many iterations; with --tolerance, at most this many. "
                      "cdlp: its rounds (default 10, as Graphalytics' reference answers)");
  cmd->add_option("--tolerance", a->request.tolerance,
                  "pr: iterate until the L1 change between iterations is below this, > 0 (default "
                  "1e-7, at most 1000 iterations, when -i is not given)")
      ->check(positive_number());
  cmd->add_option("--damping", a->request.damping, "pr: damping factor (default 0.85)");
  add_choice(cmd, "--precision", a->request.precision,
             "pr: what each vertex's contribution between iterations is held in: double (the "
             "default) or float, which halves the array every gather reads at random (faster on "
             "large graphs; ranks within about 2e-7, relative, of double's; sums stay double)");
  auto* samples =
      cmd->add_option("-k,--samples", a->request.samples,
                      "radii: sampled sources, at most 64 (default 64); bc: sampled sources, or "
                      "'all' for exact betweenness (default 4, the GAP benchmark's)")
          ->transform(CLI::Transformer({{"all", std::to_string(kAllSources)}}));
  add_choice(
      cmd, "--exchange", a->request.exchange,
      "On MPI ranks (mpirun -np N tiergraph run ...): how a push pass's updates reach their "
      "owners: collective (one MPI_Alltoallv of combined updates per pass; the default), ring "
      "(batches written one-sidedly into a ring per peer, taken in while the receiver still "
      "sends: Nezha) or accumulate (MPI_Accumulate into the owners' windows: GraCXL)");
  cmd->add_option("--exchange-memory", a->request.exchange_memory,
                  "On MPI ranks: the most the exchange's buffers hold at once per rank, e.g. 64M "
                  "(default). collective: a pass with more updates exchanges them in rounds; ring: "
                  "the rings' window and staging batches (fewer slots, or smaller batches, fit); "
                  "accumulate: the values an epoch stages for the owners' windows (a pass with "
                  "more updates sends them in further epochs; the windows themselves, a value and "
                  "a bit per master, are reported as inbox_window_bytes)")
      ->check(byte_size());
  cmd->add_option("--ring-batch", a->request.ring_batch,
                  "--exchange ring: records (a vertex and a value) per batch; a batch goes out "
                  "when full or when the pass ends (default 128)")
      ->check(CLI::Range(1u, 1u << 20));
  cmd->add_option(
         "--ring-hurried", a->request.ring_hurried,
         "--exchange ring: how full (a share) a sender's ring at a receiver is before its batches "
         "are marked hurried, making the receiver drain and clear at once (default 0.8)")
      ->check(CLI::Range(0.01, 1.0));
  cmd->add_option("--slices", a->request.slices,
                  "On MPI ranks, --exchange ring or accumulate: run each push pass in this many "
                  "slices of its frontier (about equal in edges), each slice's updates sent before "
                  "the next is computed, so they travel while the ranks compute (Nezha's "
                  "threshold-triggered scatter); 1 sends after the whole pass (default 1)")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_flag("--steal", a->request.steal,
                "On MPI ranks, with --slices: each rank puts its slices of a push pass on a board "
                "in an MPI window; a rank whose own slices are taken marks a peer's with an atomic "
                "fetch-and-add and reads it one-sidedly, with its source values, and pushes it "
                "(Nezha's stealing between machines)");
  cmd->add_option("--partition-alpha", a->request.partition_alpha,
                  "On MPI ranks: balance ranks on alpha * vertices + edges (default 8 * (ranks - "
                  "1), as Gemini; at least 32 for pr, whose every vertex takes a step)")
      ->check(non_negative_number());
  cmd->add_flag(
      "--no-checksums", a->request.no_checksums,
      "Skip verifying the graph file's checksums and hashes (its structure is always checked)");
  add_budget_options(*cmd, a->request.budget);
  add_graph_input_options(*cmd, a->input);
  return [a, iterations, samples, cmd] {
    a->graph = a->graph_arg.path();
    a->request.far_given = cmd->count("--far") > 0;
    a->output_given = cmd->count("--output") > 0;
    a->request.iterations_given = iterations->count() > 0;
    a->request.samples_given = samples->count() > 0;
    a->request.pass_stats = a->json;
    run_command(*a);
  };
}

}  // namespace tg::cli
