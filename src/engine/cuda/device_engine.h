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
#include "engine/cuda/atomics.h"
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

// The sources and targets an edge pass may read, as flat views (a functor's members).
template <typename Id>
struct PassState {
  uint32_t* claimed = nullptr;          // per vertex: listed as changed in this pass
  Id* changed = nullptr;                // the changed vertices, in any order
  unsigned long long* count = nullptr;  // how many are listed
  const uint32_t* active = nullptr;     // bitmap of active sources (pull); null: every vertex
  const uint32_t* targets = nullptr;  // bitmap of the vertices that may receive; null: every vertex
  TG_HOST_DEVICE static bool bit(const uint32_t* map, uint64_t v) {
    return (map[v / 32] >> (v % 32)) & 1;
  }
  TG_HOST_DEVICE bool may_receive(uint64_t v) const { return !targets || bit(targets, v); }
  TG_HOST_DEVICE bool is_active(uint64_t v) const { return !active || bit(active, v); }
  // Lists v as changed, once per pass.
  TG_HOST_DEVICE void list(Id v) const {
    if (AtomicRef<uint32_t>(claimed[v]).exchange(1, cuda::memory_order_relaxed) == 0) {
      changed[AtomicRef<unsigned long long>(*count).fetch_add(1, cuda::memory_order_relaxed)] = v;
    }
  }
};

