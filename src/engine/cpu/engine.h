// The shared-memory engine. It owns everything an algorithm touches: vertex state (VertexArray),
// frontiers, every loop over vertices and edges, reductions, and the priority bins; an algorithm
// only says what flows along an edge and how values combine (see program.h for the contract).
// Because no algorithm runs a loop of its own, the same algorithm text can run where the loops
// are issued differently: over a block store, across MPI ranks, on a GPU.
//
// Primitives, each named after what a distributed or device backend issues for it:
//   vertex_array(init) / vertex_array_from(f)   engine-placed state (a window, device memory)
//   for_each, reduce(op, f), select             vertex passes (reduce: an allreduce across ranks)
//   combine_at(op, array, v, x)                 an atomic at an index (MPI_Accumulate, atomicMin)
//   root(parent, v), link(parent, u, v)         pointer jumping and a compare-and-swap hook
//   edge_pass, or combine_pass + apply_pass     messages along the frontier's edges
//   edge_pass_after(op, before, wanted, ...)    a vertex pass readying the sources, then an edge
//                                               pass that need not wait for it (relaxed barrier)
//   bins, to_bins, next_bin                     delta-stepping bins (thread-local)
//   collect(array)                              the result, gathered
#pragma once

#include <omp.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/combine.h"
#include "engine/concept.h"
#include "engine/cpu/adjacency.h"
#include "engine/cpu/bins.h"
#include "engine/cpu/block_tasks.h"
#include "engine/cpu/frontier.h"
#include "engine/cpu/vertex_ops.h"
#include "engine/forest.h"
#include "engine/program.h"
#include "engine/sampled_mode.h"
#include "engine/schedule.h"
#include "engine/stats.h"
#include "engine/vertex_array.h"
#include "graph/graph_view.h"
#include "store/block_store.h"
#include "store/mapped_store.h"
#include "util/parallel.h"
#include "util/timer.h"

namespace tg {

struct EngineOptions {
  Direction direction = Direction::kAuto;
  // The automatic direction's thresholds (engine/direction.h says the rule).
  double alpha = 15.0;
  double beta = 18.0;
  double pull_share = 0.5;
  bool record_stats = true;
  // Passes with less work than this (vertices + their edges) run on one thread: waking the team
  // costs more than a road graph's thousands of tiny levels.
  uint64_t serial_work = 4096;
  // Run every edge pass as combine_pass then apply_pass (what a relaxed barrier between ranks
  // needs) instead of the fused form; results are the same, which the tests check.
  bool two_phase = false;
  // Vertex-major or block-major edge passes (see schedule.h for auto's rule).
  Schedule schedule = Schedule::kAuto;
  // Where edge blocks come from; null: the mapped file (zero-copy). Not owned.
  BlockStore* store = nullptr;
  // The vertices this engine masters, [first, end): its vertex passes, pull targets, `all()`
  // and collect's map cover only these (an MPI rank's share; see engine/mpi/dist_engine.h). Push
  // still combines into any vertex. Bounds are multiples of 64 (bitmap words stay one rank's).
  struct VertexRange {
    uint64_t first = 0, end = UINT64_MAX;
  } owned{};
  // Worker threads of every parallel region the engine runs; 0: the caller's OpenMP setting.
  // A store's I/O threads are its own and not counted here (CopyingStoreOptions::io_threads).
  int threads = 0;
  // Called at the start of every edge pass (direction and schedule chosen, nothing read yet)
  // and at its end (with its figures): statistics, progress, a planner. Either may be empty.
  struct PassHooks {
    std::function<void(const IterationStats&)> begin, end;
  } hooks{};
};

// What a pass restricts itself to besides the frontier.
template <typename Id>
struct PassOptions {
  Direction direction = Direction::kAuto;  // kAuto: the engine's choice; --direction still wins
  const Frontier<Id>* targets = nullptr;   // only these vertices receive messages
};

// The vertices a combine pass changed, per worker, waiting for apply_pass.
template <typename Id>
struct Changed {
  std::vector<std::vector<Id>> lists;
  bool claimed = false;  // the vertices hold a claim bit that apply_pass clears
  IterationStats stats;
  uint64_t explored = 0;
  uint64_t previous_size = 0;
  double combine_seconds = 0;
};

// The memory a run holds besides the mapped file, by class: what a tier's budget counts.
struct MemoryUse {
  uint64_t vertex_state = 0;       // the program's vertex arrays, now
  uint64_t vertex_state_peak = 0;  // and at most so far (a kernel's state_bytes promises this)
  uint64_t engine_sets = 0;  // the engine's own: claim bitmap, per-thread push buffers, slices
  uint64_t block_index = 0;  // block decoders and the DCSR presence index
  uint64_t store_pool = 0;   // the block store's buffers
  uint64_t total() const { return vertex_state + engine_sets + block_index + store_pool; }
};

// What a pass runs before its sources (or a slice of them) when its caller asks nothing.
struct NoHook {
  template <typename Sources>
  void operator()(const Sources&) const {}
};

template <typename Id, typename W>
class Engine {
 public:
  using Graph = GraphView<Id, W>;
  using Set = Frontier<Id>;
  using VertexId = Id;
  using Weight = W;

  Engine(const Graph& graph, EngineOptions options)
      : g_(graph),
        adj_(graph),
        options_(options),
        claimed_(graph.num_vertices()),
        lo_(std::min(options.owned.first, graph.num_vertices())),
        hi_(std::min(options.owned.end, graph.num_vertices())) {
    const TeamSize team(options_.threads);
    if (options_.store) {
      store_ = options_.store;
    } else {
      own_store_ = std::make_unique<MappedStore>(g_.grid(Grid::kOut), g_.grid(Grid::kIn),
                                                 g_.blocks_per_side());
      store_ = own_store_.get();
    }
    pull_chunks_ = adj_.balanced_chunks(
        [&](uint64_t v) { return g_.in_degree(v) + (g_.directed() ? g_.out_degree(v) : 0); }, lo_,
        hi_);
  }

