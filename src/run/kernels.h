// The kernels `tiergraph run` offers, in one table: each row names the kernel and its aliases,
// says which sources it needs and whether it reads weights, and how to run it on an engine and
// verify its result. The run driver, the CLI's list of names and the help text all read it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "algorithms/bc.h"
#include "algorithms/bfs.h"
#include "algorithms/cdlp.h"
#include "algorithms/lcc.h"
#include "algorithms/pagerank.h"
#include "algorithms/radii.h"
#include "algorithms/sssp.h"
#include "algorithms/tc.h"
#include "algorithms/wcc.h"
#include "engine/cpu/neighbour_lists.h"
#include "engine/cpu/oriented_adjacency.h"
#include "engine/mpi/rank_memory.h"
#include "graph/graph_file.h"
#include "plan/pass_shape.h"
#include "util/error.h"
#include "util/option_names.h"
#include "verify/bc.h"
#include "verify/bfs.h"
#include "verify/cdlp.h"
#include "verify/lcc.h"
#include "verify/pagerank.h"
#include "verify/radii.h"
#include "verify/sssp.h"
#include "verify/tc.h"
#include "verify/wcc.h"

namespace tg {

// What a trial of a kernel is given besides the graph.
struct KernelArgs {
  uint64_t source = 0;                   // Sources::kOne
  std::vector<uint64_t> sources;         // Sources::kSample, Sources::kMany
  bool parents = false;                  // bfs
  double delta = 0;                      // sssp; 0: default_delta
  PageRankOptions pagerank;              // pr
  uint32_t rounds = kDefaultCdlpRounds;  // cdlp
};

// kSample: Radii's, at most 64 sampled at once; kMany: any number (BC's; "all" on small graphs).
enum class Sources { kNone, kOne, kSample, kMany };
// BC's sources when none are asked for: the GAP benchmark's four per trial.
inline constexpr int kDefaultBcSources = 4;
// --samples all (BC): every vertex with out-edges, which makes BC exact.
inline constexpr int kAllSources = 0;
// How many sources a trial of a sampling kernel draws: as asked, or the kernel's default.
inline int sources_to_draw(Sources kind, int samples, bool samples_given) {
  if (kind != Sources::kMany) return samples;
  if (!samples_given) return kDefaultBcSources;
  return samples == kAllSources ? std::numeric_limits<int>::max() : samples;
}

// The vertex state a kernel holds and the result it hands back, at their peak together, on a
// graph file read with ids of id_bytes (4 or 8) bytes, with or without its weights (and, for BFS,
// its parents): what a memory budget refuses a run by before it reads an edge. A result that
// collect moves out of an array is that array's bytes; a mapped one (32-bit ids or distances
// widened, WCC's labels) is new while the arrays still held count. A test holds every kernel to
// its formula exactly (Engine::peak_held_bytes: a kernel that gains an array must say so here).
using StateBytes = uint64_t (*)(const GraphFile& file, unsigned id_bytes, bool weights,
                                bool parents);
// What the kernel's exchanges hold per vertex on an MPI rank (engine/mpi/rank_memory.h), read as
// StateBytes is: a rank under a budget plans it as hot data, and a test holds every kernel to it.
using ExchangeStateOf = ExchangeState (*)(const GraphFile& file, unsigned id_bytes, bool weights);
constexpr uint64_t values_for(uint64_t n) {
  return n > 0 ? n : 1;
}  // an array never holds fewer than one value
// What the kernel's verifier holds besides the result it checks (its own arrays; the arcs it
// reads come from the file's mapping): what a budget must leave it after the trials.
using VerifyBytes = uint64_t (*)(const GraphFile& file);

template <typename Run, typename Verify>
struct Kernel {
  std::string_view name;
  std::array<std::string_view, 2> aliases;
  Sources sources;
  bool weighted;
  PassShape passes;  // the grids its passes read, its frontiers (for the planner)
  // Two engines' answers agree when equal or, for real answers, within this L1 distance relative
  // to the answer's norm (relative_l1; 0: equal only). PageRank's and BC's sums combine in
  // another order on another engine or team.
  double agree_within;
  StateBytes state_bytes;
  ExchangeStateOf exchange_state;
  VerifyBytes verify_bytes;
  Run run;        // (Engine<Id, W>&, const KernelArgs&) -> AlgorithmResult
  Verify verify;  // (const GraphView<Id, W>&, const KernelArgs&, const AlgorithmResult&) -> Verdict

