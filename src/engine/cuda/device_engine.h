// The device engine: the five algorithm texts run on a graph whose blocks and vertex arrays live
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
// Vertex passes (for_each, select, reduce, collect's map) run the algorithm's host-device
// lambdas over counting ranges; select evaluates its predicate exactly once per member (it may
// update state, as WCC's does) before compacting.
//
// The files, one job each (all in engine/cuda/):
//   device_engine.h    this class, the facade: its interface (vertex state, sets, vertex passes,
//                      edge_pass and its direction, priority bins) and its state.
//   device_passes.h    the edge passes behind edge_pass (push, pull, apply, the pull grids'
//                      index): the class's out-of-class members, included at the end of this file.
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
#include <thrust/gather.h>
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
#include "engine/cuda/device_ops.h"
#include "engine/cuda/device_set.h"
#include "engine/cuda/temporary_cache.h"
#include "engine/direction.h"
#include "engine/program.h"
#include "engine/sampled_mode.h"
#include "engine/vertex_array.h"
#include "graph/graph_view.h"
#include "util/timer.h"

namespace tg::device {

struct DeviceEngineOptions {
  Direction direction = Direction::kAuto;  // kAuto: the shared rule
  DirectionRule rule{};
};

// What one edge pass did, for --json.
struct DevicePassStats {
  Direction direction = Direction::kPush;
  uint64_t frontier_size = 0, frontier_edges = 0, activated = 0;
  double seconds = 0;  // the pass, device synchronized at its end
};

template <typename Id, typename W, typename Backend>
class DeviceEngine {
 public:
  using Graph = GraphView<Id, W>;
  using VertexId = Id;
  using Weight = W;
  using Set = DeviceSet<Id, Backend>;
  template <typename T>
  using Vector = typename Backend::template Vector<T>;
  // In-arcs beyond which a pull target is handled arc-parallel (see the header comment).
  static constexpr uint64_t kHeavyInDegree = 256;

  struct PassOptions {
    Direction direction =
        Direction::kAuto;  // kAuto: the engine's choice; the engine's direction option still wins
    const Set* targets = nullptr;  // only these vertices receive messages
  };

  DeviceEngine(const Graph& graph, DeviceEngineOptions options)
      : g_(graph), options_(options), n_(graph.num_vertices()) {
    Timer timer;
    out_ = DeviceGrid<W, Backend>(graph.grid(Grid::kOut), graph.blocks_per_side());
    if (graph.directed())
      in_ = DeviceGrid<W, Backend>(graph.grid(Grid::kIn), graph.blocks_per_side());
    std::vector<uint64_t> degree(n_ ? n_ : 1, 0);
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < n_; ++v) degree[v] = graph.out_degree(v);
    degree_ = Vector<uint64_t>(degree.begin(), degree.end());
    ranges_ = Vector<uint64_t>(graph.ranges().begin(), graph.ranges().end());
    pull_grid(graph.directed()
                  ? Grid::kIn
                  : Grid::kOut);  // indexed before the first pass, so its cost is copy-in
    claimed_ = Vector<uint32_t>(n_ ? n_ : 1, 0);
    changed_ = Vector<Id>(n_ ? n_ : 1);
    count_ = Vector<unsigned long long>(1, 0);
    Backend::synchronize();
    copy_in_seconds_ = timer.seconds();
  }

  const Graph& graph() const { return g_; }
  uint64_t num_vertices() const { return n_; }
  uint64_t num_arcs() const { return g_.num_arcs(); }
  uint64_t out_degree(uint64_t v) const { return g_.out_degree(v); }
  DeviceOps<Id> ops() const { return {thrust::raw_pointer_cast(degree_.data())}; }
  // Bytes of graph blocks copied to the device, and how long copying them took.
  uint64_t graph_bytes() const { return out_.bytes() + in_.bytes(); }
  double copy_in_seconds() const { return copy_in_seconds_; }
  uint64_t vertex_bytes() const { return vertex_bytes_; }
  uint64_t peak_vertex_bytes() const { return peak_vertex_bytes_; }
  const std::vector<DevicePassStats>& stats() const { return stats_; }
  void reset_stats() { stats_.clear(); }

