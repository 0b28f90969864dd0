// tiergraph-gpu: the device engine's command line, built with what a GPU machine has (no MPI,
// libnuma or io_uring: the parts `tiergraph` needs for tiers and ranks). It generates graphs,
// runs a kernel's trials on the GPU (--device gpu), on the device engine's OpenMP backend
// (gpu-host, anywhere) or on the CPU engine (cpu), checks an answer against the CPU engine's
// (--against-cpu) and measures the GPU's copy bandwidths (probe). scripts/gpu_check.sh drives it.
#include <fmt/core.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "gpu/runs.h"
#include "ingest/convert.h"
#include "util/error.h"
#include "util/log.h"
#include "util/timer.h"

namespace tg::gpu {
namespace {

Direction direction_of(const std::string& s) {
  return s == "push" ? Direction::kPush : s == "pull" ? Direction::kPull : Direction::kAuto;
}

void add_generate(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("generate", "Generate a Kronecker graph file (as tiergraph generate -g)");
  struct Args {
    int scale = 0, edge_factor = 16;
    std::string weights, output;
    bool undirected = false, overwrite = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("-g,--kronecker", a->scale, "Kronecker graph of 2^SCALE vertices")
      ->required()
      ->check(CLI::Range(1, 40));
  cmd->add_option("-k,--edge-factor", a->edge_factor, "Edges per vertex (default 16)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--weights", a->weights, "int: integers in [1,255]; real: reals in (0,1]")
      ->check(CLI::IsMember({"int", "real"}));
  cmd->add_flag("-s,--undirected", a->undirected, "Store as undirected");
  cmd->add_option("-o,--output", a->output, "Graph file")->required();
  cmd->add_flag("--overwrite", a->overwrite, "Replace the output if it exists");
  cmd->callback([a] {
    GeneratorOptions gen;
    gen.scale = a->scale;
    gen.edge_factor = a->edge_factor;
    gen.weights = a->weights == "int"    ? GeneratedWeights::kInteger
                  : a->weights == "real" ? GeneratedWeights::kReal
                                         : GeneratedWeights::kNone;
    ConvertOptions options;
    options.build.undirected = a->undirected;
    options.build.generated_weights = gen.weights != GeneratedWeights::kNone;
    options.overwrite = a->overwrite;
    Timer timer;
    const ConvertReport report = generate_file(gen, a->output, options);
    auto j = report.to_json();
    j["seconds"] = timer.seconds();
    fmt::print("{}\n", j.dump());
  });
}

void add_run(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "run",
      "Run a kernel's trials on the GPU, the device engine's host backend, or the CPU engine");
  struct Args {
    std::string kernel, graph, device = "gpu", direction = "auto";
    int trials = 1, threads = 0, iterations = 20, samples = 64;
    uint64_t seed = TrialsRequest{}.seed;
    bool verify = false, against_cpu = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("kernel", a->kernel, "bfs, sssp, wcc, pr, radii, bc, tc, lcc or cdlp")
      ->required();
  cmd->add_option("graph", a->graph, "Graph file")->required()->check(CLI::ExistingFile);
  cmd->add_option(
         "--device", a->device,
         "gpu (CUDA), gpu-host (the device engine on the CPU's threads) or cpu (the CPU engine)")
      ->check(CLI::IsMember({"gpu", "gpu-host", "cpu"}));
  cmd->add_option("--direction", a->direction, "auto, push or pull")
      ->check(CLI::IsMember({"auto", "push", "pull"}));
  cmd->add_option("-n,--trials", a->trials, "Trials (a new source each)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("-t,--threads", a->threads, "CPU threads (default: all cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("-i,--iterations", a->iterations, "PageRank iterations")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--samples", a->samples, "Radii's sources")->check(CLI::Range(1, 64));
  cmd->add_option("--seed", a->seed, "Source seed (as tiergraph run's)");
  cmd->add_flag("--verify", a->verify, "Check every trial's answer with the kernel's verifier");
  cmd->add_flag("--against-cpu", a->against_cpu,
                "Also run trial 0 on the CPU engine and require the same answer");
  cmd->callback([a] {
    if (a->threads) omp_set_num_threads(a->threads);
    const size_t k = kernel_index(a->kernel);
    auto file = GraphFile::open(a->graph);
    TrialsRequest r;
    r.trials = a->trials;
    r.seed = a->seed;
    r.threads = a->threads ? a->threads : omp_get_max_threads();
    r.pagerank_iterations = a->iterations;
    r.radii_samples = a->samples;
    r.direction = direction_of(a->direction);
    r.verify = a->verify;
    TrialsOutput out = a->device == "gpu"        ? run_on_gpu(k, file, r)
                       : a->device == "gpu-host" ? run_on_gpu_host(k, file, r)
                                                 : run_on_cpu(k, file, r);
    out.report["device_kind"] = a->device;
    if (a->against_cpu) {
      TrialsRequest one = r;
      one.trials = 1;
      one.verify = false;
      TrialsOutput cpu = run_on_cpu(k, file, one);
      const std::string difference =
          device::compare_answers(out.report["kernel"].get<std::string>(), out.first, cpu.first);
      out.report["against_cpu"] = {{"same", difference.empty()},
                                   {"cpu_seconds", cpu.report["median_seconds"]}};
      if (!difference.empty()) out.report["against_cpu"]["difference"] = difference;
    }
    fmt::print("{}\n", out.report.dump());
    bool ok = !out.report.contains("against_cpu") || out.report["against_cpu"]["same"].get<bool>();
    for (const auto& t : out.report["trials"]) ok = ok && t.value("verified", true);
    if (!ok) fail("{} on {}: the answer is wrong (see the report above)", a->kernel, a->device);
  });
}

void add_info(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("info", "The GPU in use, and copy bandwidths measured with --probe");
  auto probe = std::make_shared<uint64_t>(0);
  cmd->add_option(
      "--probe", *probe,
      "Measure copies of this many bytes (device to device, pinned host to device and back)");
  cmd->callback([probe] {
    nlohmann::json j{{"built_with_cuda", built_with_cuda()}, {"device", gpu_device_info()}};
    if (*probe) j["bandwidth"] = gpu_bandwidth_probe(*probe);
    fmt::print("{}\n", j.dump());
  });
}

}  // namespace
}  // namespace tg::gpu

int main(int argc, char** argv) {
  try {
    CLI::App app{"tiergraph-gpu: the device engine of tiergraph"};
    app.require_subcommand(1);
    tg::gpu::add_generate(app);
    tg::gpu::add_run(app);
    tg::gpu::add_info(app);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tiergraph-gpu: error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fputs("tiergraph-gpu: error: an unknown exception\n", stderr);
    return 1;
  }
  return 0;
}
