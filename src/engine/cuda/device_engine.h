// The device engine: the algorithm texts run on a graph whose blocks and vertex arrays live
// in device memory. One source, two backends (Backend): Thrust's CUDA system under nvcc
// (backend_cuda.h) and Thrust's OpenMP system under g++ (backend_omp.h), so every pass here is a
// Thrust algorithm over an index range or a functor over device views, never a hand-written
// kernel, and CI checks the logic on the CPU.
//
// Edge passes. The direction is the CPU engine's rule (engine/direction.h).
//   push, a list of sources: per block of the out-grid, each source's arcs in the block are
//     counted and scanned, and one thread takes each arc, finding its source by binary search in
//     the scan (edges, not vertices, divided among threads: a hub's arcs spread over many
//     threads); messages combine into the targets with device atomics.
//   push, every vertex: one thread per arc of each block, its source found in the directory.
//   pull: one thread per target walks its in-arcs from the active sources, stopping where the
//     program saturates (BFS's bottom-up step), and writes its target once; unless the program
//     saturates at its first message (BFS), targets with more than kHeavyInDegree in-arcs are
//     left to an arc-parallel pass that combines atomically, so a hub does not hold one thread
//     for a million arcs.
// A vertex whose target changed is listed once (a claim flag and an atomic counter), apply()
// runs once per listed vertex after the pass, and the vertices it keeps are the next frontier.
//
// List passes (triangle counting, the clustering coefficient, label propagation) build
// neighbour lists in device memory from the resident out-grid with whole-array sorts, then run
// one thread per list entry (a triangle pass's merge) or per vertex (a gather round's f).
//
// Vertex passes (for_each, select, reduce, collect's map) run the algorithm's host-device
// lambdas over counting ranges; select evaluates its predicate exactly once per member (it may
// update state, as WCC's does) before compacting.
//
// The files, one job each (all in engine/cuda/):
//   device_engine.h    this class, the facade: edge_pass and its direction, and the state the
//                      edge passes keep (the resident grids).
//   device_vertices.h  its base: vertex arrays, sets, vertex passes and the priority bins.
//   device_passes.h    the edge passes behind edge_pass (push, pull, apply, the pull grids'
//                      index): the class's out-of-class members, included at the end of this file.
//   device_triangles.h the triangle pass and neighbour counts (out-of-class members, likewise).
//   device_gather.h    the gather pass (out-of-class members, likewise).
//   device_functors.h  what the Thrust algorithms run per index, vertex or arc (a kernel's
//                      members), with the pass state they share and deliver().
//   device_grid.h      a grid of blocks resident in device memory.
//   device_set.h       vertex sets: every vertex, or a list in device memory.
//   device_ops.h       the per-vertex primitives the algorithms' lambdas reach through ops().
//   atomics.h          the combine operators as device atomics.
//   temporary_cache.h  the cache of Thrust's temporary storage.
//   backend_cuda.h, backend_omp.h  the two backends.
#pragma once

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/combine.h"
#include "engine/cuda/device_functors.h"
#include "engine/cuda/device_grid.h"
#include "engine/cuda/device_set.h"
#include "engine/cuda/device_vertices.h"
#include "engine/direction.h"
#include "engine/program.h"
#include "engine/vertex_array.h"
#include "graph/graph_view.h"
#include "util/timer.h"

namespace tg::device {

struct DeviceEngineOptions {
  Direction direction = Direction::kAuto;  // kAuto: the shared rule
  DirectionRule rule{};
};

// What one pass did, for --json (a triangle pass: the vertices, the list entries, the entries
// merged; a gather round: the vertices and the entries gathered).
struct DevicePassStats {
  Direction direction = Direction::kPush;
  uint64_t frontier_size = 0, frontier_edges = 0, activated = 0, edges_examined = 0;
  double seconds = 0;  // the pass, device synchronized at its end
};

// The lists the triangle and gather passes build (device_triangles.h, device_gather.h).
template <typename Id, typename Backend>
struct DeviceOrientedLists;
template <typename Id, typename Backend>
struct DeviceNeighbourLists;

template <typename Id, typename W, typename Backend>
class DeviceEngine : public DeviceVertices<Id, W, Backend> {
  using Vertices = DeviceVertices<Id, W, Backend>;

 public:
  using Graph = GraphView<Id, W>;
  using VertexId = Id;
  using Weight = W;
  using Set = typename Vertices::Set;
  template <typename T>
  using Vector = typename Backend::template Vector<T>;
  using Vertices::reduce;  // (names of the dependent base, found unqualified below)
  // In-arcs beyond which a pull target is handled arc-parallel (see the header comment).
  static constexpr uint64_t kHeavyInDegree = 256;