  // ---- vertex state ------------------------------------------------------------------------

  class [[nodiscard]] Scope {
   public:
    explicit Scope(DeviceEngine& e) : e_(e), mark_(e.storage_.size()) {}
    ~Scope() {
      while (e_.storage_.size() > mark_) {
        e_.vertex_bytes_ -= e_.storage_.back()->size() * sizeof(uint64_t);
        e_.storage_.pop_back();
      }
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    DeviceEngine& e_;
    size_t mark_;
  };
  Scope scope() { return Scope(*this); }

  template <typename T>
  VertexArray<T> vertex_array(T init) {
    auto a = allocate<T>();
    thrust::fill_n(policy(), a.data(), n_, init);
    return a;
  }
  template <typename F>
  auto vertex_array_from(F f) {
    auto a = allocate<std::invoke_result_t<F, Id>>();
    for_each(Fill<Id, decltype(a), F>{a, f});
    return a;
  }
  template <typename T>
  VertexArray<T> copy(VertexArray<T> from) {
    auto a = allocate<T>();
    thrust::copy_n(policy(), from.data(), n_, a.data());
    return a;
  }
  template <typename T>
  void set(VertexArray<T> a, uint64_t v, T x) const {
    Backend::to_device(&a[v], &x, sizeof(T));
  }
  template <typename T>
  T get(VertexArray<T> a, uint64_t v) const {
    T x;
    Backend::to_host(&x, &a[v], sizeof(T));
    return x;
  }
  template <typename T>
  bool update(VertexArray<T> a, uint64_t v, T x) const {
    if (get(a, v) == x) return false;
    set(a, v, x);
    return true;
  }
  // One combine into a[v], from the host (Radii's sources).
  template <typename Op>
  bool combine_at(Op, VertexArray<typename Op::Value> a, uint64_t v, typename Op::Value x) const {
    const auto now = get(a, v), combined = Op::combine(now, x);
    if (combined == now) return false;
    set(a, v, combined);
    return true;
  }

  // The values in vertex order on the host, each through map if given (map runs on the device).
  template <typename T>
  std::vector<T> collect(VertexArray<T> a) {
    std::vector<T> values(n_);
    if (n_) Backend::to_host(values.data(), a.data(), n_ * sizeof(T));
    return values;
  }
  template <typename T, typename Map>
  auto collect(VertexArray<T> a, Map map) {
    using R = std::invoke_result_t<Map, T>;
    Vector<R> mapped(n_ ? n_ : 1);
    thrust::transform(policy(), a.data(), a.data() + n_, mapped.begin(), map);
    std::vector<R> values(n_);
    if (n_)
      Backend::to_host(values.data(), thrust::raw_pointer_cast(mapped.data()), n_ * sizeof(R));
    return values;
  }

  void compress(VertexArray<Id> parent) { for_each(Compress<Id>{ops(), parent}); }
  // The most frequent value among `samples` entries drawn as the CPU engine draws them (the same
  // seed, so the same answer).
  template <typename T>
  T most_frequent(VertexArray<T> a, int samples) const {
    const std::vector<uint64_t> at = sample_positions(n_, samples);
    const Vector<uint64_t> device_at(at.begin(), at.end());
    Vector<T> device_drawn(at.size() + 1);
    thrust::gather(policy(), device_at.begin(), device_at.end(), a.data(), device_drawn.begin());
    std::vector<T> drawn(at.size());
    if (!at.empty())
      Backend::to_host(drawn.data(), thrust::raw_pointer_cast(device_drawn.data()),
                       at.size() * sizeof(T));
    return mode_of(drawn);
  }

  // ---- vertex sets and vertex passes ---------------------------------------------------------

  Set all() const { return Set::all(n_, g_.num_arcs()); }
  Set frontier_of(uint64_t v) const {
    typename Set::List list(1, static_cast<Id>(v));
    return Set::of(std::move(list), g_.out_degree(v));
  }
  Set frontier_of(std::span<const uint64_t> vertices) const {
    std::vector<Id> host(vertices.begin(), vertices.end());
    uint64_t edges = 0;
    for (Id v : host) edges += g_.out_degree(v);
    return Set::of(typename Set::List(host.begin(), host.end()), edges);
  }