  const Graph& graph() const { return g_; }
  BlockStore& store() const { return *store_; }
  uint64_t num_vertices() const { return g_.num_vertices(); }
  uint64_t num_arcs() const { return g_.num_arcs(); }
  uint64_t out_degree(uint64_t v) const { return g_.out_degree(v); }
  std::vector<IterationStats>& stats() { return stats_; }
  const EngineOptions& options() const { return options_; }
  // Whether v is one of this engine's masters (always, unless EngineOptions::owned says less).
  bool owns(uint64_t v) const { return v >= lo_ && v < hi_; }
  uint64_t first_owned() const { return lo_; }
  uint64_t end_owned() const { return hi_; }
  void reset_stats() {
    stats_.clear();
    results_out_bytes_ = 0;
    peak_held_bytes_ = vertex_bytes_;
  }
  // The vertex state and the results collect handed out since reset_stats, at their peak
  // together (a kernel's state_bytes promises this): a result moved out of an array adds
  // nothing, a mapped one adds its bytes while the arrays still held count.
  uint64_t peak_held_bytes() const { return peak_held_bytes_; }
  uint64_t vertex_bytes() const { return vertex_bytes_; }  // vertex state held now
  uint64_t peak_vertex_bytes() const { return peak_vertex_bytes_; }
  // The most a block-major pull's slice accumulators held at once (the plan's pull_scratch_bytes
  // promises this), since the engine was made.
  uint64_t peak_pull_scratch_bytes() const { return pull_scratch_peak_; }
  // What the run holds now, by class. Frontiers an algorithm keeps are its own (they hold at
  // most one id per vertex, or a bitmap) and are not counted here.
  MemoryUse memory() const {
    MemoryUse m;
    m.vertex_state = vertex_bytes_;
    m.vertex_state_peak = peak_vertex_bytes_;
    m.engine_sets =
        claimed_.words() * sizeof(uint64_t) + pull_chunks_.capacity() * sizeof(uint64_t);
    for (const auto& list : found_) m.engine_sets += list.capacity() * sizeof(Id);
    for (const auto* s : {&push_slices_, &pull_slices_})
      if (*s) m.engine_sets += (*s)->bytes();
    m.block_index = g_.index_bytes();
    m.store_pool = store_->pool_bytes();
    return m;
  }

  // ---- vertex state ------------------------------------------------------------------------

  // Frees, when it goes out of scope, every vertex array made after it was taken.
  class [[nodiscard]] Scope {
   public:
    explicit Scope(Engine& e) : e_(e), mark_(e.storage_.size()) {}
    ~Scope() {
      while (e_.storage_.size() > mark_) {
        e_.vertex_bytes_ -= e_.storage_.back().bytes();
        e_.storage_.pop_back();
      }
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Engine& e_;
    size_t mark_;
  };
  Scope scope() { return Scope(*this); }
  // The handle a vertex function reaches the engine through (engine/cpu/vertex_ops.h).
  EngineOps<Engine> ops() { return {this}; }

  // A value per vertex, every one `init`.
  template <typename T>
  VertexArray<T> vertex_array(T init) {
    return allocate<T>(init);
  }
  // A value per vertex, f(v) for each.
  template <typename F>
  auto vertex_array_from(F f) {
    auto a = allocate<std::invoke_result_t<F, Id>>({});
    for_each([&](Id v) { a[v] = f(v); });
    return a;
  }
  // A copy of another vertex array.
  template <typename T>
  VertexArray<T> copy(VertexArray<T> from) {
    return vertex_array_from([=](Id v) { return from[v]; });
  }
  template <typename T>
  void set(VertexArray<T> a, uint64_t v, T x) const {
    a[v] = x;
  }
  // Writes x to a[v] if it differs; true if it did (v's own entry, from the thread handling v).
  template <typename T>
  bool update(VertexArray<T> a, uint64_t v, T x) const {
    if (a[v] == x) return false;
    a[v] = x;
    return true;
  }

  // The array's values in vertex order (gathered on rank 0, under MPI), each through map if given.
  // Collecting consumes the array: here its values move into the result without a copy.
  template <typename T>
  std::vector<T> collect(VertexArray<T> a) {
    const uint64_t held = vertex_bytes_;
    auto values = release(a);
    results_out_bytes_ += held - vertex_bytes_;  // the array's bytes, now the result's
    values.resize(a.size());                     // an empty graph's array holds one spare value
    return values;
  }
  template <typename T, typename Map>
  auto collect(VertexArray<T> a, Map map) {
    const TeamSize team(options_.threads);
    std::vector<std::invoke_result_t<Map, T>> out(a.size());
    results_out_bytes_ += out.size() * sizeof(out[0]);  // beside the arrays still held
    peak_held_bytes_ = std::max(peak_held_bytes_, vertex_bytes_ + results_out_bytes_);
#pragma omp parallel for schedule(static) if (hi_ - lo_ > options_.serial_work)
    for (uint64_t v = lo_; v < hi_; ++v) out[v] = map(a[v]);  // other ranks map their own
    release(a);
    return out;
  }

