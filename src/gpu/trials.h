// Trials of one kernel on one engine, reported as JSON: what `tiergraph-gpu run` prints for the
// device engine (either backend) and for the CPU engine beside it. Sources are drawn as
// `tiergraph run` draws them (SourcePicker with the same seed), so the same seed gives every
// engine the same sources and their answers can be compared.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algorithms/sources.h"
#include "engine/direction.h"
#include "graph/graph_view.h"
#include "run/kernels.h"
#include "util/timer.h"

namespace tg::device {

struct TrialsRequest {
  int trials = 1;
  uint64_t seed = 27491095;  // tiergraph run's default
  int radii_samples = 64;
  int pagerank_iterations = 20;
  double delta = 0;  // SSSP; 0: the default
  Direction direction = Direction::kAuto;
  bool verify = false;
  int threads = 0;  // the CPU engine's; 0: all
};

struct TrialsOutput {
  nlohmann::json report;
  AlgorithmResult first;  // trial 0's answer, for comparing engines
  KernelArgs first_args;
};

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Runs r.trials trials of `kernel` on the engine make(view) returns; `passes(engine)` gives the
// last trial's per-pass figures and `about(engine)` the engine's own (device, copy-in).
template <typename Kernel, typename Id, typename W, typename Make, typename Passes, typename About>
TrialsOutput run_trials(const Kernel& kernel, const GraphView<Id, W>& g, const TrialsRequest& r,
                        Make make, Passes passes, About about) {
  TrialsOutput out;
  auto engine = make(g);
  SourcePicker picker(g.num_vertices(), r.seed);
  KernelArgs args;
  args.pagerank = PageRankOptions{0.85, r.pagerank_iterations, 0, 1000};
  args.delta = r.delta;
  std::vector<double> seconds;
  nlohmann::json trials = nlohmann::json::array();
  for (int t = 0; t < r.trials; ++t) {
    if (kernel.sources == Sources::kOne) args.source = picker.next(g);
    if (kernel.sources == Sources::kSample || kernel.sources == Sources::kMany) {
      args.sources =
          sampled_sources(g, kernel.sources == Sources::kMany ? kDefaultBcSources : r.radii_samples,
                          r.seed + static_cast<uint64_t>(t));
    }
    engine->reset_stats();
    Timer timer;
    AlgorithmResult result = kernel.run(*engine, args);
    const double s = timer.seconds();  // the engine synchronizes the device at every pass's end
    seconds.push_back(s);
    nlohmann::json trial{
        {"seconds", s}, {"summary", result.summary}, {"edges_traversed", result.edges_traversed}};
    if (kernel.sources == Sources::kOne) trial["source"] = args.source;
    if (result.edges_traversed && s > 0)
      trial["gteps"] = static_cast<double>(result.edges_traversed) / s / 1e9;
    if (r.verify) {
      const Verdict v = kernel.verify(g, args, result);
      trial["verified"] = v.ok;
      if (!v.ok) trial["verify_message"] = v.message;
    }
    if (t == r.trials - 1) trial["passes"] = passes(*engine);
    trials.push_back(std::move(trial));
    if (t == 0) {
      out.first = std::move(result);
      out.first_args = args;
    }
  }
  out.report = {
      {"kernel", kernel.name}, {"vertices", g.num_vertices()},      {"arcs", g.num_arcs()},
      {"trials", trials},      {"median_seconds", median(seconds)}, {"engine", about(*engine)}};
  return out;
}

// The first place two answers of one kernel differ, or "" if they agree (real answers within the
// relative L1 distance the kernel declares, agree_within: PageRank's and BC's 1e-9; BFS: depths,
// since trees may differ).
inline std::string compare_answers(const std::string& kernel, const AlgorithmResult& a,
                                   const AlgorithmResult& b) {
  double within = 0;
  with_kernel(kernel, [&](const auto& k) { within = k.agree_within; });
  if (a.real != b.real) return "one answer is real, the other integer";
  if (a.real) {
    if (a.reals.size() != b.reals.size()) return "answers of different lengths";
    for (size_t i = 0; within == 0 && i < a.reals.size(); ++i) {
      if (!(a.reals[i] == b.reals[i]))
        return fmt::format("vertex {}: {} against {}", i, a.reals[i], b.reals[i]);
    }
    const double apart = relative_l1(a.reals, b.reals);
    if (within > 0 && !(apart <= within))
      return fmt::format("values differ by {} in relative L1 (more than {})", apart, within);
    return "";
  }
  if (a.ints.size() != b.ints.size()) return "answers of different lengths";
  for (size_t i = 0; i < a.ints.size(); ++i)
    if (a.ints[i] != b.ints[i])
      return fmt::format("vertex {}: {} against {}", i, a.ints[i], b.ints[i]);
  return "";
}

}  // namespace tg::device