  struct PassOptions {
    Direction direction =
        Direction::kAuto;  // kAuto: the engine's choice; the engine's direction option still wins
    const Set* targets = nullptr;  // only these vertices receive messages
  };

  DeviceEngine(const Graph& graph, DeviceEngineOptions options)
      : Vertices(graph), options_(options) {
    Timer timer;
    out_ = DeviceGrid<W, Backend>(graph.grid(Grid::kOut), graph.blocks_per_side());
    if (graph.directed())
      in_ = DeviceGrid<W, Backend>(graph.grid(Grid::kIn), graph.blocks_per_side());
    ranges_ = Vector<uint64_t>(graph.ranges().begin(), graph.ranges().end());
    pull_grid(graph.directed()
                  ? Grid::kIn
                  : Grid::kOut);  // indexed before the first pass, so its cost is copy-in
    changed_ = Vector<Id>(n_ ? n_ : 1);
    count_ = Vector<unsigned long long>(1, 0);
    Backend::synchronize();
    copy_in_seconds_ = Vertices::setup_seconds() + timer.seconds();
  }

  const Graph& graph() const { return g_; }
  uint64_t num_vertices() const { return n_; }
  uint64_t num_arcs() const { return g_.num_arcs(); }
  uint64_t out_degree(uint64_t v) const { return g_.out_degree(v); }
  // Bytes of graph blocks copied to the device, and how long copying them took.
  uint64_t graph_bytes() const { return out_.bytes() + in_.bytes(); }
  double copy_in_seconds() const { return copy_in_seconds_; }
  // The most device memory the triangle or gather passes run so far may take beyond the vertex
  // arrays (oriented_lists_bytes, neighbour_lists_bytes: bounds, Thrust's temporaries included).
  uint64_t peak_pass_bytes() const { return peak_pass_bytes_; }
  const std::vector<DevicePassStats>& stats() const { return stats_; }
  void reset_stats() { stats_.clear(); }

  // ---- edges ---------------------------------------------------------------------------------

  // f(u, v) for out-arc r of every vertex u that has one (Afforest's sampled subgraph).
  template <typename F>
  void sample_pass(uint32_t r, F f) {
    thrust::for_each_n(policy(), thrust::counting_iterator<uint64_t>(0), n_,
                       SampleArc<Id, F>{f, out_.device_blocks(),
                                        thrust::raw_pointer_cast(ranges_.data()), out_.side(), r});
  }

  // f(u, v) for every other arc at each member u of set in the undirected view (as the CPU
  // engine's: u's out-arcs after its first `skip`, and its in-arcs on a directed graph).
  template <typename F>
  void arc_pass(const Set& set, uint32_t skip, F f) {
    const BlockDecoder* in = g_.directed() ? in_.device_blocks() : nullptr;
    const uint64_t* ranges = thrust::raw_pointer_cast(ranges_.data());
    this->for_each(set, ArcsAfter<Id, F>{f, out_.device_blocks(), in, ranges, out_.side(), skip});
  }

  template <typename Program>
  Set edge_pass(const Program& program, const Set& frontier, PassOptions pass = {}) {
    check_program<Program, Id, W>();
    Timer timer;
    DevicePassStats s;
    s.frontier_size = frontier.size();
    s.frontier_edges = frontier.out_edges();
    s.direction = direction_for<Program>(frontier, pass);
    thrust::fill_n(policy(), count_.begin(), 1, 0ull);
    PassState<Id> state = pass_state();
    Vector<uint32_t> target_map;
    if (pass.targets && !pass.targets->is_all()) {
      target_map = bitmap_of(*pass.targets);
      state.targets = thrust::raw_pointer_cast(target_map.data());
    }
    // A program that follows arcs both ways (weak connectivity) on a directed graph reads the
    // in-grid as a second out-grid (push) or the out-grid as a second in-grid (pull).
    const bool both = BothDirections<Program> && g_.directed();
    const bool pushing = s.direction == Direction::kPush;
    const bool in_first = reads_in_grid(pushing, Reversed<Program>, g_.directed());
    if (pushing) {
      push(program, frontier, state, in_first ? in_ : out_);
      if (both) push(program, frontier, state, in_);
    } else {
      Vector<uint32_t> active_map;
      if (!frontier.is_all()) {
        active_map = bitmap_of(frontier);
        state.active = thrust::raw_pointer_cast(active_map.data());
      }
      const Set* only = pass.targets && !pass.targets->is_all() ? pass.targets : nullptr;
      pull(program, only, state, pull_grid(in_first ? Grid::kIn : Grid::kOut));
      if (both) pull(program, only, state, pull_grid(Grid::kOut));
    }
    Set next = apply(program);
    // As in GAPBS, only push passes count as exploring.
    next.set_history(
        frontier.explored_edges() + (s.direction == Direction::kPush ? frontier.out_edges() : 0),
        frontier.size(), s.direction == Direction::kPull);
    Backend::synchronize();
    s.activated = next.size();
    s.seconds = timer.seconds();
    stats_.push_back(s);
    return next;
  }