  // Combines x into a[v] atomically (any vertex, from any thread); true if a[v] changed.
  template <typename Op>
  bool combine_at(Op, VertexArray<typename Op::Value> a, uint64_t v, typename Op::Value x) const {
    return Op::atomic_combine(a[v], x);
  }
  // The forest primitives (engine/forest.h): root walks and a lock-free hook of the larger root
  // under the smaller, a compare-and-swap on a root's pointer (MPI_Compare_and_swap on ranks).
  Id root(VertexArray<Id> parent, Id v) const { return forest::root(parent, v); }
  Id root_halving(VertexArray<Id> parent, Id v) const { return forest::root_halving(parent, v); }
  // Points every vertex straight at its root.
  void compress(VertexArray<Id> parent) const {
    for_each([&](Id v) { parent.store(v, root_halving(parent, v)); });
  }
  void link(VertexArray<Id> parent, Id u, Id v) const {
    forest::link(parent, u, v, [](Id& slot, Id expected, Id desired) {
      return std::atomic_ref<Id>(slot).compare_exchange_strong(expected, desired,
                                                               std::memory_order_relaxed);
    });
  }
  // The most frequent value among `samples` entries drawn with a fixed seed
  // (engine/sampled_mode.h).
  template <typename T>
  T most_frequent(VertexArray<T> a, int samples) const {
    std::vector<T> drawn;
    for (uint64_t at : sample_positions(a.size(), samples)) drawn.push_back(a[at]);
    return mode_of(drawn);
  }

  // ---- vertex sets and vertex passes ---------------------------------------------------------

  Set all() const { return Set::all(g_.num_vertices(), g_.num_arcs(), lo_, hi_); }
  Set frontier_of(uint64_t v) const {
    return Set::sparse(g_.num_vertices(), {static_cast<Id>(v)}, g_.out_degree(v));
  }
  Set frontier_of(std::span<const uint64_t> vertices) const {
    std::vector<Id> list(vertices.begin(), vertices.end());
    uint64_t edges = 0;
    for (Id v : list) edges += g_.out_degree(v);
    return Set::sparse(g_.num_vertices(), std::move(list), edges);
  }

  // f(v) for every vertex, or every member of a set; small sets run on one thread.
  template <typename F>
  void for_each(F f) const {
    const TeamSize team(options_.threads);
#pragma omp parallel for schedule(static) if (hi_ - lo_ > options_.serial_work)
    for (uint64_t v = lo_; v < hi_; ++v) f(static_cast<Id>(v));
  }
  template <typename F>
  void for_each(const Set& set, F f) const {
    const TeamSize team(options_.threads);
    if (set.kind() == Set::Kind::kAll) return for_each(f);
    const auto& list = set.list();
#pragma omp parallel for schedule(static) if (list.size() > options_.serial_work)
    for (size_t k = 0; k < list.size(); ++k) f(list[k]);
  }

  // op-combination of f(v) over every vertex (an allreduce across ranks), or every member of a set.
  template <typename Op, typename F>
  typename Op::Value reduce(Op, F f) const {
    return reduce_range<Op>(hi_ - lo_, [&](uint64_t k) { return f(static_cast<Id>(lo_ + k)); });
  }
  template <typename Op, typename F>
  typename Op::Value reduce(Op op, const Set& set, F f) const {
    if (set.kind() == Set::Kind::kAll) return reduce(op, f);
    return reduce(op, std::span<const Id>(set.list()), f);
  }
  template <typename Op, typename F>
  typename Op::Value reduce(Op, std::span<const Id> vertices, F f) const {
    return reduce_range<Op>(vertices.size(), [&](uint64_t k) { return f(vertices[k]); });
  }

  // The members of `input` for which keep(v) holds, in O(|input|); keep may update v's own state.
  template <typename Keep>
  Set select(const Set& input, Keep keep) const {
    const TeamSize team(options_.threads);
    const bool everyone = input.kind() == Set::Kind::kAll;
    const std::vector<Id>* list = everyone ? nullptr : &input.list();
    const uint64_t count = everyone ? hi_ - lo_ : list->size();
    const int threads = count > options_.serial_work ? max_threads() : 1;
    std::vector<std::vector<Id>> parts(static_cast<size_t>(threads));
    uint64_t edges = 0;
#pragma omp parallel num_threads(threads) reduction(+ : edges)
    {
      OwnList<Id> own(
          parts[static_cast<size_t>(omp_get_thread_num())]);  // alone on its cache lines
      auto& mine = own.list();
#pragma omp for schedule(static)
      for (uint64_t k = 0; k < count; ++k) {
        const Id v = everyone ? static_cast<Id>(lo_ + k) : (*list)[k];
        if (keep(v)) {
          mine.push_back(v);
          edges += g_.out_degree(v);
        }
      }
    }
    return Set::sparse(g_.num_vertices(), concatenate(parts), edges);
  }

  // ---- edges ---------------------------------------------------------------------------------

  // f(u, v) for the first k out-edges of every vertex u: the sampled subgraph that Afforest-style
  // connectivity links first (a tier fetches only the heads of the blocks).
  template <typename F>
  void sample_pass(uint32_t k, F f) {
    const TeamSize team(options_.threads);
    if (store_->zero_copy()) {
#pragma omp parallel for schedule(dynamic, 1024)
      for (uint64_t u = lo_; u < hi_; ++u)
        adj_.for_first_out(u, k, [&](Id v) { f(static_cast<Id>(u), v); });
      return;
    }
    sample_blocks(k, f);
  }

  // One pass of messages along the edges out of `frontier`; returns the vertices apply() activated.
  template <typename Program>
  Set edge_pass(const Program& program, const Set& frontier, PassOptions<Id> pass = {}) {
    const TeamSize team(options_.threads);
    check_program<Program, Id, W>();
    if (options_.two_phase) return apply_pass(program, combine_pass(program, frontier, pass));
    Timer timer;
    Changed<Id> c = begin_pass<Program>(frontier, pass);
    Set next = run_edges<true>(program, frontier, pass, c);
    return finish_pass(std::move(next), c, timer.seconds());
  }