  template <typename F>
  void for_each(F f) const {
    thrust::for_each_n(policy(), thrust::counting_iterator<uint64_t>(0), n_, AsId<Id, F>{f});
  }
  template <typename F>
  void for_each(const Set& set, F f) const {
    if (set.is_all()) return for_each(f);
    thrust::for_each_n(policy(), set.list().begin(), set.size(), f);
  }
  template <typename Op, typename F>
  typename Op::Value reduce(Op, F f) const {
    return thrust::transform_reduce(policy(), thrust::counting_iterator<uint64_t>(0),
                                    thrust::counting_iterator<uint64_t>(n_), AsId<Id, F>{f},
                                    Op::identity(), Combine<Op>{});
  }
  template <typename Op, typename F>
  typename Op::Value reduce(Op op, const Set& set, F f) const {
    if (set.is_all()) return reduce(op, f);
    return thrust::transform_reduce(policy(), set.list().begin(), set.list().end(), f,
                                    Op::identity(), Combine<Op>{});
  }
  // The members of `input` for which keep(v) holds; keep runs exactly once per member.
  template <typename Keep>
  Set select(const Set& input, Keep keep) const {
    const uint64_t count = input.size();
    Vector<uint8_t> kept(count ? count : 1);
    typename Set::List out(count ? count : 1);
    uint64_t selected = 0;
    if (input.is_all()) {
      thrust::transform(policy(), thrust::counting_iterator<uint64_t>(0),
                        thrust::counting_iterator<uint64_t>(count), kept.begin(),
                        AsFlag<Id, Keep>{keep});
      selected = thrust::copy_if(policy(), thrust::counting_iterator<Id>(0),
                                 thrust::counting_iterator<Id>(static_cast<Id>(count)),
                                 kept.begin(), out.begin(), IsSet{}) -
                 out.begin();
    } else {
      thrust::transform(policy(), input.list().begin(), input.list().end(), kept.begin(),
                        AsFlag<Id, Keep>{keep});
      selected = thrust::copy_if(policy(), input.list().begin(), input.list().end(), kept.begin(),
                                 out.begin(), IsSet{}) -
                 out.begin();
    }
    out.resize(selected);
    return with_edges(std::move(out));
  }

  // ---- edges ---------------------------------------------------------------------------------