// Combines the message of arc u -> v into v's target as a push does (the CPU engine's receive()):
// programs that activate once list v only when this message is the first; others list v when
// the combine changed it.
template <typename Program, typename Id>
TG_HOST_DEVICE void deliver(const Program& program, const PassState<Id>& state, Id v,
                            typename Program::Op::Value x) {
  using Op = typename Program::Op;
  const auto target = program.target();
  if (!state.may_receive(v)) return;
  if constexpr (HasWants<Program>) {
    if (!program.wants(target.load(v))) return;
  }
  if constexpr (ActivatesOnce<Program>) {
    if (atomic_claim(target[v], Op::identity(), x)) {
      state.list(v);
      return;
    }
    atomic_combine(Op{}, target[v], x);
  } else {
    if (atomic_combine(Op{}, target[v], x)) state.list(v);
  }
}

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
    for_each(Fill<decltype(a), F>{a, f});
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

  void compress(VertexArray<Id> parent) { for_each(Compress{ops(), parent}); }
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
    thrust::for_each_n(policy(), thrust::counting_iterator<uint64_t>(0), n_, AsId<F>{f});
  }
  template <typename F>
  void for_each(const Set& set, F f) const {
    if (set.is_all()) return for_each(f);
    thrust::for_each_n(policy(), set.list().begin(), set.size(), f);
  }
  template <typename Op, typename F>
  typename Op::Value reduce(Op, F f) const {
    return thrust::transform_reduce(policy(), thrust::counting_iterator<uint64_t>(0),
                                    thrust::counting_iterator<uint64_t>(n_), AsId<F>{f},
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
                        AsFlag<Keep>{keep});
      selected = thrust::copy_if(policy(), thrust::counting_iterator<Id>(0),
                                 thrust::counting_iterator<Id>(static_cast<Id>(count)),
                                 kept.begin(), out.begin(), IsSet{}) -
                 out.begin();
    } else {
      thrust::transform(policy(), input.list().begin(), input.list().end(), kept.begin(),
                        AsFlag<Keep>{keep});
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
                       SampleArcs<F>{f, out_.device_blocks(),
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
    const BinOf<Key> bin_of{key, bins.current};
    const uint64_t b = thrust::transform_reduce(policy(), bins.pending.begin(), bins.pending.end(),
                                                bin_of, ~uint64_t{0}, Lowest{});
    bins.current = b;
    const uint64_t count = bins.pending.size();
    Vector<uint8_t> taken(count);
    thrust::transform(policy(), bins.pending.begin(), bins.pending.end(), taken.begin(),
                      TakeOnce<Key>{{key, b}, thrust::raw_pointer_cast(claimed_.data()), b});
    typename Set::List members(count), rest(count);
    members.resize(thrust::copy_if(policy(), bins.pending.begin(), bins.pending.end(),
                                   taken.begin(), members.begin(), IsSet{}) -
                   members.begin());
    rest.resize(thrust::copy_if(policy(), bins.pending.begin(), bins.pending.end(), rest.begin(),
                                NotInBin<Key>{{key, b}, b}) -
                rest.begin());
    bins.pending = std::move(rest);
    thrust::for_each(policy(), members.begin(), members.end(),
                     Unclaim{thrust::raw_pointer_cast(claimed_.data())});
    return with_edges(std::move(members));
  }

  // The pieces of the passes below are public only because nvcc's generated kernel stubs name
  // their types from outside the class: they are not part of the engine's interface.
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
  // ---- functors (members of a kernel: views and scalars only) ------------------------------

  template <typename F>
  struct AsId {
    F f;
    TG_HOST_DEVICE auto operator()(uint64_t v) const { return f(static_cast<Id>(v)); }
  };
  template <typename F>
  struct AsFlag {
    F f;
    template <typename V>
    TG_HOST_DEVICE uint8_t operator()(V v) const {
      return f(static_cast<Id>(v)) ? 1 : 0;
    }
  };
  template <typename A, typename F>
  struct Fill {
    A a;
    F f;
    TG_HOST_DEVICE void operator()(Id v) const { a[v] = f(v); }
  };
  struct IsSet {
    TG_HOST_DEVICE bool operator()(uint8_t x) const { return x != 0; }
  };
  template <typename Op>
  struct Combine {
    TG_HOST_DEVICE typename Op::Value operator()(typename Op::Value a, typename Op::Value b) const {
      return Op::combine(a, b);
    }
  };
  struct Lowest {
    TG_HOST_DEVICE uint64_t operator()(uint64_t a, uint64_t b) const { return a < b ? a : b; }
  };
  struct Compress {
    DeviceOps<Id> ops;
    VertexArray<Id> parent;
    TG_HOST_DEVICE void operator()(Id v) const { parent.store(v, ops.root_halving(parent, v)); }
  };
  struct Degree {
    const uint64_t* degree;
    TG_HOST_DEVICE uint64_t operator()(Id v) const { return degree[v]; }
  };
  struct Unclaim {
    uint32_t* claimed;
    TG_HOST_DEVICE void operator()(Id v) const { claimed[v] = 0; }
  };
  struct SetBit {
    uint32_t* map;
    TG_HOST_DEVICE void operator()(Id v) const {
      AtomicRef<uint32_t>(map[v / 32])
          .fetch_or(uint32_t{1} << (v % 32), cuda::memory_order_relaxed);
    }
  };
  template <typename Key>
  struct BinOf {
    Key key;
    uint64_t floor;  // never below the current bin
    TG_HOST_DEVICE uint64_t operator()(Id v) const {
      const uint64_t b = key(v);
      return b < floor ? floor : b;
    }
  };
  template <typename Key>
  struct TakeOnce {
    BinOf<Key> bin_of;
    uint32_t* claimed;
    uint64_t b;
    TG_HOST_DEVICE uint8_t operator()(Id v) const {
      return bin_of(v) == b &&
                     AtomicRef<uint32_t>(claimed[v]).exchange(1, cuda::memory_order_relaxed) == 0
                 ? 1
                 : 0;
    }
  };
  template <typename Key>
  struct NotInBin {
    BinOf<Key> bin_of;
    uint64_t b;
    TG_HOST_DEVICE bool operator()(Id v) const { return bin_of(v) != b; }
  };

  // The first k arcs of u, across the blocks of its row in order.
  template <typename F>
  struct SampleArcs {
    F f;
    const BlockDecoder* blocks;
    const uint64_t* ranges;
    uint32_t p;
    uint32_t k;
    TG_HOST_DEVICE void operator()(uint64_t u) const {
      const uint32_t row = range_of(ranges, p, u);
      uint32_t taken = 0;
      for (uint32_t j = 0; j < p && taken < k; ++j) {
        const BlockDecoder& d = blocks[uint64_t{row} * p + j];
        uint64_t begin, end;
        segment_of(d, u, begin, end);
        for (uint64_t e = begin; e < end && taken < k; ++e, ++taken)
          f(static_cast<Id>(u), static_cast<Id>(d.neighbour(e)));
      }
    }
  };

  // Push from a list of sources over one block: arc e of the list's arcs in this block.
  template <typename Program>
  struct PushListArc {
    Program program;
    PassState<Id> state;
    BlockDecoder block;
    const Id* sources;
    const uint64_t* first_arc;  // per source: its first arc in the block
    const uint64_t* scan;       // per source: arcs of the sources before it (exclusive scan)
    uint64_t sources_count;
    TG_HOST_DEVICE void operator()(uint64_t e) const {
      uint64_t lo = 0, hi = sources_count;  // the source i with scan[i] <= e < scan[i + 1]
      while (hi - lo > 1) {
        const uint64_t mid = (lo + hi) / 2;
        if (scan[mid] <= e)
          lo = mid;
        else
          hi = mid;
      }
      const Id u = sources[lo];
      const uint64_t arc = first_arc[lo] + (e - scan[lo]);
      deliver(program, state, static_cast<Id>(block.neighbour(arc)),
              program.message(program.source_value(u), arc_weight<W>(block, arc)));
    }
  };
  // Push from every vertex over one block: arc e of the block.
  template <typename Program>
  struct PushAllArc {
    Program program;
    PassState<Id> state;
    BlockDecoder block;
    TG_HOST_DEVICE void operator()(uint64_t e) const {
      const Id u = static_cast<Id>(block.vertex(entry_of_arc(block, e)));
      deliver(program, state, static_cast<Id>(block.neighbour(e)),
              program.message(program.source_value(u), arc_weight<W>(block, e)));
    }
  };
  struct ArcsInBlock {
    BlockDecoder block;
    uint64_t first, end;  // the block's major range
    TG_HOST_DEVICE uint64_t operator()(Id u) const {
      if (u < first || u >= end) return 0;
      uint64_t begin, stop;
      segment_of(block, u, begin, stop);
      return stop - begin;
    }
  };
  struct FirstArc {
    BlockDecoder block;
    TG_HOST_DEVICE uint64_t operator()(Id u) const {
      uint64_t begin, stop;
      segment_of(block, u, begin, stop);
      return begin;
    }
  };

  // Pull into one target: its in-arcs from active sources across its row of the in-grid.
  template <typename Program>
  struct PullTarget {
    Program program;
    PassState<Id> state;
    const BlockDecoder* blocks;  // the in-grid, storage order (target range * p + source range)
    const uint64_t* ranges;
    const uint8_t* heavy;  // per vertex: handled by the arc-parallel pass (null: none is)
    uint32_t p;
    TG_HOST_DEVICE void operator()(Id v) const {
      using Op = typename Program::Op;
      if ((heavy && heavy[v]) || !state.may_receive(v)) return;
      const auto target = program.target();
      const auto current = target.load(v);
      if constexpr (HasWants<Program>) {
        if (!program.wants(current)) return;
      }
      auto combined = current;
      const uint32_t row = range_of(ranges, p, v);
      bool stop = false;
      for (uint32_t j = 0; j < p && !stop; ++j) {
        const BlockDecoder& d = blocks[uint64_t{row} * p + j];
        uint64_t begin, end;
        segment_of(d, v, begin, end);
        for (uint64_t e = begin; e < end; ++e) {
          const Id u = static_cast<Id>(d.neighbour(e));
          if (!state.is_active(u)) continue;
          combined =
              Op::combine(combined, program.message(program.source_value(u), arc_weight<W>(d, e)));
          if constexpr (HasSaturated<Program>) {
            if (program.saturated(combined)) {
              stop = true;
              break;
            }
          }
        }
      }
      if (combined == current) return;
      target.store(v, combined);
      state.list(v);
    }
  };
  // Pull into heavy targets, arc-parallel: arc e of the block's heavy targets' arcs.
  template <typename Program>
  struct PullHeavyArc {
    Program program;
    PassState<Id> state;
    BlockDecoder block;
    const Id* targets;
    const uint64_t* first_arc;
    const uint64_t* scan;
    uint64_t targets_count;
    TG_HOST_DEVICE void operator()(uint64_t e) const {
      uint64_t lo = 0, hi = targets_count;
      while (hi - lo > 1) {
        const uint64_t mid = (lo + hi) / 2;
        if (scan[mid] <= e)
          lo = mid;
        else
          hi = mid;
      }
      const Id v = targets[lo];
      if constexpr (HasSaturated<Program>) {  // this target found all it needs: skip the read
        if (program.saturated(program.target().load(v))) return;
      }
      const uint64_t arc = first_arc[lo] + (e - scan[lo]);
      const Id u = static_cast<Id>(block.neighbour(arc));
      if (!state.is_active(u)) return;
      deliver(program, state, v,
              program.message(program.source_value(u), arc_weight<W>(block, arc)));
    }
  };
  template <typename Program>
  struct Apply {
    Program program;
    uint32_t* claimed;
    TG_HOST_DEVICE uint8_t operator()(Id v) const {
      claimed[v] = 0;
      return program.apply(v) ? 1 : 0;
    }
  };

  TG_HOST_DEVICE static uint32_t range_of(const uint64_t* ranges, uint32_t p, uint64_t v) {
    uint32_t lo = 0, hi = p;  // the range r with ranges[r] <= v < ranges[r + 1]
    while (hi - lo > 1) {
      const uint32_t mid = (lo + hi) / 2;
      if (ranges[mid] <= v)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }

 private:
  // ---- passes --------------------------------------------------------------------------------

  PassState<Id> pass_state() {
    PassState<Id> s;
    s.claimed = thrust::raw_pointer_cast(claimed_.data());
    s.changed = thrust::raw_pointer_cast(changed_.data());
    s.count = thrust::raw_pointer_cast(count_.data());
    return s;
  }

  // Messages from the frontier along the arcs of `grid`, grouped by their sources (the out-grid;
  // the in-grid for the reverse direction).
  template <typename Program>
  void push(const Program& program, const Set& frontier, const PassState<Id>& state,
            const DeviceGrid<W, Backend>& grid) {
    const uint32_t p = grid.side();
    if (frontier.is_all()) {
      for (uint64_t k = 0; k < uint64_t{p} * p; ++k) {
        const BlockDecoder& d = grid.block(k);
        thrust::for_each_n(policy(), thrust::counting_iterator<uint64_t>(0), d.edge_count,
                           PushAllArc<Program>{program, state, d});
      }
      return;
    }
    const uint64_t count = frontier.size();
    Vector<uint64_t> arcs(count + 1), first(count);
    const auto ranges = g_.ranges();
    for (uint32_t i = 0; i < p; ++i) {
      for (uint32_t j = 0; j < p; ++j) {
        const BlockDecoder& d = grid.block(uint64_t{i} * p + j);
        if (d.edge_count == 0) continue;
        thrust::transform(policy(), frontier.list().begin(), frontier.list().end(), arcs.begin(),
                          ArcsInBlock{d, ranges[i], ranges[i + 1]});
        thrust::fill_n(policy(), arcs.begin() + count, 1, uint64_t{0});
        thrust::exclusive_scan(policy(), arcs.begin(), arcs.end(), arcs.begin());
        const uint64_t total = arcs[count];
        if (total == 0) continue;
        thrust::transform(policy(), frontier.list().begin(), frontier.list().end(), first.begin(),
                          FirstArc{d});
        thrust::for_each_n(policy(), thrust::counting_iterator<uint64_t>(0), total,
                           PushListArc<Program>{program, state, d, frontier.data(),
                                                thrust::raw_pointer_cast(first.data()),
                                                thrust::raw_pointer_cast(arcs.data()), count + 1});
      }
    }
  }

  // Messages into each target along its arcs in `pg`'s grid, grouped by target (the in-grid;
  // the out-grid for the reverse direction).
  template <typename Program>
  void pull(const Program& program, const Set* targets, const PassState<Id>& state,
            const PullGrid& pg) {
    const uint32_t p = pg.grid->side();
    // A program whose targets saturate at their first message (BFS's bottom-up step) reads a
    // heavy target's arcs only until one is active, almost at once: one thread does that best.
    const bool split_heavy = !(ActivatesOnce<Program> && HasSaturated<Program>);
    const PullTarget<Program> one{program,
                                  state,
                                  pg.grid->device_blocks(),
                                  thrust::raw_pointer_cast(ranges_.data()),
                                  split_heavy ? thrust::raw_pointer_cast(pg.heavy.data()) : nullptr,
                                  p};
    if (targets)
      thrust::for_each(policy(), targets->list().begin(), targets->list().end(), one);
    else
      thrust::for_each_n(policy(), thrust::counting_iterator<Id>(0), n_, one);
    for (uint64_t k = 0; k < uint64_t{p} * p && split_heavy; ++k) {
      const HeavyArcs& h = pg.arcs[k];
      if (h.total == 0) continue;
      thrust::for_each_n(
          policy(), thrust::counting_iterator<uint64_t>(0), h.total,
          PullHeavyArc<Program>{program, state, pg.grid->block(k),
                                thrust::raw_pointer_cast(h.targets.data()),
                                thrust::raw_pointer_cast(h.first_arc.data()),
                                thrust::raw_pointer_cast(h.scan.data()), h.targets.size()});
    }
  }

  // apply() once per changed vertex; the ones it keeps are the next frontier.
  template <typename Program>
  Set apply(const Program& program) {
    const uint64_t changed = count_[0];
    Vector<uint8_t> kept(changed ? changed : 1);
    thrust::transform(policy(), changed_.begin(), changed_.begin() + changed, kept.begin(),
                      Apply<Program>{program, thrust::raw_pointer_cast(claimed_.data())});
    typename Set::List next(changed);
    next.resize(thrust::copy_if(policy(), changed_.begin(), changed_.begin() + changed,
                                kept.begin(), next.begin(), IsSet{}) -
                next.begin());
    return with_edges(std::move(next));
  }

  Set with_edges(typename Set::List list) const {
    const uint64_t edges = thrust::transform_reduce(
        policy(), list.begin(), list.end(), Degree{thrust::raw_pointer_cast(degree_.data())},
        uint64_t{0}, thrust::plus<uint64_t>());
    return Set::of(std::move(list), edges);
  }
  Vector<uint32_t> bitmap_of(const Set& set) const {
    Vector<uint32_t> map(n_ / 32 + 1, 0);
    thrust::for_each(policy(), set.list().begin(), set.list().end(),
                     SetBit{thrust::raw_pointer_cast(map.data())});
    return map;
  }

  // The grid whose blocks are grouped by the vertices that pull through them, indexed on first use.
  const PullGrid& pull_grid(Grid which) {
    PullGrid& pg = which == Grid::kIn ? pull_in_ : pull_out_;
    if (pg.grid) return pg;
    pg.grid = which == Grid::kIn ? &in_ : &out_;
    const BlockDecoder* host = g_.grid(which);
    const uint32_t p = pg.grid->side();
    std::vector<uint8_t> heavy(n_ ? n_ : 1, 0);
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < n_; ++v)
      heavy[v] = (which == Grid::kIn ? g_.in_degree(v) : g_.out_degree(v)) > kHeavyInDegree;
    pg.heavy = Vector<uint8_t>(heavy.begin(), heavy.end());
    pg.arcs.resize(uint64_t{p} * p);
    for (uint64_t k = 0; k < uint64_t{p} * p; ++k) {
      std::vector<Id> targets;
      std::vector<uint64_t> first, scan{0};
      host[k].for_each_vertex([&](uint64_t v, uint64_t begin, uint64_t end) {
        if (!heavy[v] || end == begin) return;
        targets.push_back(static_cast<Id>(v));
        first.push_back(begin);
        scan.push_back(scan.back() + (end - begin));
      });
      HeavyArcs& h = pg.arcs[k];
      h.total = scan.back();
      h.targets = Vector<Id>(targets.begin(), targets.end());
      h.first_arc = Vector<uint64_t>(first.begin(), first.end());
      h.scan = Vector<uint64_t>(scan.begin(), scan.end());
    }
    return pg;
  }

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