  // A vertex pass that readies the sources of the edge pass after it, in one call: the
  // op-combination of before(u) over the frontier's members, then, if wanted(that value),
  // edge_pass(program, frontier, pass). before(u) runs once per member u before any message
  // leaves u; it may write u's own state (what source_value reads) but must not touch the
  // pass's target (a message into u may combine before or after before(u) runs). So a backend
  // may send u's messages as soon as before(u) has returned, with no barrier between the
  // vertex pass and the edge pass (GraCXL's relaxed barrier: Apply of superstep N-1 overlaps
  // Gather of N). Such a backend cannot wait for the value and makes the edge pass whatever
  // wanted says (on MPI ranks with a relaxed barrier: engine/mpi/dist_engine.h); here the two run
  // one after the other (in one process the barrier is a team's join), and the pass only if wanted.
  template <typename Op, typename Before, typename Wanted, typename Program>
  std::pair<Set, typename Op::Value> edge_pass_after(Op op, Before before, Wanted wanted,
                                                     const Program& program, const Set& frontier,
                                                     PassOptions<Id> pass = {}) {
    const auto value = reduce(op, frontier, before);
    if (!wanted(value)) return {Set::sparse(g_.num_vertices(), {}, 0), value};
    return {edge_pass(program, frontier, pass), value};
  }

  // The same pass in two phases: combine every message into its target, then (after whatever
  // barrier the backend needs) apply once per changed vertex.
  template <typename Program>
  Changed<Id> combine_pass(const Program& program, const Set& frontier, PassOptions<Id> pass = {}) {
    const TeamSize team(options_.threads);
    check_program<Program, Id, W>();
    Timer timer;
    Changed<Id> c = begin_pass<Program>(frontier, pass);
    run_edges<false>(program, frontier, pass, c);
    c.combine_seconds = timer.seconds();
    return c;
  }
  // A push pass's combine phase over `slices` consecutive slices of the frontier (about equal in
  // out-edges), each combined by the whole team. After each slice, the vertices it changed that
  // this engine does not master go to hand_on(const std::vector<Id>&) and leave the lists, so a
  // rank sends a slice's updates while it and its peers still compute the next ones (Nezha's
  // threshold-triggered scatter). A handed-on vertex loses its claim: a later slice that changes
  // it again hands it on again. (Programs that activate once claim nothing: a later message only
  // combines into it, so their caller re-sends what changed after it was handed on.) What stays
  // in the lists is applied by apply_pass as after combine_pass.
  // before_slice(std::span<const Id>) sees each slice's sources before their messages leave.
  template <typename Program, typename HandOn, typename BeforeSlice = NoHook>
  Changed<Id> combine_pass_in_slices(const Program& program, const Set& frontier,
                                     PassOptions<Id> pass, size_t slices, HandOn hand_on,
                                     BeforeSlice before_slice = {}) {
    Timer timer;
    Changed<Id> c = begin_slices<Program>(frontier, pass);
    const auto [list, cuts] =
        slice_sources(frontier.list(), std::max<size_t>(slices, 1), c.stats.schedule);
    for (size_t s = 0; s + 1 < cuts.size(); ++s) {
      before_slice(std::span<const Id>(list.data() + cuts[s], cuts[s + 1] - cuts[s]));
      combine_slice(program, std::vector<Id>(list.begin() + cuts[s], list.begin() + cuts[s + 1]),
                    pass, c, hand_on);
    }
    c.combine_seconds = timer.seconds();
    return c;
  }
  // The same, slice by slice, for a caller that hands slices out itself (stealing between ranks):
  // begin_slices opens the pass, combine_slice combines the messages of one slice of sources
  // (with any program of the same operator: a stolen slice comes with its source values), and
  // the caller sets combine_seconds before apply_pass.
  template <typename Program>
  Changed<Id> begin_slices(const Set& frontier, PassOptions<Id> pass) {
    check_program<Program, Id, W>();
    Changed<Id> c = begin_pass<Program>(frontier, pass);
    if (c.stats.direction != Direction::kPush) throw std::logic_error("a sliced pass must push");
    // A slice is a list of sources: over resident blocks walked vertex-major (a slice stolen from
    // another rank then reads that rank's rows); over a fetching store read block-major, each
    // block as it arrives (vertex-major would hold them all), unless vertex-major is asked for.
    const bool block = !store_->zero_copy() && options_.schedule != Schedule::kVertex;
    c.stats.schedule = block ? Schedule::kBlock : Schedule::kVertex;
    c.stats.schedule_reason =
        block ? "a sliced pass, block-major: a slice is a run of whole block rows"
              : "a sliced pass";
    c.stats.edges_examined = 0;
    c.claimed = !ActivatesOnce<Program>;
    return c;
  }
  template <typename Program, typename HandOn>
  void combine_slice(const Program& program, std::vector<Id> sources, const PassOptions<Id>& pass,
                     Changed<Id>& c, HandOn hand_on) {
    const TeamSize team(options_.threads);
    uint64_t edges = 0;
    for (Id u : sources) edges += g_.out_degree(u);
    const Set slice = Set::sparse(g_.num_vertices(), std::move(sources), edges);
    Changed<Id> part;
    part.stats = c.stats;  // the pass's direction and schedule
    run_edges<false>(program, slice, pass, part);
    c.stats.edges_examined += part.stats.edges_examined;
    handed_.clear();
    for (auto& changes : part.lists) {
      size_t at = 0;
      for (Id v : changes) {
        if (owns(v))
          changes[at++] = v;
        else
          handed_.push_back(v);
      }
      changes.resize(at);
      if (at) c.lists.push_back(std::move(changes));
    }
    hand_on(static_cast<const std::vector<Id>&>(handed_));
    if constexpr (!ActivatesOnce<Program>) {
      for (Id v : handed_) claimed_.clear(v);
    }
  }