  // f(u, v) for the first k out-arcs of every vertex u (Afforest's sampled subgraph).
  template <typename F>
  void sample_pass(uint32_t k, F f) {
    thrust::for_each_n(policy(), thrust::counting_iterator<uint64_t>(0), n_,
                       SampleArcs<Id, F>{f, out_.device_blocks(),
                                         thrust::raw_pointer_cast(ranges_.data()), out_.side(), k});
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
    if (s.direction == Direction::kPush) {
      push(program, frontier, state, out_);
      if (both) push(program, frontier, state, in_);
    } else {
      Vector<uint32_t> active_map;
      if (!frontier.is_all()) {
        active_map = bitmap_of(frontier);
        state.active = thrust::raw_pointer_cast(active_map.data());
      }
      const Set* only = pass.targets && !pass.targets->is_all() ? pass.targets : nullptr;
      pull(program, only, state, pull_grid(g_.directed() ? Grid::kIn : Grid::kOut));
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

  // op-combination of before(u) over the frontier, then the edge pass if wanted(that value).
  template <typename Op, typename Before, typename Wanted, typename Program>
  std::pair<Set, typename Op::Value> edge_pass_after(Op op, Before before, Wanted wanted,
                                                     const Program& program, const Set& frontier,
                                                     PassOptions pass = {}) {
    const auto value = reduce(op, frontier, before);
    if (!wanted(value)) return {Set::of({}, 0), value};
    return {edge_pass(program, frontier, pass), value};
  }

  template <typename Program>
  Direction direction_for(const Set& frontier, const PassOptions& pass) const {
    if (options_.direction != Direction::kAuto) return options_.direction;
    if (pass.direction != Direction::kAuto) return pass.direction;
    const FrontierFacts facts{frontier.size(), frontier.out_edges(), frontier.explored_edges(),
                              frontier.previous_size(), frontier.came_from_pull()};
    return options_.rule.choose(HasSaturated<Program>, ActivatesOnce<Program>, g_.num_arcs(), n_,
                                facts);
  }

  // ---- priority bins -------------------------------------------------------------------------

  // Delta-stepping's bins on the device: one pending list of every vertex put in any bin; a
  // vertex's bin is read from its key when the lowest bin is taken (so an entry never goes
  // stale: a vertex whose distance dropped is taken with its new bin), and a vertex listed twice
  // is taken once.
  struct Bins {
    typename Set::List pending;
    uint64_t current = 0;
  };
  Bins bins() const { return {}; }
  template <typename Key>
  void to_bins(Bins& bins, const Set& set, Key) const {
    const uint64_t had = bins.pending.size();
    bins.pending.resize(had + set.size());
    thrust::copy(policy(), set.list().begin(), set.list().end(), bins.pending.begin() + had);
  }
  template <typename Key>
  Set next_bin(Bins& bins, Key key) {
    if (bins.pending.empty()) return Set::of({}, 0);
    const BinOf<Id, Key> bin_of{key, bins.current};
    const uint64_t b = thrust::transform_reduce(policy(), bins.pending.begin(), bins.pending.end(),
                                                bin_of, ~uint64_t{0}, Lowest{});
    bins.current = b;
    const uint64_t count = bins.pending.size();
    Vector<uint8_t> taken(count);
    thrust::transform(policy(), bins.pending.begin(), bins.pending.end(), taken.begin(),
                      TakeOnce<Id, Key>{{key, b}, thrust::raw_pointer_cast(claimed_.data()), b});
    typename Set::List members(count), rest(count);
    members.resize(thrust::copy_if(policy(), bins.pending.begin(), bins.pending.end(),
                                   taken.begin(), members.begin(), IsSet{}) -
                   members.begin());
    rest.resize(thrust::copy_if(policy(), bins.pending.begin(), bins.pending.end(), rest.begin(),
                                NotInBin<Id, Key>{{key, b}, b}) -
                rest.begin());
    bins.pending = std::move(rest);
    thrust::for_each(policy(), members.begin(), members.end(),
                     Unclaim<Id>{thrust::raw_pointer_cast(claimed_.data())});
    return with_edges(std::move(members));
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
  Set with_edges(typename Set::List list) const;
  Vector<uint32_t> bitmap_of(const Set& set) const;
  const PullGrid& pull_grid(Grid which);

  template <typename T>
  VertexArray<T> allocate() {
    storage_.push_back(std::make_unique<Vector<uint64_t>>((n_ * sizeof(T) + 7) / 8 +
                                                          1));  // by pointer: views stay valid
    vertex_bytes_ += storage_.back()->size() * sizeof(uint64_t);
    peak_vertex_bytes_ = std::max(peak_vertex_bytes_, vertex_bytes_);
    return VertexArray<T>::over(
        reinterpret_cast<T*>(thrust::raw_pointer_cast(storage_.back()->data())), 0, n_);
  }

  // Thrust's algorithms with their temporary storage from the cache.
  auto policy() const { return Backend::policy()(*cache_); }

  const Graph& g_;
  DeviceEngineOptions options_;
  std::unique_ptr<TemporaryCache<Backend>> cache_ = std::make_unique<TemporaryCache<Backend>>();
  uint64_t n_ = 0;
  DeviceGrid<W, Backend> out_, in_;
  Vector<uint64_t> degree_, ranges_;
  PullGrid pull_in_, pull_out_;
  Vector<uint32_t> claimed_;
  Vector<Id> changed_;
  Vector<unsigned long long> count_;
  std::vector<std::unique_ptr<Vector<uint64_t>>> storage_;
  uint64_t vertex_bytes_ = 0, peak_vertex_bytes_ = 0;
  std::vector<DevicePassStats> stats_;
  double copy_in_seconds_ = 0;
};

}  // namespace tg::device

#include "engine/cuda/device_passes.h"