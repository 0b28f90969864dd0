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
//
// The files, one job each (all in engine/cpu/):
//   engine.h          this class, the facade: its interface and its state.
//   engine_types.h    the options and figures its interface takes and returns.
//   vertex_state.h    the vertex arrays it hands out, and the bytes they hold.
//   vertex_passes.h   vertex sets, passes over them, and the priority bins.
//   vertex_major.h    push and pull walked vertex by vertex (out-of-class members).
//   block_passes.inc  the choice of schedule, and push and pull walked block by block over the
//                     block store (members, included inside the class).
//   block_tasks.h     the tasks of a block-major pass and the store plan they read.
//   adjacency.h       a vertex's edges across the block grid; balanced vertex chunks.
//   frontier.h, bins.h, vertex_ops.h  vertex sets, delta-stepping's bins, the handle a vertex
//                     function reaches the engine through.
// What only MPI ranks need (a push in slices, messages from other ranks) is engine/mpi's
// (sliced_push.h), over the few primitives for backends this engine offers.
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
#include "engine/cpu/engine_types.h"
#include "engine/cpu/frontier.h"
#include "engine/cpu/vertex_ops.h"
#include "engine/cpu/vertex_passes.h"
#include "engine/cpu/vertex_state.h"
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
        hi_(std::min(options.owned.end, graph.num_vertices())),
        state_(graph.num_vertices()),
        vertices_(graph, lo_, hi_, options.threads, options.serial_work) {
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
    state_.reset_held();
  }
  // The vertex state and the results collect handed out since reset_stats, at their peak
  // together (a kernel's state_bytes promises this): a result moved out of an array adds
  // nothing, a mapped one adds its bytes while the arrays still held count.
  uint64_t peak_held_bytes() const { return state_.peak_held_bytes(); }
  uint64_t vertex_bytes() const { return state_.bytes(); }  // vertex state held now
  uint64_t peak_vertex_bytes() const { return state_.peak_bytes(); }
  // The most a block-major pull's slice accumulators held at once (the plan's pull_scratch_bytes
  // promises this), since the engine was made.
  uint64_t peak_pull_scratch_bytes() const { return pull_scratch_peak_; }
  // What the run holds now, by class. Frontiers an algorithm keeps are its own (they hold at
  // most one id per vertex, or a bitmap) and are not counted here.
  MemoryUse memory() const {
    MemoryUse m;
    m.vertex_state = state_.bytes();
    m.vertex_state_peak = state_.peak_bytes();
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
    explicit Scope(Engine& e) : state_(e.state_), mark_(e.state_.mark()) {}
    ~Scope() { state_.free_to(mark_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    VertexState& state_;
    size_t mark_;
  };
  Scope scope() { return Scope(*this); }
  // The handle a vertex function reaches the engine through (engine/cpu/vertex_ops.h).
  EngineOps<Engine> ops() { return {this}; }

  // A value per vertex, every one `init`.
  template <typename T>
  VertexArray<T> vertex_array(T init) {
    return state_.allocate<T>(init);
  }
  // A value per vertex, f(v) for each.
  template <typename F>
  auto vertex_array_from(F f) {
    auto a = state_.allocate<std::invoke_result_t<F, Id>>({});
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
    auto values = state_.take(a);  // the array's bytes, now the result's
    values.resize(a.size());       // an empty graph's array holds one spare value
    return values;
  }
  template <typename T, typename Map>
  auto collect(VertexArray<T> a, Map map) {
    const TeamSize team(options_.threads);
    std::vector<std::invoke_result_t<Map, T>> out(a.size());
    state_.add_result(out.size() * sizeof(out[0]));  // beside the arrays still held
#pragma omp parallel for schedule(static) if (hi_ - lo_ > options_.serial_work)
    for (uint64_t v = lo_; v < hi_; ++v) out[v] = map(a[v]);  // other ranks map their own
    state_.free(a);
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

  // ---- vertex sets and vertex passes (engine/cpu/vertex_passes.h) ------------------------------

  Set all() const { return vertices_.all(); }
  Set frontier_of(uint64_t v) const { return vertices_.frontier_of(v); }
  Set frontier_of(std::span<const uint64_t> vertices) const {
    return vertices_.frontier_of(vertices);
  }
  // f(v) for every vertex, or every member of a set.
  template <typename F>
  void for_each(F f) const {
    vertices_.for_each(f);
  }
  template <typename F>
  void for_each(const Set& set, F f) const {
    vertices_.for_each(set, f);
  }
  // op-combination of f(v) over every vertex (an allreduce across ranks), a set, or a list.
  template <typename Op, typename F>
  typename Op::Value reduce(Op op, F f) const {
    return vertices_.reduce(op, f);
  }
  template <typename Op, typename F>
  typename Op::Value reduce(Op op, const Set& set, F f) const {
    return vertices_.reduce(op, set, f);
  }
  template <typename Op, typename F>
  typename Op::Value reduce(Op op, std::span<const Id> vertices, F f) const {
    return vertices_.reduce(op, vertices, f);
  }
  // The members of `input` for which keep(v) holds; keep may update v's own state.
  template <typename Keep>
  Set select(const Set& input, Keep keep) const {
    return vertices_.select(input, keep);
  }
  // Delta-stepping's bins: each member of a set into bin key(v), the lowest live bin as a set.
  Bins<Id> bins() const { return vertices_.bins(); }
  template <typename Key>
  void to_bins(Bins<Id>& bins, const Set& set, Key key) const {
    vertices_.to_bins(bins, set, key);
  }
  template <typename Key>
  Set next_bin(Bins<Id>& bins, Key key) const {
    return vertices_.next_bin(bins, key);
  }
  template <typename Key>
  Set take_bin(Bins<Id>& bins, uint64_t b, Key key) const {
    return vertices_.take_bin(bins, b, key);
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

  // ---- for backends built on this engine (engine/mpi/sliced_push.h) ---------------------------

  // Opens a pass as combine_pass does (direction, schedule, the begin hook) and runs nothing.
  template <typename Program>
  Changed<Id> open_pass(const Set& frontier, const PassOptions<Id>& pass) const {
    check_program<Program, Id, W>();
    return begin_pass<Program>(frontier, pass);
  }
  // The combine phase of the messages out of `sources` only, in the direction and schedule an
  // opened pass chose (`opened`): the vertices it changed, per worker, with its figures.
  template <typename Program>
  Changed<Id> combine_sources(const Program& program, const Set& sources,
                              const PassOptions<Id>& pass, const IterationStats& opened) {
    const TeamSize team(options_.threads);
    Changed<Id> part;
    part.stats = opened;
    run_edges<false>(program, sources, pass, part);
    return part;
  }
  // The claim bit a changed vertex holds until apply_pass: true if this call set it (any thread).
  bool claim(Id v) { return claimed_.set_atomic(v); }
  void unclaim(Id v) { claimed_.clear(v); }  // a vertex handed to another rank's apply

  // The direction a pass of `program` over `frontier` takes (the same on every rank: it looks at
  // the frontier's job-wide counts only).
  template <typename Program>
  Direction direction_for(const Set& frontier, const PassOptions<Id>& pass) const {
    return options_.direction == Direction::kAuto && pass.direction != Direction::kAuto
               ? pass.direction
               : choose_direction<Program>(frontier);
  }

 private:
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

  // Vertex-major edge passes and their helpers (engine/cpu/vertex_major.h).
  template <typename Program>
  uint64_t apply_list(const Program& program, std::vector<Id>& list, bool claimed);
  template <typename Program, typename Value>
  auto push_edge(const Program& program, Value value, const Bitmap* only, std::vector<Id>& mine);
  template <bool kFused, typename Program>
  Set push(const Program& shared, const Set& frontier, const PassOptions<Id>& pass, Changed<Id>& c,
           const Adjacency<Id, W>& shared_adj);
  template <bool kFused, typename Program>
  Set pull(const Program& program, const Set& frontier, const PassOptions<Id>& pass, Changed<Id>& c,
           const Adjacency<Id, W>& adj);
  template <bool kFused, bool kEveryone, bool kOnlyTargets, typename Program>
  Set pull_loop(const Program& shared, const Set& frontier, const Bitmap* only, Changed<Id>& c,
                const Adjacency<Id, W>& shared_adj);

  std::vector<size_t> edge_balanced_tasks(const std::vector<Id>& list) const;

#include "engine/cpu/block_passes.inc"

  const Graph& g_;
  Adjacency<Id, W> adj_;
  EngineOptions options_;
  std::unique_ptr<MappedStore> own_store_;
  BlockStore* store_ = nullptr;
  std::optional<Slices> push_slices_, pull_slices_;
  Bitmap claimed_;
  std::vector<std::vector<Id>> found_;
  std::vector<uint64_t> pull_chunks_;
  std::vector<IterationStats> stats_;
  uint64_t pull_scratch_live_ = 0, pull_scratch_peak_ = 0;  // under omp critical(tg_pull_scratch)
  uint64_t lo_ = 0, hi_ = 0;                                // the masters (EngineOptions::owned)
  VertexState state_;
  VertexPasses<Id, W> vertices_;
};

// Checked here, where the engine is defined, as well as at every driver that runs on it.
static_assert(GraphEngine<Engine<uint32_t, NoWeight>>);
static_assert(GraphEngine<Engine<uint64_t, double>>);

}  // namespace tg

#include "engine/cpu/vertex_major.h"  // the definitions of the vertex-major passes