  template <typename Program>
  Set apply_pass(const Program& program, Changed<Id> c) {
    const TeamSize team(options_.threads);
    Timer timer;
    uint64_t total = 0;
    for (const auto& l : c.lists) total += l.size();
    uint64_t edges = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : edges) if (total > options_.serial_work)
    for (size_t t = 0; t < c.lists.size(); ++t) edges += apply_list(program, c.lists[t], c.claimed);
    Set next = Set::sparse(g_.num_vertices(), concatenate(c.lists), edges);
    found_ = std::move(c.lists);  // keep the buffers for the next pass
    return finish_pass(std::move(next), c, c.combine_seconds + timer.seconds());
  }

  // The direction a pass of `program` over `frontier` takes (the same on every rank: it looks at
  // the frontier's job-wide counts only).
  template <typename Program>
  Direction direction_for(const Set& frontier, const PassOptions<Id>& pass) const {
    return options_.direction == Direction::kAuto && pass.direction != Direction::kAuto
               ? pass.direction
               : choose_direction<Program>(frontier);
  }

  // Combines a message x that arrived for v from elsewhere (another rank's push) into v's
  // target, as a local push would; true if v is newly changed in this pass and must be applied
  // (add it to the pass's changed lists). Any thread.
  template <typename Program>
  bool receive(const Program& program, Id v, typename Program::Op::Value x) {
    using Op = typename Program::Op;
    const auto target = program.target();
    if constexpr (HasWants<Program>) {  // as push filters its targets (a BFS tree keeps its levels)
      if (!program.wants(target.load(v))) return false;
    }
    if constexpr (ActivatesOnce<Program>) {
      auto expected = Op::identity();
      if (std::atomic_ref(target[v]).compare_exchange_strong(expected, x,
                                                             std::memory_order_relaxed))
        return true;
      Op::atomic_combine(target[v], x);
      return false;
    } else {
      return Op::atomic_combine(target[v], x) && claimed_.set_atomic(v);
    }
  }

  // ---- priority bins -------------------------------------------------------------------------

  Bins<Id> bins() const {
    const TeamSize team(options_.threads);
    return Bins<Id>(g_.num_vertices(), max_threads());
  }
  // Puts each member of `set` into bin key(v) (never below the current bin), each thread into
  // bins of its own.
  template <typename Key>
  void to_bins(Bins<Id>& bins, const Set& set, Key key) const {
    const TeamSize team(options_.threads);
    const auto& list = set.list();
    auto put = [&](std::vector<std::vector<Id>>& mine, Id v) {
      const uint64_t b = std::max<uint64_t>(key(v), bins.current());
      if (b >= mine.size()) mine.resize(b + 1);
      mine[b].push_back(v);
    };
    if (list.size() <=
        options_.serial_work) {  // no team for a road graph's thousands of tiny rounds
      for (Id v : list) put(bins.local(0), v);
      return;
    }
#pragma omp parallel num_threads(bins.threads())
    {
      auto& mine = bins.local(omp_get_thread_num());
#pragma omp for schedule(static)
      for (size_t k = 0; k < list.size(); ++k) put(mine, list[k]);
    }
  }

  // The lowest non-empty bin as a frontier: each vertex once, and only if key(v) still names the
  // bin. Empty when every bin is.
  template <typename Key>
  Set next_bin(Bins<Id>& bins, Key key) const {
    for (uint64_t b = bins.advance(); b != Bins<Id>::kNone; b = bins.advance()) {
      Set s = take_bin(bins, b, key);
      if (!s.empty()) return s;
    }
    return Set::sparse(g_.num_vertices(), {}, 0);
  }
  // Bin b's live entries as a set (possibly empty); the bin is emptied.
  template <typename Key>
  Set take_bin(Bins<Id>& bins, uint64_t b, Key key) const {
    const TeamSize team(options_.threads);
    // Moves thread t's live, not yet taken entries of bin b into `into`; returns their out-edges.
    auto take = [&](int t, std::vector<Id>& into) {
      uint64_t edges = 0;
      auto& bin = bins.entries(t, b);
      for (Id v : bin) {
        if (key(v) == b && bins.taken().set_atomic(v)) {
          into.push_back(v);
          edges += g_.out_degree(v);
        }
      }
      bin.clear();
      return edges;
    };
    {
      const int threads = bins.threads();
      uint64_t edges = 0, entries = 0;
      for (int t = 0; t < threads; ++t) entries += bins.entries(t, b).size();
      const bool small = entries <= options_.serial_work;  // no team for tiny rounds
      std::vector<std::vector<Id>> parts(small ? 1 : static_cast<size_t>(threads));
      if (small) {
        for (int t = 0; t < threads; ++t) edges += take(t, parts[0]);
      } else {
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : edges)
        for (int t = 0; t < threads; ++t) {
          OwnList<Id> own(parts[static_cast<size_t>(t)]);  // alone on its cache lines
          edges += take(t, own.list());
        }
      }
      auto members = small ? std::move(parts[0]) : concatenate(parts);
      for (Id v : members) bins.taken().clear(v);
      return Set::sparse(g_.num_vertices(), std::move(members), edges);
    }
  }

 private:
  // op-combination of at(k) for k in [0, count), in static chunks per thread (so a sum of
  // doubles comes out the same on every run with the same team).
  template <typename Op, typename At>
  typename Op::Value reduce_range(uint64_t count, At at) const {
    const TeamSize team(options_.threads);
    using Value = typename Op::Value;
    const int threads = count > options_.serial_work ? max_threads() : 1;
    std::vector<Value> partial(static_cast<size_t>(threads), Op::identity());
#pragma omp parallel num_threads(threads)
    {
      Value acc = Op::identity();
#pragma omp for schedule(static) nowait
      for (uint64_t k = 0; k < count; ++k) acc = Op::combine(acc, at(k));
      partial[static_cast<size_t>(omp_get_thread_num())] = acc;
    }
    Value total = Op::identity();
    for (const auto& x : partial) total = Op::combine(total, x);
    return total;
  }