  // The edge pass into the program's target, then then(v, v's sum) at every vertex as a vertex
  // pass that resets the target (engine/program.h's ThenFromTarget).
  template <typename Op, typename Program, typename Then>
  typename Op::Value gather_then(Op op, const Program& program, Then then) {
    edge_pass(program, this->all());
    return reduce(op, ThenFromTarget<Id, typename Program::Op, Then>{program.target(), then});
  }

  // ---- passes over neighbour lists (device_triangles.h, device_gather.h) ---------------------

  // The engine/concept.h IntersectingEngine and GatheringEngine members, as the CPU engine's.
  template <typename F>
  VertexArray<int64_t> triangle_sums(F f);
  VertexArray<int64_t> neighbour_counts();
  template <typename T, typename F>
  void gather_rounds(VertexArray<T> values, uint32_t rounds, F f);

  template <typename Program>
  Direction direction_for(const Set& frontier, const PassOptions& pass) const {
    if (options_.direction != Direction::kAuto) return options_.direction;
    if (pass.direction != Direction::kAuto) return pass.direction;
    const FrontierFacts facts{frontier.size(), frontier.out_edges(), frontier.explored_edges(),
                              frontier.previous_size(), frontier.came_from_pull()};
    return options_.rule.choose(HasSaturated<Program>, ActivatesOnce<Program>, g_.num_arcs(), n_,
                                facts);
  }

  // The pull grids' types are not part of the engine's interface: they are public as they were
  // beside the passes' functors (which nvcc's generated kernel stubs name from outside the class,
  // and which now live in device_functors.h).
 public:
  // A grid read by target (pull), with its heavy targets: those with more than kHeavyInDegree
  // arcs in the grid, whose arcs pull() reads arc-parallel (per block: those targets, their first
  // arc in the block, and the scan of their arcs there).
  struct HeavyArcs {
    Vector<Id> targets;
    Vector<uint64_t> first_arc, scan;
    uint64_t total = 0;
  };
  struct PullGrid {
    const DeviceGrid<W, Backend>* grid = nullptr;
    Vector<uint8_t> heavy;  // per vertex
    std::vector<HeavyArcs> arcs;
  };

 private:
  using Vertices::claimed_;
  using Vertices::degree_;
  using Vertices::g_;
  using Vertices::n_;
  using Vertices::policy;
  using Vertices::with_edges;

  // ---- passes (defined in device_passes.h) ---------------------------------------------------

  PassState<Id> pass_state();
  template <typename Program>
  void push(const Program& program, const Set& frontier, const PassState<Id>& state,
            const DeviceGrid<W, Backend>& grid);
  template <typename Program>
  void pull(const Program& program, const Set* targets, const PassState<Id>& state,
            const PullGrid& pg);
  template <typename Program>
  Set apply(const Program& program);
  Vector<uint32_t> bitmap_of(const Set& set) const;
  const PullGrid& pull_grid(Grid which);
  DeviceOrientedLists<Id, Backend> oriented_lists();
  DeviceNeighbourLists<Id, Backend> neighbour_lists();
  void pass_bytes(uint64_t bytes) { peak_pass_bytes_ = std::max(peak_pass_bytes_, bytes); }

  DeviceEngineOptions options_;
  DeviceGrid<W, Backend> out_, in_;
  Vector<uint64_t> ranges_;
  PullGrid pull_in_, pull_out_;
  Vector<Id> changed_;
  Vector<unsigned long long> count_;
  std::vector<DevicePassStats> stats_;
  double copy_in_seconds_ = 0;
  uint64_t peak_pass_bytes_ = 0;
};

}  // namespace tg::device

#include "engine/cuda/device_gather.h"
#include "engine/cuda/device_passes.h"
#include "engine/cuda/device_triangles.h"