  bool answers_to(std::string_view s) const {
    return s == name || (!s.empty() && (s == aliases[0] || s == aliases[1]));
  }
};
template <typename Run, typename Verify>
constexpr Kernel<Run, Verify> kernel(std::string_view name, std::array<std::string_view, 2> aliases,
                                     Sources sources, bool weighted, PassShape passes,
                                     double agree_within, StateBytes state_bytes,
                                     ExchangeStateOf exchange_state, VerifyBytes verify_bytes,
                                     Run run, Verify verify) {
  return {name,        aliases,        sources,      weighted, passes, agree_within,
          state_bytes, exchange_state, verify_bytes, run,      verify};
}

// SSSP's default bucket width: the mean weight divided by the mean degree, at least the least
// positive step (1 for integers). Light graphs get narrow buckets, dense ones wide.
template <typename W>
DistanceOf<W> default_delta(const GraphFile& file) {
  const double mean_degree = file.num_vertices() ? static_cast<double>(file.num_arcs()) /
                                                       static_cast<double>(file.num_vertices())
                                                 : 1.0;
  const double mean_weight = (file.header().min_weight + file.header().max_weight) / 2;
  const double delta = std::max(mean_weight, 0.0) / std::max(mean_degree, 1.0);
  if constexpr (std::is_floating_point_v<W>) {
    return delta > 0 ? delta : 1.0;
  } else {
    return std::max<int64_t>(1, static_cast<int64_t>(delta));
  }
}
// Whether SSSP keeps 32-bit distances: every shortest path, and every relaxation (a distance
// plus one edge), stays below 2^32 - 1, uint32's identity, when the longest edge (1 without
// weights) times the vertex count does; real weights keep doubles. 1.15x faster on kron-22 here,
// where a relaxation is a random compare-and-swap into the distance array: half the bytes.
inline bool fits_32_bit_distances(const GraphFile& file, bool weights) {
  if (weights && file.weight_type() == format::WeightType::kFloat64) return false;
  if (weights && file.header().min_weight < 0) return false;  // refused as with 64 bits
  const double longest_edge = weights ? file.header().max_weight : 1.0;
  return longest_edge * static_cast<double>(file.num_vertices()) < static_cast<double>(UINT32_MAX);
}
template <typename Engine>
auto sssp_delta(const Engine& engine, const KernelArgs& a) {
  using Dist = DistanceOf<typename Engine::Weight>;
  if (a.delta <= 0) return default_delta<typename Engine::Weight>(engine.graph().file());
  const auto delta = static_cast<Dist>(a.delta);
  if (delta <= 0)
    fail("{} rounds to 0 for integer weights; give at least 1",
         option_with("delta", fmt::format("{}", a.delta), false));
  return delta;
}

// The passes only some engines offer, each with the concept an engine offering it satisfies.
struct TrianglePass {
  static constexpr std::string_view kName = "the triangle pass";
  template <typename E>
  static constexpr bool kOfferedBy = IntersectingEngine<E>;
};
struct GatherPass {
  static constexpr std::string_view kName = "the gather pass";
  template <typename E>
  static constexpr bool kOfferedBy = GatheringEngine<E>;
};
// A kernel's run for an algorithm on such a pass: on an engine that offers it, run(engine, args);
// on the others, a refusal that names the kernel.
template <typename Pass, typename Run>
constexpr auto on_pass(std::string_view name, Run run) {
  return [name, run](auto& e, const KernelArgs& a) -> AlgorithmResult {
    if constexpr (Pass::template kOfferedBy<std::decay_t<decltype(e)>>) {
      return run(e, a);
    } else {
      fail("{} needs {}, which this engine does not offer", name, Pass::kName);
    }
  };
}

inline constexpr auto kKernels = std::make_tuple(
    kernel(
        "bfs", {}, Sources::kOne, false, kBfsShape, 0,
        [](const GraphFile& f, unsigned id, bool,
           bool parents) {  // the depth; with parents, the parent and them widened beside
          return values_for(f.num_vertices()) * (parents ? id + 16 : 8);
        },
        [](const GraphFile&, unsigned, bool) {
          return ExchangeState{};
        },  // its source value is the source: none shipped
        [](const GraphFile& f) {
          return f.num_vertices();
        },  // a flag: the vertex has its parent's arc
        [](auto& e, const KernelArgs& a) { return run_bfs(e, a.source, a.parents); },
        [](const auto& g, const KernelArgs& a, const AlgorithmResult& r) {
          return verify_bfs(g, a.source, r);
        }),
    kernel(
        "sssp", {}, Sources::kOne, true, kSsspShape, 0,
        [](const GraphFile& f, unsigned, bool weights,
           bool) {  // distance (the bins are the engine's)
          // 32-bit distances are widened into the result beside them.
          return values_for(f.num_vertices()) * (fits_32_bit_distances(f, weights) ? 4 + 8 : 8);
        },
        [](const GraphFile& f, unsigned, bool weights) {  // a distance
          return ExchangeState{.shipped_value_bytes = fits_32_bit_distances(f, weights) ? 4u : 8u};
        },
        [](const GraphFile& f) { return f.num_vertices(); },  // a flag: the vertex has a tight arc
        [](auto& e, const KernelArgs& a) {
          const auto delta = sssp_delta(e, a);
          if constexpr (std::is_integral_v<decltype(delta)>) {
            constexpr bool kWeights =
                !std::is_same_v<typename std::decay_t<decltype(e)>::Weight, NoWeight>;
            if (fits_32_bit_distances(e.graph().file(), kWeights)) {
              return run_sssp(e, a.source, static_cast<uint32_t>(delta));
            }
          }
          return run_sssp(e, a.source, delta);
        },
        [](const auto& g, const KernelArgs& a, const AlgorithmResult& r) {
          return verify_sssp(g, a.source, r);
        }),
    kernel(
        "wcc", {"cc", "components"}, Sources::kNone, false, kWccShape, 0,
        [](const GraphFile& f, unsigned id, bool,
           bool) {  // the parents, then the parents and the labels
          return values_for(f.num_vertices()) * (id + 8);
        },
        [](const GraphFile&, unsigned id, bool) {  // Afforest's linked forest, merged
          return ExchangeState{.forest_copy_bytes = id};
        },
        [](const GraphFile& f) { return f.num_vertices() * 8; },  // its own union-find
        [](auto& e, const KernelArgs&) { return run_wcc(e); },
        [](const auto& g, const KernelArgs&, const AlgorithmResult& r) {
          return verify_wcc(g, r);
        }),
    kernel(
        "pr", {"pagerank"}, Sources::kNone, false, kPageRankShape, 1e-9,
        [](const GraphFile& f, unsigned, bool, bool) {
          return values_for(f.num_vertices()) * 3 * 8;
        },  // two contributions (this iteration's, the next's; doubles at most), the sums
        [](const GraphFile&, unsigned, bool) {
          return ExchangeState{.shipped_value_bytes = 8};
        },                                                        // a contribution
        [](const GraphFile& f) { return f.num_vertices() * 8; },  // the incoming sums
        [](auto& e, const KernelArgs& a) {
          return a.pagerank.precision == PageRankPrecision::kFloat
                     ? run_pagerank<float>(e, a.pagerank)
                     : run_pagerank<double>(e, a.pagerank);
        },
        [](const auto& g, const KernelArgs& a, const AlgorithmResult& r) {
          return verify_pagerank(g, a.pagerank, r);
        }),
    kernel(
        "radii", {}, Sources::kSample, false, kRadiiShape, 0,
        [](const GraphFile& f, unsigned, bool, bool) {
          return values_for(f.num_vertices()) * 3 * 8;
        },  // two source masks, eccentricity
        [](const GraphFile&, unsigned, bool) {
          return ExchangeState{.shipped_value_bytes = 8};
        },  // a source mask
        [](const GraphFile& f) { return radii_verifier_bytes(f.num_vertices()); },
        [](auto& e, const KernelArgs& a) { return run_radii(e, a.sources); },
        [](const auto& g, const KernelArgs& a, const AlgorithmResult& r) {
          return verify_radii(g, a.sources, r);
        }),
    kernel(
        "bc", {"betweenness"}, Sources::kMany, false, kBcShape, 1e-9,
        [](const GraphFile& f, unsigned, bool, bool) {
          return values_for(f.num_vertices()) * 3 * 8;
        },  // path counts (negated once settled), the successors' sums, scores; levels: frontiers
        [](const GraphFile&, unsigned, bool) {
          return ExchangeState{.shipped_value_bytes = 8};
        },  // a path count, or a successor's share
        [](const GraphFile& f) {
          return bc_verifier_bytes(f.num_vertices(), f.num_arcs(), f.id_bytes());
        },
        [](auto& e, const KernelArgs& a) { return run_bc(e, a.sources); },
        [](const auto& g, const KernelArgs& a, const AlgorithmResult& r) {
          return verify_bc(g, a.sources, r);
        }),
    kernel(
        "tc", {"triangles"}, Sources::kNone, false, kTrianglePassShape, 0,
        [](const GraphFile& f, unsigned id, bool, bool) {
          return values_for(f.num_vertices()) * 8 +
                 OrientedAdjacency<uint32_t>::pass_bytes_bound(f.num_vertices(), f.num_arcs(),
                                                               f.directed(), id);
        },  // the count through each vertex; the triangle pass's lists and sums
        [](const GraphFile&, unsigned, bool) {
          return ExchangeState{};
        },  // a peer's lists, held beside a rank's own: within the pass's bound above
        [](const GraphFile& f) {
          return tc_verifier_bytes(f.num_vertices(), f.num_arcs(), f.id_bytes());
        },
        on_pass<TrianglePass>("tc", [](auto& e, const KernelArgs&) { return run_tc(e); }),
        [](const auto& g, const KernelArgs&, const AlgorithmResult& r) { return verify_tc(g, r); }),
    kernel(
        "lcc", {"clustering"}, Sources::kNone, false, kTrianglePassShape, 0,
        [](const GraphFile& f, unsigned id, bool, bool) {
          return values_for(f.num_vertices()) * 2 * 8 +
                 OrientedAdjacency<uint32_t>::pass_bytes_bound(f.num_vertices(), f.num_arcs(),
                                                               f.directed(), id);
        },  // neighbour counts, arcs among them; the triangle pass's lists and sums (then the
            // coefficients, once the pass has freed them)
        [](const GraphFile&, unsigned, bool) {
          return ExchangeState{};
        },  // a peer's lists, held beside a rank's own: within the pass's bound above
        [](const GraphFile& f) {
          return lcc_verifier_bytes(f.num_vertices(), f.num_arcs(), f.id_bytes());
        },
        on_pass<TrianglePass>("lcc", [](auto& e, const KernelArgs&) { return run_lcc(e); }),
        [](const auto& g, const KernelArgs&, const AlgorithmResult& r) {
          return verify_lcc(g, r);
        }),
    kernel(
        "cdlp", {"label_propagation"}, Sources::kNone, false, kGatherPassShape, 0,
        [](const GraphFile& f, unsigned id, bool, bool) {
          const uint64_t n = values_for(f.num_vertices());
          return n * id + std::max(n * id + NeighbourLists<uint32_t>::bytes_bound(
                                                f.num_vertices(), f.num_arcs(), f.directed(), id),
                                   n * 8);
        },  // the labels; during the rounds the next round's and the gather pass's lists, then
            // the labels widened into the result
        [](const GraphFile&, unsigned, bool) {
          return ExchangeState{};
        },  // each round's labels gathered in place
        [](const GraphFile& f) {
          return cdlp_verifier_bytes(f.num_vertices(), f.num_arcs(), f.id_bytes());
        },
        on_pass<GatherPass>("cdlp",
                            [](auto& e, const KernelArgs& a) { return run_cdlp(e, a.rounds); }),
        [](const auto& g, const KernelArgs& a, const AlgorithmResult& r) {
          return verify_cdlp(g, a.rounds, r);
        }));

// Whether an engine of type E runs the kernel (one whose pass finds triangles needs an
// IntersectingEngine, one that gathers a GatheringEngine; the others refuse it by name).
template <typename E, typename K>
constexpr bool engine_runs(const K& kernel) {
  return (!kernel.passes.triangles || IntersectingEngine<E>)&&(!kernel.passes.gathers ||
                                                               GatheringEngine<E>);
}

// f(kernel) for every row.
template <typename F>
void for_each_kernel(F f) {
  std::apply([&](const auto&... k) { (f(k), ...); }, kKernels);
}
// f(kernel) for the row that answers to `name`; false if none does.
template <typename F>
bool with_kernel(std::string_view name, F f) {
  bool found = false;
  for_each_kernel([&](const auto& k) {
    if (!found && k.answers_to(name)) {
      found = true;
      f(k);
    }
  });
  return found;
}
// Every name and alias, for the command line.
inline std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for_each_kernel([&](const auto& k) {
    names.emplace_back(k.name);
    for (auto a : k.aliases)
      if (!a.empty()) names.emplace_back(a);
  });
  return names;
}

}  // namespace tg