  template <typename T>
  VertexArray<T> allocate(T init) {
    const uint64_t n = g_.num_vertices();
    storage_.push_back(VertexStorage::of<T>(n, init));
    vertex_bytes_ += storage_.back().bytes();
    peak_vertex_bytes_ = std::max(peak_vertex_bytes_, vertex_bytes_);
    peak_held_bytes_ = std::max(peak_held_bytes_, vertex_bytes_ + results_out_bytes_);
    return VertexArray<T>::over(static_cast<T*>(storage_.back().data()), 0, n);
  }
  // Takes an array's values out of the engine (collect consumes the array).
  template <typename T>
  std::vector<T> release(VertexArray<T> a) {
    for (auto& s : storage_) {
      if (s.data() != nullptr && s.data() == a.data()) {
        vertex_bytes_ -= s.bytes();
        return s.template take<T>();
      }
    }
    throw std::logic_error("collect: the array is not this engine's (or was collected already)");
  }

  template <typename Program>
  Changed<Id> begin_pass(const Set& frontier, const PassOptions<Id>& pass) const {
    Changed<Id> c;
    c.stats.iteration = stats_.size();
    c.stats.frontier_size = frontier.size();
    c.stats.frontier_edges = frontier.out_edges();
    c.stats.direction = direction_for<Program>(frontier, pass);
    // As in GAPBS, only push passes count as exploring: after a pull phase the traversal goes
    // back to push and stays there until the frontier's edges are again a large share.
    c.explored = frontier.explored_edges() +
                 (c.stats.direction == Direction::kPush ? frontier.out_edges() : 0);
    c.previous_size = frontier.size();
    c.stats.schedule = choose_schedule(c.stats.schedule_reason);
    if (pass.targets) pass.targets->prepare_dense();
    if (options_.hooks.begin) options_.hooks.begin(c.stats);
    return c;
  }
  Set finish_pass(Set next, Changed<Id>& c, double seconds) {
    next.set_history(c.explored, c.stats.direction == Direction::kPull, c.previous_size);
    c.stats.activated = next.size();
    c.stats.seconds = seconds;
    // Workers' waits are summed; the mean worker waited wait / threads of the pass's time.
    c.stats.compute_seconds =
        std::max(0.0, seconds - c.stats.wait_seconds / std::max(1, max_threads()));
    if (options_.record_stats) stats_.push_back(c.stats);
    if (options_.hooks.end) options_.hooks.end(c.stats);
    return next;
  }

  template <typename Program>
  Direction choose_direction(const Set& frontier) const {
    if (options_.direction != Direction::kAuto) return options_.direction;
    const FrontierFacts facts{frontier.size(), frontier.out_edges(), frontier.explored_edges(),
                              frontier.previous_size(), frontier.came_from_pull()};
    return DirectionRule{options_.alpha, options_.beta, options_.pull_share}.choose(
        HasSaturated<Program>, ActivatesOnce<Program>, g_.num_arcs(), g_.num_vertices(), facts);
  }

  // apply() for each vertex of a changed list, keeping the activated ones in place; returns
  // their out-edges.
  template <typename Program>
  uint64_t apply_list(const Program& program, std::vector<Id>& list, bool claimed) {
    size_t kept = 0;
    uint64_t edges = 0;
    for (Id v : list) {
      if (claimed) claimed_.clear_atomic(v);
      if (!owns(v)) continue;  // another rank's vertex: its message went to its owner
      if (program.apply(v)) {
        list[kept++] = v;
        edges += g_.out_degree(v);
      }
    }
    list.resize(kept);
    return edges;
  }

  // A push's edge body, vertex-major and block-major alike: the message of a source's value
  // along an edge (v, w) combines atomically into v's target; a vertex it activates joins `mine`
  // (the thread's list). Everything is captured by value, the list aside: the atomics are a
  // barrier to the compiler, which otherwise reloaded each captured variable through the closure
  // after every edge (22 instructions around the one random load where 13 remain; SSSP on
  // kron-22 took 0.76 of its time once they stayed in registers).
  template <typename Program, typename Value>
  auto push_edge(const Program& program, Value value, const Bitmap* only, std::vector<Id>& mine) {
    using Op = typename Program::Op;
    return
        [&mine, claimed = &claimed_, program, value, only, target = program.target()](Id v, W w) {
          if (only && !only->get(v)) return;
          if constexpr (HasWants<Program>) {
            if (!program.wants(target.load(v))) return;
          }
          const auto message = program.message(value, w);
          if constexpr (ActivatesOnce<Program>) {
            // A target leaves its identity once: the message that moves it is the activation, so
            // one compare-and-swap decides it (later messages still combine).
            (void)claimed;
            auto expected = Op::identity();
            if (std::atomic_ref(target[v]).compare_exchange_strong(expected, message,
                                                                   std::memory_order_relaxed)) {
              mine.push_back(v);
            } else {
              Op::atomic_combine(target[v], message);
            }
          } else if (Op::atomic_combine(target[v], message) && claimed->set_atomic(v)) {
            mine.push_back(v);
          }
        };
  }

  // Push: each active source's value travels along its out-edges and is combined atomically
  // into the targets; with kFused, each thread applies the vertices it changed after the barrier.
  template <bool kFused, typename Program>
  Set push(const Program& shared, const Set& frontier, const PassOptions<Id>& pass, Changed<Id>& c,
           const Adjacency<Id, W>& shared_adj) {
    // The pass works on its own copy of the program and of the adjacency, as a rank or a device
    // would: the views they hold then stay in registers instead of being reloaded after every
    // store (see pull_loop).
    const Program program = shared;
    const Adjacency<Id, W> adj = shared_adj;
    constexpr bool kBoth = BothDirections<Program>;
    const auto& list = frontier.list();
    const Bitmap* only = pass.targets ? pass.targets->membership() : nullptr;
    const int threads = max_threads();
    const bool small = frontier.size() + frontier.out_edges() < options_.serial_work;
    found_.resize(static_cast<size_t>(threads));
    for (auto& f : found_) f.clear();
    uint64_t edges = 0;
    const auto tasks = edge_balanced_tasks(list);
    const size_t task_count = tasks.size() - 1;
#pragma omp parallel num_threads(small ? 1 : threads) reduction(+ : edges)
    {
      OwnList<Id> own(
          found_[static_cast<size_t>(omp_get_thread_num())]);  // alone on its cache lines
      auto& mine = own.list();
#pragma omp for schedule(dynamic, 1)
      for (size_t task = 0; task < task_count; ++task) {
        for (size_t k = tasks[task]; k < tasks[task + 1]; ++k) {
          const Id u = list[k];
          adj.template for_out<kBoth>(u, push_edge(program, program.source_value(u), only, mine));
        }
      }
      // After the barrier every message has landed.
      if constexpr (kFused) edges += apply_list(program, mine, !ActivatesOnce<Program>);
    }
    c.stats.edges_examined = frontier.out_edges() * (kBoth && g_.directed() ? 2 : 1);
    if constexpr (kFused) {
      return Set::sparse(g_.num_vertices(), concatenate(found_), edges);
    } else {
      c.lists = std::move(found_);
      c.claimed = !ActivatesOnce<Program>;
      return Set::sparse(g_.num_vertices(), {}, 0);
    }
  }

  // Pull: each vertex reduces the messages of its in-edges from the frontier locally (stopping
  // once saturated) and combines the result into its own target: one writer, no atomics.
  template <bool kFused, typename Program>
  Set pull(const Program& program, const Set& frontier, const PassOptions<Id>& pass, Changed<Id>& c,
           const Adjacency<Id, W>& adj) {
    frontier.prepare_dense();
    // Separately compiled loops: with every vertex active there is no membership test per
    // edge, and without a target set no test per vertex.
    const Bitmap* only = pass.targets ? pass.targets->membership() : nullptr;
    const bool everyone = frontier.kind() == Set::Kind::kAll;
    if (only) {
      return everyone ? pull_loop<kFused, true, true>(program, frontier, only, c, adj)
                      : pull_loop<kFused, false, true>(program, frontier, only, c, adj);
    }
    return everyone ? pull_loop<kFused, true, false>(program, frontier, only, c, adj)
                    : pull_loop<kFused, false, false>(program, frontier, only, c, adj);
  }

  template <bool kFused, bool kEveryone, bool kOnlyTargets, typename Program>
  Set pull_loop(const Program& shared, const Set& frontier, const Bitmap* only, Changed<Id>& c,
                const Adjacency<Id, W>& shared_adj) {
    // A copy on the stack: through a reference the compiler reloaded the adjacency's fields after
    // every store to the target (PageRank's pull was 1.17x slower than with the member that the
    // reference replaced, when the block store came).
    const Adjacency<Id, W> adj = shared_adj;
    using Op = typename Program::Op;
    const Program program = shared;  // see push()
    using Value = typename Op::Value;
    constexpr bool kBoth = BothDirections<Program>;
    // Programs that look at the target before reading edges load it first; the others after
    // the scan, so it holds no register through the edge loop.
    constexpr bool kTargetFirst = HasWants<Program> || HasSaturated<Program>;
    const auto target = program.target();
    Bitmap next(kFused ? g_.num_vertices() : 0);
    if constexpr (!kFused) {
      found_.resize(static_cast<size_t>(max_threads()));
      for (auto& f : found_) f.clear();
    }
    uint64_t size = 0, edges = 0, examined = 0;
    const size_t chunk_count = pull_chunks_.size() - 1;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : size, edges, examined)
    for (size_t chunk = 0; chunk < chunk_count; ++chunk) {
      // Chunks cover whole 64-vertex words, so each thread owns the bitmap words it writes.
      for (uint64_t v = pull_chunks_[chunk]; v < pull_chunks_[chunk + 1]; ++v) {
        if constexpr (kOnlyTargets) {
          if (!only->get(v)) continue;
        }
        Value current{};  // v's target; only this thread writes it during the pass
        if constexpr (kTargetFirst) current = target[v];
        if constexpr (HasWants<Program>) {
          if (!program.wants(current)) continue;
        }
        Value acc = Op::identity();
        examined += adj.template for_in_until<kBoth>(v, [&](Id u, W w) {
          if constexpr (!kEveryone) {
            if (!frontier.contains(u)) return false;
          }
          acc = Op::combine(acc, program.message(program.source_value(u), w));
          if constexpr (HasSaturated<Program>) {
            return program.saturated(Op::combine(current, acc));
          } else {
            return false;
          }
        });
        if constexpr (!kTargetFirst) current = target[v];
        const Value combined = Op::combine(current, acc);
        if (combined == current) continue;
        // Other threads read the target as a source value only if the program says so; the atomic
        // store costs the others 12% of PageRank's pull instructions (GCC reloads around it).
        if constexpr (SourceReadsTarget<Program>) {
          target.store(v, combined);
        } else {
          target[v] = combined;
        }
        if constexpr (kFused) {
          if (program.apply(static_cast<Id>(v))) {
            next.set(v);
            ++size;
            edges += g_.out_degree(v);
          }
        } else {
          found_[static_cast<size_t>(omp_get_thread_num())].push_back(static_cast<Id>(v));
        }
      }
    }
    c.stats.edges_examined = examined;
    if constexpr (kFused) {
      return Set::dense(g_.num_vertices(), std::move(next), size, edges);
    } else {
      c.lists = std::move(found_);
      c.claimed = false;
      return Set::sparse(g_.num_vertices(), {}, 0);
    }
  }

#include "engine/cpu/block_passes.inc"

  // A sliced push pass's sources in slice order, and the bounds of at most `slices` slices of
  // about equal out-edges (+1 per vertex), from 0 to the list's size; empty slices are dropped.
  // Walked vertex-major a slice is any run of the frontier list. Read block-major (the schedule
  // begin_slices chose), a slice is a run of whole block rows, the list grouped by row first: each
  // block of the pass is then read by one slice, not by every slice with a source in its row.
 public:
  std::pair<std::vector<Id>, std::vector<size_t>> slice_sources(const std::vector<Id>& list,
                                                                size_t slices,
                                                                Schedule schedule) const {
    if (schedule != Schedule::kBlock) return {list, slice_by_edges(list, slices)};
    const uint32_t p = g_.blocks_per_side();
    std::vector<size_t> start(p + 1, 0);  // where each row's sources begin in the grouped list
    std::vector<uint64_t> row_cost(p, 0);
    for (Id u : list) {
      const uint32_t r = g_.range_of(u);
      ++start[r + 1];
      row_cost[r] += g_.out_degree(u) + 1;
    }
    uint64_t total = 0;
    for (uint32_t r = 0; r < p; ++r) {
      start[r + 1] += start[r];
      total += row_cost[r];
    }
    std::vector<Id> grouped(list.size());
    std::vector<size_t> at(start.begin(), start.end() - 1);
    for (Id u : list) grouped[at[g_.range_of(u)]++] = u;
    std::vector<size_t> cuts{0};
    uint64_t sum = 0;
    for (uint32_t r = 0; r < p; ++r) {
      sum += row_cost[r];
      if (start[r + 1] > cuts.back() && cuts.size() < slices && sum * slices >= total * cuts.size())
        cuts.push_back(start[r + 1]);
    }
    if (cuts.back() != grouped.size()) cuts.push_back(grouped.size());
    return {std::move(grouped), std::move(cuts)};
  }

 private:
  // Cuts a frontier list into at most `slices` runs of roughly equal out-edges (+1 per vertex):
  // the offsets, from 0 to list.size(). Empty runs are dropped.
  std::vector<size_t> slice_by_edges(const std::vector<Id>& list, size_t slices) const {
    uint64_t total = 0;
    for (Id u : list) total += g_.out_degree(u) + 1;
    std::vector<size_t> cuts{0};
    uint64_t sum = 0;
    for (size_t k = 0; k < list.size(); ++k) {
      sum += g_.out_degree(list[k]) + 1;
      if (cuts.size() < slices && sum * slices >= total * cuts.size()) cuts.push_back(k + 1);
    }
    if (cuts.back() != list.size()) cuts.push_back(list.size());
    return cuts;
  }

  // Splits a frontier list into tasks of roughly equal out-edge counts.
  std::vector<size_t> edge_balanced_tasks(const std::vector<Id>& list) const {
    const size_t threads = static_cast<size_t>(max_threads());
    std::vector<size_t> tasks{0};
    if (list.size() <= 64) {
      tasks.push_back(list.size());
      return tasks;
    }
    if (list.size() < 8192) {
      for (size_t k = 64; k < list.size(); k += 64) tasks.push_back(k);
      tasks.push_back(list.size());
      return tasks;
    }
    std::vector<uint64_t> prefix(list.size() + 1, 0);
#pragma omp parallel for
    for (size_t k = 0; k < list.size(); ++k) prefix[k + 1] = g_.out_degree(list[k]) + 1;
    for (size_t k = 0; k < list.size(); ++k) prefix[k + 1] += prefix[k];
    const uint64_t total = prefix.back();
    const size_t count = threads * 16;
    for (size_t t = 1; t < count; ++t) {
      const uint64_t target = total * t / count;
      const size_t at = static_cast<size_t>(std::lower_bound(prefix.begin(), prefix.end(), target) -
                                            prefix.begin());
      if (at > tasks.back() && at < list.size()) tasks.push_back(at);
    }
    tasks.push_back(list.size());
    return tasks;
  }

  const Graph& g_;
  Adjacency<Id, W> adj_;
  EngineOptions options_;
  std::unique_ptr<MappedStore> own_store_;
  BlockStore* store_ = nullptr;
  std::optional<Slices> push_slices_, pull_slices_;
  Bitmap claimed_;
  std::vector<std::vector<Id>> found_;
  std::vector<Id> handed_;  // a slice's changed vertices that others master
  std::vector<uint64_t> pull_chunks_;
  std::vector<IterationStats> stats_;
  std::vector<VertexStorage> storage_;
  uint64_t vertex_bytes_ = 0, peak_vertex_bytes_ = 0;
  uint64_t results_out_bytes_ = 0, peak_held_bytes_ = 0;    // since reset_stats
  uint64_t pull_scratch_live_ = 0, pull_scratch_peak_ = 0;  // under omp critical(tg_pull_scratch)
  uint64_t lo_ = 0, hi_ = 0;                                // the masters (EngineOptions::owned)
};

// Checked here, where the engine is defined, as well as at every driver that runs on it.
static_assert(GraphEngine<Engine<uint32_t, NoWeight>>);
static_assert(GraphEngine<Engine<uint64_t, double>>);

}  // namespace tg
