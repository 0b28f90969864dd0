// The engine on MPI ranks: the same primitives as engine/cpu/engine.h, so the same algorithm text
// runs on one rank or many (kernels take `auto& engine`). Each rank masters a contiguous vertex
// range (engine/mpi/partition.h) and runs a shared-memory Engine restricted to it: its vertex
// passes, its pull targets and the sources it pushes from are its masters; it reads only its rows
// of the graph file's blocks.
//
// Vertex arrays are allocated whole on every rank (n values); a rank's values for its masters
// are the truth, the rest are replicas that the engine keeps as follows:
//   - created consistent: vertex_array(init) everywhere; vertex_array_from fills the masters
//     and gathers every slice (so copies and identity forests start equal on all ranks);
//   - written the same by every rank in the algorithm's sequential code (set, combine_at
//     outside a pass: every rank executes it);
//   - kept whole when the algorithm treats the array as a pointer forest (link, root, compress,
//     most_frequent read any vertex): such an array is re-gathered after every vertex pass that
//     changed some rank's slice of it (each rank hashes its slice to tell), and
//     merged with the combine operator after a pass that combined into other ranks' vertices
//     (WCC's hooking: merge_combined sends the slices and the improved entries, as an
//     allreduce would merge them); a forest linked into (Afforest's links) is merged so
//     that no rank's link is lost (merge_forest);
//   - as a combine target, a replica entry is this rank's mirror of a remote vertex: a push pass
//     combines messages into it and the engine sends each changed mirror to its owner once per
//     pass, combined (Gemini's mirrors). Min/or mirrors keep what was sent (a message that does
//     not improve on it need not travel); sum mirrors are reset to zero once sent.
// Edge passes: push sends the changed mirrors to their owners (collective: one MPI_Alltoallv of
// (vertex, value) records per pass; ring: batches into per-peer rings; accumulate: remote
// atomics), which combine them as a local push would and apply them. With the ring or
// accumulate and DistOptions::slices > 1, a push pass runs in slices of its frontier and each
// slice's changed mirrors go out before the next slice is computed, so they travel while the
// ranks compute (Engine::combine_pass_in_slices).
// edge_pass_after (PageRank's apply, then its next gather) relaxes the barrier between the two:
// a push pass applies each source on its owner just before pushing it, and the ranks agree on
// the vertex pass's value at the edge pass's end (DistOptions::relaxed_barrier).
// Pull first ships every active master's source value (the program's source_value, computed by
// its owner: "what a rank sends once per vertex") and the frontier's bitmap to all ranks, then
// each rank reduces its masters' in-edges locally (a program whose source value is the source's
// own id, BFS, ships only the bitmap). Direction, empty(), bins and reductions are
// decided on job-wide figures, so every rank takes the same branch.
#pragma once

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/concept.h"
#include "engine/cpu/engine.h"
#include "engine/mpi/inbox.h"
#include "engine/mpi/ops.h"
#include "engine/mpi/ring.h"
#include "engine/mpi/steal.h"
#include "mpi/comm.h"
#include "util/error.h"
#include "util/timer.h"

namespace tg {

// How a push pass's updates reach their owners: one MPI_Alltoallv of (vertex, value) records,
// batches of them written one-sidedly into per-peer rings (engine/mpi/ring.h), or remote atomics
// into the owners' inboxes (engine/mpi/inbox.h).
enum class Exchange { kCollective, kRing, kAccumulate };

struct DistOptions {
  Exchange exchange = Exchange::kCollective;
  // What the exchange's buffers may hold at once per rank (collective: sent and received
  // records; ring: the window and the staging batches; accumulate: the values an epoch stages).
  uint64_t exchange_bytes = uint64_t{64} << 20;
  uint32_t ring_batch = 128;  // records per ring batch
  double ring_hurried = 0.8;  // how full a ring is before its batches are hurried
  // ring and accumulate: a push pass runs in this many slices of its frontier, each slice's
  // updates sent before the next is computed (1: all sent after the pass).
  uint32_t slices = 1;
  // With slices: a rank whose own slices are taken steals its peers' (engine/mpi/steal.h).
  bool steal = false;
  // edge_pass_after's push passes: no barrier between the vertex pass and the edge pass (each
  // rank readies its sources as it pushes them); false: every rank's vertex pass ends first.
  bool relaxed_barrier = true;
};

// What one rank did in one edge pass.
struct RankPassStats {
  mpi::CommCounters comm;
  double seconds = 0;               // the whole pass
  uint64_t updates_sent = 0;        // changed mirrors sent to their owners (push)
  uint64_t updates_sent_early = 0;  // of them, sent before the pass's last slice was computed
  uint64_t slices_stolen = 0;       // slices this rank took from its peers and pushed
  uint64_t updates_held = 0;  // of those sent, held to the pass's end: the sent-once list was full
  uint64_t sources_readied =
      0;  // sources whose vertex pass ran inside this pass (a relaxed barrier)
  double compute_seconds() const {
    return std::max(0.0, seconds - comm.communication_seconds - comm.wait_seconds);
  }
};

// A program whose source values were computed by their owners and shipped here: the pull pass
// reads them from `shipped` instead of calling the program's source_value.
template <typename P, typename Id, typename S>
struct ShippedSources {
  using Op = typename P::Op;
  using Value = typename Op::Value;
  static constexpr bool kBothDirections = BothDirections<P>;
  static constexpr bool kActivatesOnce = ActivatesOnce<P>;
  P program;
  VertexArray<S> shipped;

  S source_value(Id u) const { return shipped[u]; }
  template <typename W>
  Value message(S s, W w) const {
    return program.message(s, w);
  }
  VertexArray<Value> target() const { return program.target(); }
  bool apply(Id v) const { return program.apply(v); }
  bool wants(Value x) const requires HasWants<P> { return program.wants(x); }
  bool saturated(Value x) const requires HasSaturated<P> { return program.saturated(x); }
};

template <typename Id, typename W>
class DistEngine {
 public:
  using Local = Engine<Id, W>;
  using Graph = GraphView<Id, W>;
  using Set = Frontier<Id>;
  using VertexId = Id;
  using Weight = W;

  DistEngine(const Graph& graph, EngineOptions options, mpi::Comm& comm, DistOptions dist = {})
      : comm_(comm), local_(graph, restricted(options, comm)), dist_(dist) {}

  const Graph& graph() const { return local_.graph(); }
  BlockStore& store() const { return local_.store(); }
  uint64_t num_vertices() const { return local_.num_vertices(); }
  uint64_t num_arcs() const { return local_.num_arcs(); }
  uint64_t out_degree(uint64_t v) const { return local_.out_degree(v); }
  std::vector<IterationStats>& stats() { return local_.stats(); }
  void reset_stats() {
    local_.reset_stats();
    passes_.clear();
    comm_.take_counters();
    between_edge_passes_ = {};
    if (rings_) rings_at_reset_ = rings_->counters();
  }
  // The ring exchange's figures since reset_stats(), and its shape; null without rings.
  struct RingReport {
    dist::RingCounters counters;
    uint32_t slots, batch_records;
    uint64_t bytes;
  };
  std::optional<RingReport> ring_report() const {
    if (!rings_) return std::nullopt;
    const auto& now = rings_->counters();
    const auto& then = rings_at_reset_;
    return RingReport{{now.batches - then.batches, now.hurried - then.hurried,
                       now.full_waits - then.full_waits, now.clears - then.clears},
                      rings_->slots(),
                      rings_->batch_records(),
                      rings_->bytes()};
  }
  // What the accumulate exchange's inbox windows hold on this rank (a value and a bit per master
  // each: vertex state, not traffic, so outside the exchange's bound); 0 without them.
  uint64_t inbox_window_bytes() const {
    uint64_t bytes = 0;
    for (const auto& [key, inbox] : inboxes_) bytes += inbox->window_bytes();
    return bytes;
  }
  // What this rank held at most for the algorithm's own exchanges, in bytes: the source values
  // its pulls shipped (and a stolen slice's), a linked forest's copy while the ranks merged it
  // (both planned per vertex by the kernel table's exchange_state), and the lists of hooks the
  // merge replaced, every rank's (not planned: they hold a pair per link two ranks made apart).
  struct ExchangeHeld {
    uint64_t shipped_values = 0, forest_copy = 0, forest_hooks = 0;
  };
  ExchangeHeld exchange_held() const {
    return {shipped_.capacity(), forest_copy_peak_, forest_hooks_peak_};
  }
  uint64_t vertex_bytes() const { return local_.vertex_bytes(); }
  uint64_t peak_vertex_bytes() const { return local_.peak_vertex_bytes(); }
  MemoryUse memory() const { return local_.memory(); }
  mpi::Comm& comm() { return comm_; }
  const std::vector<RankPassStats>& rank_passes() const { return passes_; }
  // What this rank sent and spent outside edge passes (vertex passes' array syncs, reductions,
  // gathers) since reset_stats(), up to the last edge pass; the rest is still in comm().
  const mpi::CommCounters& between_edge_passes() const { return between_edge_passes_; }

  // ---- vertex state ------------------------------------------------------------------------

  class [[nodiscard]] Scope {
   public:
    explicit Scope(DistEngine& e) : inner_(e.local_), e_(e), mark_(e.arrays_.size()) {}
    ~Scope() {
      while (e_.arrays_.size() > mark_) e_.arrays_.pop_back();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    typename Local::Scope inner_;
    DistEngine& e_;
    size_t mark_;
  };
  Scope scope() { return Scope(*this); }
  // The handle a vertex function reaches the engine through (engine/cpu/vertex_ops.h).
  EngineOps<DistEngine> ops() { return {this}; }

  template <typename T>
  VertexArray<T> vertex_array(T init) {
    return known(local_.vertex_array(init));
  }
  template <typename F>
  auto vertex_array_from(F f) {
    auto a = known(local_.vertex_array_from(f));
    comm_.allgather_slices(a.data(), sizeof(*a.data()));
    return a;
  }
  template <typename T>
  VertexArray<T> copy(VertexArray<T> from) {
    if (!info_of(from).whole.load(std::memory_order_relaxed))
      return vertex_array_from([=](Id v) { return from[v]; });
    auto a = known(local_.vertex_array(T{}));  // every rank holds all of `from`: copy it here
    std::memcpy(a.data(), from.data(), from.size() * sizeof(T));
    return a;
  }
  template <typename T>
  void set(VertexArray<T> a, uint64_t v, T x) const {
    a[v] = x;
  }
  template <typename T>
  bool update(VertexArray<T> a, uint64_t v, T x) const {
    return local_.update(a, v, x);
  }

  // The values on rank 0, in vertex order; other ranks get an empty vector.
  template <typename T>
  std::vector<T> collect(VertexArray<T> a) {
    comm_.gather_slices_to_root(a.data(), sizeof(T));
    forget(a);
    auto values = local_.collect(a);
    if (comm_.rank() != 0) values.clear();
    return values;
  }
  template <typename T, typename Map>
  auto collect(VertexArray<T> a, Map map) {
    auto values = local_.collect(a, map);  // each rank maps its masters
    forget(a);
    comm_.gather_slices_to_root(values.data(), sizeof(values[0]));
    if (comm_.rank() != 0) values.clear();
    return values;
  }

  // In a vertex pass, a combine into another rank's vertex lands in this rank's replica, and the
  // array is merged across ranks with the operator when the pass ends (so only idempotent
  // operators: min, max, or). Outside a pass every rank makes the same call.
  // A remote vertex the combine improved is listed, and sent with its value when the pass ends.
  template <typename Op>
  bool combine_at(Op op, VertexArray<typename Op::Value> a, uint64_t v, typename Op::Value x) {
    if (!in_pass_ || local_.owns(v)) return local_.combine_at(op, a, v, x);
    ArrayInfo& info = merge_after_pass<Op>(a);
    if (!local_.combine_at(op, a, v, x)) return false;
    const std::lock_guard lock(info.remote_mutex);  // rare: most combines improve nothing
    info.remote_combined.push_back(v);
    return true;
  }
  Id root(VertexArray<Id> parent, Id v) {
    keep_whole(parent);
    return local_.root(parent, v);
  }
  void compress(VertexArray<Id> parent) {
    keep_whole(parent);
    // Halving also shortens this rank's replica of other ranks' paths (each pointer moves to an
    // ancestor: the same roots), which the gather after the pass replaces with their owners'.
    for_each([&](Id v) { parent.store(v, local_.root_halving(parent, v)); });
  }
  void link(VertexArray<Id> parent, Id u, Id v) {
    // Each rank's forest is valid; so is their minimum, and merge_forest keeps every rank's links.
    ArrayInfo& info = merge_after_pass<MinOp<Id>>(parent);
    if (!info.forest.load(std::memory_order_relaxed))
      info.forest.store(true, std::memory_order_relaxed);
    local_.link(parent, u, v);
  }
  template <typename T>
  T most_frequent(VertexArray<T> a, int samples) {
    keep_whole(a);
    return local_.most_frequent(a, samples);
  }

  // ---- vertex sets and vertex passes ---------------------------------------------------------

  Set all() const { return local_.all(); }
  Set frontier_of(uint64_t v) const {
    Set s =
        Set::sparse(num_vertices(),
                    local_.owns(v) ? std::vector<Id>{static_cast<Id>(v)} : std::vector<Id>{}, 0);
    s.set_counts(1, out_degree(v));
    return s;
  }
  Set frontier_of(std::span<const uint64_t> vertices) const {
    std::vector<Id> mine;
    uint64_t edges = 0;
    for (uint64_t v : vertices) {
      edges += out_degree(v);
      if (local_.owns(v)) mine.push_back(static_cast<Id>(v));
    }
    Set s = Set::sparse(num_vertices(), std::move(mine), 0);
    s.set_counts(vertices.size(), edges);
    return s;
  }

  template <typename F>
  void for_each(F f) {
    pass([&] { local_.for_each(f); });
  }
  template <typename F>
  void for_each(const Set& set, F f) {
    pass([&] { local_.for_each(set, f); });
  }
  template <typename Op, typename F>
  typename Op::Value reduce(Op op, F f) {
    return reduce(op, all(), f);
  }
  template <typename Op, typename F>
  typename Op::Value reduce(Op op, const Set& set, F f) {
    typename Op::Value mine{};
    pass([&] { mine = local_.reduce(op, set, f); });
    return across_ranks(op, mine);
  }
  template <typename Keep>
  Set select(const Set& input, Keep keep) {
    Set s = Set::sparse(num_vertices(), {}, 0);
    pass([&] { s = local_.select(input, keep); });
    count_globally(s);
    return s;
  }

  // ---- edges ---------------------------------------------------------------------------------

  template <typename F>
  void sample_pass(uint32_t k, F f) {
    pass([&] { local_.sample_pass(k, f); });
  }

  template <typename Program>
  Set edge_pass(const Program& program, const Set& frontier, PassOptions<Id> options = {}) {
    return edge_pass_readying(program, frontier, options, NoHook{});
  }

  // A vertex pass that readies the sources of the edge pass after it (engine/cpu/engine.h). With a
  // relaxed barrier, a push pass runs before(u) on u's owner just before u's messages are
  // combined (slice by slice with --slices; all of a rank's first when it publishes its slices
  // for stealing, which carry source values), and the ranks agree on the vertex pass's value
  // when the edge pass ends: no rank waits for its peers' vertex passes before it pushes, so
  // one rank's updates travel while another still applies (GraCXL's relaxed barrier: Apply of
  // superstep N-1 overlaps Gather of N). The messages into a master may arrive before its
  // before() runs, which the contract allows (before must not touch the target). The edge pass
  // is made whatever wanted says: it has started before the value is known. A pull pass reads
  // every source's value from its owner, so it waits for every rank's vertex pass, as
  // relaxed_barrier = false does for push.
  template <typename Op, typename Before, typename Wanted, typename Program>
  std::pair<Set, typename Op::Value> edge_pass_after(Op op, Before before, Wanted wanted,
                                                     const Program& program, const Set& frontier,
                                                     PassOptions<Id> options = {}) {
    if (!dist_.relaxed_barrier ||
        local_.template direction_for<Program>(frontier, options) != Direction::kPush) {
      const auto value = reduce(op, frontier, before);
      if (!wanted(value)) return {Set::sparse(num_vertices(), {}, 0), value};
      return {edge_pass(program, frontier, options), value};
    }
    typename Op::Value mine = Op::identity();
    auto ready = [&](const auto& sources) {  // a Set, or a slice's span of its members
      run_in_pass([&] { mine = Op::combine(mine, local_.reduce(op, sources, before)); });
      sources_readied_ += local_members(sources);
    };
    Set next = edge_pass_readying(program, frontier, options, ready);
    sync_arrays();
    return {std::move(next), across_ranks(op, mine)};
  }

  // ---- priority bins -------------------------------------------------------------------------

  Bins<Id> bins() const { return local_.bins(); }
  template <typename Key>
  void to_bins(Bins<Id>& bins, const Set& set, Key key) const {
    local_.to_bins(bins, set, key);
  }
  // The lowest bin any rank holds live entries in, taken on every rank.
  template <typename Key>
  Set next_bin(Bins<Id>& bins, Key key) {
    for (;;) {
      const uint64_t b = across_ranks(MinOp<uint64_t>{}, bins.lowest());
      if (b == Bins<Id>::kNone) return Set::sparse(num_vertices(), {}, 0);
      bins.set_current(b);
      Set s = local_.take_bin(bins, b, key);
      count_globally(s);
      if (!s.empty()) return s;
    }
  }

 private:
  // One vertex array's standing across ranks.
  struct ArrayInfo {
    const void* data = nullptr;
    size_t value_bytes = 0;
    uint64_t count = 0;
    std::atomic<bool> whole{false};  // re-gathered after every vertex pass that changed it
    std::atomic<int> merge{-1};  // an idempotent mpi::ReduceOp to merge with after this pass, or -1
    mpi::Scalar scalar = mpi::Scalar::kU64;
    bool mergeable = false;  // a scalar MPI can reduce
    // Whole on every rank as of the last sync, and the hash of this rank's slice then: a slice
    // whose hash is unchanged need not be gathered again.
    bool synced = false;
    uint64_t slice_hash = 0;
    std::atomic<bool> forest{
        false};  // linked into in this pass (link: an array of ids), merged by merge_forest
    // Other ranks' vertices this pass's combines improved here (merge_combined sends them).
    std::mutex remote_mutex;
    std::vector<uint64_t> remote_combined;
  };
  // The hash of this rank's slice of an array (its masters' values).
  uint64_t slice_hash(const ArrayInfo& info) const {
    const auto* bytes = static_cast<const unsigned char*>(info.data);
    return XXH3_64bits(bytes + comm_.first(comm_.rank()) * info.value_bytes,
                       (comm_.end(comm_.rank()) - comm_.first(comm_.rank())) * info.value_bytes);
  }

  // The rank's engine masters its range. Both schedules read only its rows: vertex-major walks
  // its masters' adjacency, block-major plans the slices of its masters (make_slices). auto
  // chooses as in one process (schedule.h): over the mapped file vertex-major on coarse grids and
  // block-major on fine ones (PageRank on kron-22 at 8x8, two ranks: 5.4 s block-major, 9.3 s
  // vertex-major); a fetching store (a rank under a budget) is read block-major.
  static EngineOptions restricted(EngineOptions o, const mpi::Comm& comm) {
    o.owned = {comm.first(comm.rank()), comm.end(comm.rank())};
    return o;
  }

  template <typename T>
  VertexArray<T> known(VertexArray<T> a) {
    ArrayInfo& info = arrays_.emplace_back();
    info.data = a.data();
    info.value_bytes = sizeof(T);
    info.count = a.size();
    if constexpr (dist::MpiValue<T>) info.scalar = dist::MpiScalar<T>::kValue;
    info.mergeable = dist::MpiValue<T>;
    return a;
  }
  template <typename T>
  ArrayInfo& info_of(VertexArray<T> a) {
    for (auto it = arrays_.rbegin(); it != arrays_.rend(); ++it)
      if (it->data == a.data()) return *it;
    throw std::logic_error("a vertex array that is not this engine's");
  }
  template <typename T>
  void forget(VertexArray<T> a) {
    info_of(a).data = nullptr;
  }
  // Gathers the array now if it was not kept whole yet (outside passes), and from now on.
  template <typename T>
  void keep_whole(VertexArray<T> a) {
    ArrayInfo& info = info_of(a);
    if (info.whole.load(std::memory_order_relaxed)) return;
    if (!in_pass_) {
      comm_.allgather_slices(a.data(), sizeof(T));
      info.synced = true;
      info.slice_hash = slice_hash(info);
    }
    info.whole.store(true, std::memory_order_relaxed);
  }
  template <typename Op>
  ArrayInfo& merge_after_pass(VertexArray<typename Op::Value> a) {
    ArrayInfo& info = info_of(a);
    if constexpr (!dist::MpiReduce<Op>::kIdempotent)
      throw std::logic_error(
          "a vertex pass combined with a non-idempotent operator into another rank's vertex");
    constexpr mpi::ReduceOp m = dist::MpiReduce<Op>::kOp;
    if (!info.mergeable)
      throw std::logic_error(
          "a vertex pass combined into another rank's vertex of a type MPI cannot merge");
    // Called per edge (a sampled link) or per remote combine, from every thread: once marked, a
    // load leaves the cache line shared where a store per call would take it from the others.
    if (info.merge.load(std::memory_order_relaxed) == static_cast<int>(m) &&
        info.whole.load(std::memory_order_relaxed))
      return info;
    info.whole.store(true, std::memory_order_relaxed);
    info.merge.store(static_cast<int>(m), std::memory_order_relaxed);
    return info;
  }

  // Runs a vertex pass on this rank's masters, then brings the arrays kept whole up to date.
  template <typename F>
  void pass(F run) {
    run_in_pass(run);
    sync_arrays();
  }
  template <typename F>
  void run_in_pass(F run) {
    in_pass_ = true;
    try {
      run();
    } catch (...) {
      in_pass_ = false;
      throw;
    }
    in_pass_ = false;
  }
  // Merges or gathers the arrays that vertex passes since the last call asked for. An array
  // kept whole is gathered only when some rank's slice changed since the last sync (its hash
  // differs: a pass that only read the forest, as WCC's select and reduce do, moves nothing),
  // or when it has just become whole.
  void sync_arrays() {
    // Which arrays to merge or gather, agreed by all: a rank that combined into no remote vertex
    // (or read no other vertex, or changed no master) must still take part in what another needs.
    const size_t count = arrays_.size();
    std::vector<uint8_t> mine(
        4 * count);  // per array: merge operator + 1 (0: none), kept whole, slice changed, linked
    std::vector<uint64_t> hashes(count, 0);
    for (size_t k = 0; k < count; ++k) {
      ArrayInfo& info = arrays_[k];
      mine[4 * k] = static_cast<uint8_t>(info.merge.exchange(-1, std::memory_order_relaxed) + 1);
      mine[4 * k + 1] = info.whole.load(std::memory_order_relaxed) ? 1 : 0;
      if (info.data && info.synced) {
        hashes[k] = slice_hash(info);
        mine[4 * k + 2] = hashes[k] != info.slice_hash;
      } else {
        mine[4 * k + 2] = 1;  // never gathered whole: gather if it is whole now
      }
      mine[4 * k + 3] = info.forest.exchange(false, std::memory_order_relaxed) ? 1 : 0;
    }
    // Every rank's flags, rank 0's included: each branch below ends in a collective, so each is
    // decided on the same job-wide values everywhere (a rank that skipped rank 0's flags, as one
    // did, took the other branch of merge_combined when only rank 0's slice changed, and hung).
    const auto all = comm_.allgather(mine.data(), mine.size());
    for (size_t r = 0; r < static_cast<size_t>(comm_.size()); ++r) {
      for (size_t i = 0; i < mine.size(); ++i)
        mine[i] = std::max(mine[i], static_cast<uint8_t>(all[r * mine.size() + i]));
    }
    for (size_t k = 0; k < count; ++k) {
      ArrayInfo& info = arrays_[k];
      if (mine[4 * k + 1]) info.whole.store(true, std::memory_order_relaxed);
      if (!info.data) continue;
      void* data = const_cast<void*>(info.data);
      const int merge = mine[4 * k] - 1;
      if (merge >= 0) {
        if (mine[4 * k + 3] && merge == static_cast<int>(mpi::ReduceOp::kMin)) {
          info.remote_combined.clear();  // the forest's merge takes every rank's whole replica
          merge_forest(info);
        } else {
          merge_combined(info, static_cast<mpi::ReduceOp>(merge), mine[4 * k + 2] != 0);
        }
        info.synced = true;
        info.slice_hash = slice_hash(info);
      } else if (info.whole.load(std::memory_order_relaxed) && mine[4 * k + 2]) {
        comm_.allgather_slices(data, info.value_bytes);  // leaves this rank's slice as it was
        if (!info.synced) hashes[k] = slice_hash(info);
        info.synced = true;
        info.slice_hash = hashes[k];
      }
    }
  }

  // Merges an array that a vertex pass combined into on other ranks' vertices, as an allreduce
  // with the operator would, moving less: every replica entry was its owner's value when the pass
  // began (the array was whole) and only moved by the operator since, so the merged value of a
  // vertex is its owner's, combined with what each rank's pass combined into it here. So the
  // owners' slices are gathered (if any changed) and each rank's improved entries follow as
  // (vertex, value) pairs, combined in. WCC on kron-22, 2 ranks: 137.5 MB sent by both ranks
  // where the allreduces of the whole forest (16 MB each) made it 171.1 MB.
  void merge_combined(ArrayInfo& info, mpi::ReduceOp op, bool some_slice_changed) {
    std::vector<uint64_t> improved;
    improved.swap(info.remote_combined);
    std::sort(improved.begin(), improved.end());
    improved.erase(std::unique(improved.begin(), improved.end()), improved.end());
    std::vector<Entry> entries(improved.size());
    for (size_t k = 0; k < improved.size(); ++k) {
      entries[k].v = improved[k];
      std::memcpy(&entries[k].value,
                  static_cast<const std::byte*>(info.data) + improved[k] * info.value_bytes,
                  info.value_bytes);
    }
    if (some_slice_changed) comm_.allgather_slices(const_cast<void*>(info.data), info.value_bytes);
    const auto all = allgather_lists(entries);
    for (size_t r = 0; r < all.count.size(); ++r) {
      const std::span<const Entry> from(all.list(r), all.count[r]);
      switch (info.scalar) {
        case mpi::Scalar::kU32:
          combine_entries<uint32_t>(info, op, from);
          break;
        case mpi::Scalar::kU64:
          combine_entries<uint64_t>(info, op, from);
          break;
        case mpi::Scalar::kI64:
          combine_entries<int64_t>(info, op, from);
          break;
        case mpi::Scalar::kF64:
          combine_entries<double>(info, op, from);
          break;
      }
    }
  }
  struct Entry {  // a vertex and its value (in the first bytes of `value`)
    uint64_t v = 0;
    std::array<std::byte, 8> value{};
  };
  template <typename T>
  static void combine_entries(ArrayInfo& info, mpi::ReduceOp op, std::span<const Entry> entries) {
    T* values = static_cast<T*>(const_cast<void*>(info.data));
    for (const Entry& e : entries) {
      const uint64_t v = e.v;
      T x;
      std::memcpy(&x, e.value.data(), sizeof(T));
      switch (op) {
        case mpi::ReduceOp::kMin:
          values[v] = std::min(values[v], x);
          break;
        case mpi::ReduceOp::kMax:
          values[v] = std::max(values[v], x);
          break;
        case mpi::ReduceOp::kOr:
          if constexpr (std::is_integral_v<T>)
            values[v] |= x;
          else
            throw std::logic_error("a bitwise or merged into real values");
          break;
        case mpi::ReduceOp::kSum:
          throw std::logic_error("a replica merged with a sum (counted once a rank)");
      }
    }
  }

  // Merges a forest the ranks linked into their own replicas (Afforest's sampled links) without
  // losing a link. The pointer-wise minimum is a forest, but where two ranks hooked one root
  // differently it keeps one hook, and the tree the other joined falls away (FastSV's rounds
  // join it again, at the cost of a larger first frontier: WCC on kron-20, 2 ranks, pushed
  // from 413,783 vertices over 399,503 edges where one rank pushes from 402,680 over 587). So
  // each rank lists its hooks that the minimum replaced, as (its parent of v, v), and every rank
  // links all of them, rank by rank, into the merged forest: the same links in the same order,
  // so the replicas stay equal.
  void merge_forest(ArrayInfo& info) {
    auto parent =
        VertexArray<Id>::over(static_cast<Id*>(const_cast<void*>(info.data)), 0, info.count);
    std::vector<Id> before(parent.data(), parent.data() + info.count);
    comm_.allreduce(parent.data(), info.count, info.scalar, mpi::ReduceOp::kMin);
    std::vector<Id> replaced;  // pairs (u, v) this rank had in one tree
    for (uint64_t v = 0; v < info.count; ++v) {
      if (before[v] != static_cast<Id>(v) && before[v] != parent.load(v)) {
        replaced.push_back(before[v]);
        replaced.push_back(static_cast<Id>(v));
      }
    }
    forest_copy_peak_ = std::max<uint64_t>(forest_copy_peak_, before.capacity() * sizeof(Id));
    std::vector<Id>().swap(before);  // gone before every rank's pairs arrive
    const auto all = allgather_lists(replaced);
    forest_hooks_peak_ =
        std::max<uint64_t>(forest_hooks_peak_, replaced.capacity() * sizeof(Id) + all.bytes.size());
    for (size_t r = 0; r < all.count.size(); ++r) {
      const Id* pairs = all.list(r);
      for (uint64_t k = 0; k < all.count[r]; k += 2) local_.link(parent, pairs[k], pairs[k + 1]);
    }
  }

  // Every rank's list, in rank order, on every rank: each rank's count, and the lists padded to
  // the longest (one allgather sends as many from every rank; the padding is not read).
  template <typename T>
  struct Lists {
    std::vector<uint64_t> count;
    uint64_t widest = 0;
    std::vector<std::byte> bytes;
    const T* list(size_t r) const { return reinterpret_cast<const T*>(bytes.data()) + r * widest; }
  };
  template <typename T>
  Lists<T> allgather_lists(std::vector<T>& mine) {
    static_assert(std::is_trivially_copyable_v<T>);
    Lists<T> all;
    const uint64_t size = mine.size();
    const auto counts = comm_.allgather(&size, sizeof(size));
    all.count.resize(static_cast<size_t>(comm_.size()));
    std::memcpy(all.count.data(), counts.data(), all.count.size() * sizeof(uint64_t));
    all.widest = *std::max_element(all.count.begin(), all.count.end());
    if (all.widest == 0) return all;
    mine.resize(all.widest);
    all.bytes = comm_.allgather(mine.data(), all.widest * sizeof(T));
    return all;
  }

  // x combined over all ranks, in rank order (so every rank gets the same bits of a sum).
  template <typename Op>
  typename Op::Value across_ranks(Op, typename Op::Value x) {
    using Value = typename Op::Value;
    const auto bytes = comm_.allgather(&x, sizeof(Value));
    Value total = Op::identity();
    for (int r = 0; r < comm_.size(); ++r) {
      Value part;
      std::memcpy(&part, bytes.data() + static_cast<size_t>(r) * sizeof(Value), sizeof(Value));
      total = Op::combine(total, part);
    }
    return total;
  }
  // How many of this rank's masters a set, or a slice of its members, holds.
  uint64_t local_members(const Set& s) const {
    return s.kind() == Set::Kind::kAll ? local_.end_owned() - local_.first_owned()
                                       : s.list().size();
  }
  static uint64_t local_members(std::span<const Id> slice) { return slice.size(); }
  // Gives a set the job-wide counts (it holds this rank's members, and their counts).
  void count_globally(Set& s) {
    const auto total =
        across_ranks(SumOp<Pair<uint64_t>>{}, Pair<uint64_t>{s.size(), s.out_edges()});
    s.set_counts(total.first, total.second);
  }
  // The set with every rank's members (a bitmap), the same counts and history.
  Set whole(const Set& s) {
    if (s.kind() == Set::Kind::kAll) return s;
    s.prepare_dense();
    Bitmap bits(num_vertices());
    const Bitmap* mine = s.membership();
    const uint64_t first_word = local_.first_owned() / 64,
                   end_word = (local_.end_owned() + 63) / 64;
    for (uint64_t w = first_word; w < end_word; ++w) bits.data()[w] = mine->word(w);
    comm_.allgather_bits(bits.data());
    Set g = Set::dense(num_vertices(), std::move(bits), s.size(), s.out_edges());
    g.set_history(s.explored_edges(), s.came_from_pull(), s.previous_size());
    return g;
  }

  template <typename Program>
  Set pull(const Program& program, const Set& frontier, const PassOptions<Id>& options) {
    using S = std::remove_cvref_t<decltype(program.source_value(Id{}))>;
    const Set sources = whole(frontier);
    // A source that sends its own id (BFS) needs only the frontier's bitmap: nothing to ship, and
    // no shipped value to read per source found.
    if constexpr (SourceIsVertex<Program>)
      return local_.apply_pass(program, local_.combine_pass(program, sources, options));
    // Every active master's source value, computed here and gathered on every rank.
    const uint64_t n = num_vertices();
    if (shipped_.size() < n * sizeof(S)) shipped_.resize(n * sizeof(S));
    auto values = VertexArray<S>::over(reinterpret_cast<S*>(shipped_.data()), 0, n);
    local_.for_each(frontier, [&](Id u) { values[u] = program.source_value(u); });
    comm_.allgather_slices(values.data(), sizeof(S));
    const ShippedSources<Program, Id, S> shipped{program, values};
    return local_.apply_pass(program, local_.combine_pass(shipped, sources, options));
  }

  // An edge pass whose push runs ready(sources) before the sources' messages are combined
  // (edge_pass_after; NoHook for a plain edge pass).
  template <typename Program, typename Ready>
  Set edge_pass_readying(const Program& program, const Set& frontier, PassOptions<Id> options,
                         Ready ready) {
    Timer timer;
    between_edge_passes_ +=
        comm_.take_counters();  // the vertex passes' syncs and reductions since the last
    const Direction direction = local_.template direction_for<Program>(frontier, options);
    options.direction = direction;
    Set next = Set::sparse(num_vertices(), {}, 0);
    if (direction == Direction::kPull) {
      next = pull(program, frontier, options);
    } else {
      // Push combines into any vertex: a target set must name every rank's members.
      std::optional<Set> targets;
      if (options.targets) options.targets = &targets.emplace(whole(*options.targets));
      next = push(program, frontier, options, ready);
    }
    count_globally(next);
    passes_.push_back({comm_.take_counters(), timer.seconds(), updates_sent_, updates_sent_early_,
                       slices_stolen_, updates_held_, sources_readied_});
    updates_sent_ = updates_sent_early_ = slices_stolen_ = updates_held_ = sources_readied_ = 0;
    return next;
  }

  // Push: combine here (remote targets into their mirrors), send the changed mirrors to their
  // owners, take in what was sent here, and apply.
  // ready(sources) runs before the sources' messages are combined (edge_pass_after).
  template <typename Program, typename Ready>
  Set push(const Program& program, const Set& frontier, const PassOptions<Id>& options,
           Ready ready) {
    if (dist_.slices > 1 && dist_.exchange != Exchange::kCollective)
      return push_in_slices(program, frontier, options, ready);
    ready(frontier);
    if (dist_.exchange == Exchange::kCollective) {
      Changed<Id> changed = local_.combine_pass(program, frontier, options);
      changed.lists.push_back(send_collectively(program, changed.lists));
      return local_.apply_pass(program, std::move(changed));
    }
    Changed<Id> changed = local_.combine_pass(program, frontier, options);
    changed.lists.push_back(one_sided(program, [&](auto send, auto) {
      for (const auto& list : changed.lists)
        for (Id v : list)
          if (!local_.owns(v)) send(v);
    }));
    return local_.apply_pass(program, std::move(changed));
  }

  // Push in slices of the frontier, each slice's changed mirrors sent before the next slice is
  // computed: they travel (into the peers' rings, or accumulated into their windows) while this
  // rank and its peers compute, instead of after the whole pass. Between slices this rank takes
  // in the batches that arrived meanwhile, so its peers' rings drain while it works. With
  // stealing, the slices go on this rank's task board: it takes its own from there, then takes
  // its peers' that are left (with their source values) and pushes those too.
  template <typename Program, typename Ready>
  Set push_in_slices(const Program& program, const Set& frontier, const PassOptions<Id>& options,
                     Ready ready) {
    using Value = typename Program::Op::Value;
    using S = std::remove_cvref_t<decltype(program.source_value(Id{}))>;
    struct Task {
      Id u;
      S s;
    };
    static_assert(sizeof(Task) <= kTaskRecordBytes);
    Timer timer;
    const auto target = program.target();
    ++push_passes_;
    if (dist_.steal && !board_) {  // made on the first such pass, which every rank makes
      if (!local_.store()
               .zero_copy()) {  // the check_run_request refusal, for callers other than the CLI
        fail(
            "stealing needs every block resident: over a fetching store a rank reads only its own "
            "rows");
      }
      // The board takes its share of the exchange's memory bound (board_bytes()); a frontier
      // with more sources than it holds publishes only its last slices that fit.
      const uint64_t fits =
          dist::TaskBoard::records_fitting(board_bytes(), kTaskRecordBytes, dist_.slices);
      if (fits == 0) {
        fail(
            "--steal with --slices {} needs a larger --exchange-memory: its share, {} bytes, holds "
            "no task",
            dist_.slices, board_bytes());
      }
      board_ = std::make_unique<dist::TaskBoard>(
          comm_, kTaskRecordBytes, std::min(fits, local_.end_owned() - local_.first_owned()),
          dist_.slices);
    }
    Changed<Id> changed;
    // A program that activates once lists a vertex once per pass: a mirror a later slice
    // improves after it was sent is found by what was sent, and sent again when the pass ends.
    // What was sent is held within its share of the exchange's memory (sent_once_bytes()); once
    // that is full, the pass's other mirrors wait in `held` (a vertex set like the engine's own
    // lists of changed vertices) and leave when the pass ends, as in a pass without slices.
    using SentOnce = std::pair<Id, Value>;
    std::vector<SentOnce> sent_once;
    std::vector<Id> held;
    if constexpr (ActivatesOnce<Program>) sent_once.reserve(sent_once_bytes() / sizeof(SentOnce));
    uint64_t last_slice = 0;  // what the latest slice handed on (early unless it was the last)
    auto arrived = one_sided(program, [&](auto send, auto take_arrived) {
      auto hand_on = [&](const std::vector<Id>& others) {
        updates_sent_early_ += last_slice;
        last_slice = 0;
        for (Id v : others) {
          if constexpr (ActivatesOnce<Program>) {
            if (sent_once.size() == sent_once.capacity()) {
              held.push_back(v);
              continue;
            }
            sent_once.emplace_back(v, target[v]);
          }
          send(v);
          ++last_slice;
        }
        take_arrived();
      };
      if (!board_) {
        changed =
            local_.combine_pass_in_slices(program, frontier, options, dist_.slices, hand_on, ready);
      } else {
        ready(frontier);  // the board carries source values
        changed = local_.template begin_slices<Program>(frontier, options);
        // (Not structured bindings: the lambdas below capture them, which clang 14 cannot.)
        const auto sliced =
            local_.slice_sources(frontier.list(), dist_.slices, changed.stats.schedule);
        const auto& list = sliced.first;
        const auto& cuts = sliced.second;
        auto own_slice = [&](size_t k) {
          local_.combine_slice(program,
                               std::vector<Id>(list.begin() + cuts[k], list.begin() + cuts[k + 1]),
                               options, changed, hand_on);
        };
        // Slices [0, first) do not fit on the board: this rank does them first, while its
        // peers may take from the rest.
        size_t first = 0;
        while (first + 1 < cuts.size() && list.size() - cuts[first] > board_->max_records())
          ++first;
        publish_tasks<Task>(program, list, std::span<const size_t>(cuts).subspan(first));
        for (size_t k = 0; k < first; ++k) own_slice(k);
        for (int64_t k; (k = board_->take_own()) >= 0;) own_slice(first + static_cast<size_t>(k));
        for (size_t got; (got = board_->steal(push_passes_, stolen_)) > 0;) {
          // The slice's sources with the values their owner computed, pushed as if they were ours.
          const uint64_t n = num_vertices();
          if (shipped_.size() < n * sizeof(S)) shipped_.resize(n * sizeof(S));
          auto values = VertexArray<S>::over(reinterpret_cast<S*>(shipped_.data()), 0, n);
          std::vector<Id> sources(got);
          for (size_t k = 0; k < got; ++k) {
            Task t;
            std::memcpy(&t, stolen_.data() + k * kTaskRecordBytes, sizeof(Task));
            sources[k] = t.u;
            values[t.u] = t.s;
          }
          local_.combine_slice(ShippedSources<Program, Id, S>{program, values}, std::move(sources),
                               options, changed, hand_on);
          ++slices_stolen_;
        }
      }
      for (const auto& [v, x] : sent_once)
        if (target[v] != x) send(v);
      for (Id v : held) send(v);
      updates_held_ += held.size();
    });
    // Everything the sliced exchange held at once: rings or an inbox's staging, board, a stolen
    // slice, and what was sent once.
    comm_.note_buffer((rings_ ? rings_->bytes() : inbox_staged_peak_) +
                      (board_ ? board_->bytes() + stolen_.capacity() : 0) +
                      sent_once.capacity() * sizeof(SentOnce));
    changed.lists.push_back(std::move(arrived));
    changed.combine_seconds = timer.seconds();
    return local_.apply_pass(program, std::move(changed));
  }

  // Slices of this rank on its task board (cuts: their bounds in the frontier list), each
  // source with its value, written straight into the board's window.
  template <typename Task, typename Program>
  void publish_tasks(const Program& program, const std::vector<Id>& list,
                     std::span<const size_t> cuts) {
    const size_t from = cuts.empty() ? 0 : cuts.front(),
                 count = cuts.empty() ? 0 : cuts.back() - from;
    std::byte* records = board_->records();  // the board's record size, whatever a Task's
#pragma omp parallel for schedule(static) if (count > 4096)
    for (size_t k = 0; k < count; ++k) {
      const Task t{list[from + k], program.source_value(list[from + k])};
      std::memcpy(records + k * kTaskRecordBytes, &t, sizeof(Task));
    }
    std::vector<size_t> bounds(cuts.begin(), cuts.end());
    for (auto& b : bounds) b -= from;
    board_->publish(push_passes_, bounds);
  }
  // With stealing, the task board gets an eighth of the exchange's memory bound, as much again
  // is left for a stolen slice (never larger than a peer's board), and the rings get what the
  // sent-once list below leaves.
  uint64_t board_bytes() const { return dist_.steal ? dist_.exchange_bytes / 8 : 0; }
  // With slices, another eighth holds the mirrors a pass of a program that activates once sent
  // (to send again those a later slice improved).
  uint64_t sent_once_bytes() const { return dist_.slices > 1 ? dist_.exchange_bytes / 8 : 0; }
  // The rings' window and batches, or the values an inbox's epoch stages: the rest.
  uint64_t one_sided_bytes() const {
    return dist_.exchange_bytes - 2 * board_bytes() - sent_once_bytes();
  }

  // A mirror sent: sum mirrors start again from zero (min and or ones keep what was sent).
  template <typename Program>
  static void sent(const Program& program, Id v) {
    using Op = typename Program::Op;
    if constexpr (std::is_same_v<Op, SumOp<typename Op::Value>>)
      program.target()[v] = Op::identity();
  }

  // One push pass's exchange through the rings or the accumulate windows: body(send,
  // take_arrived) calls send(v) for each changed mirror v (its value goes to v's owner) and may
  // call take_arrived() when it pauses; what was sent here is combined into the masters here.
  // Returns the masters that it newly changed.
  template <typename Program, typename Body>
  std::vector<Id> one_sided(const Program& program, Body body) {
    using Op = typename Program::Op;
    using Value = typename Op::Value;
    const auto target = program.target();
    std::vector<Id> arrived;
    auto take = [&](Id v, Value x) {
      if (local_.receive(program, v, x)) arrived.push_back(v);
    };
    if (dist_.exchange == Exchange::kRing) {
      // Records travel in batches and are taken in as they come, while this rank still sends.
      struct Update {
        Id v;
        Value x;
      };
      static_assert(sizeof(Update) <= kRingRecordBytes);
      if (!rings_) {  // made on the first push pass, which every rank makes
        rings_ =
            std::make_unique<dist::Rings>(comm_, kRingRecordBytes,
                                          dist::RingOptions{.batch_records = dist_.ring_batch,
                                                            .hurried = dist_.ring_hurried,
                                                            .memory_bytes = one_sided_bytes()});
      }
      rings_->begin(sizeof(Update), [&](const std::byte* records, size_t count) {
        for (size_t k = 0; k < count; ++k) {
          Update u;
          std::memcpy(&u, records + k * sizeof(Update), sizeof(Update));
          take(u.v, u.x);
        }
      });
      body(
          [&](Id v) {
            ++updates_sent_;
            const Update u{v, target[v]};
            rings_->add(comm_.owner(v), &u);
            sent(program, v);
          },
          [&] { rings_->take_arrived(); });
      rings_->finish();
    } else {
      // Combined by MPI into the owners' inboxes, taken in once every rank's epoch has closed.
      // A mirror that finds this epoch's staging full waits in `held` (a vertex list, as the
      // engine's own changed lists) and goes in a later epoch, as the collective exchange's
      // rounds do: ranks open epochs until none holds a mirror back.
      dist::Inbox& inbox = inbox_for<Op>();
      std::vector<Id> held;
      auto put = [&](Id v) {
        if (!inbox.put(comm_.owner(v), v, &target[v])) {
          held.push_back(v);
          return;
        }
        ++updates_sent_;
        sent(program, v);
      };
      auto epoch = [&](auto sends) {
        inbox.open();
        sends();
        inbox.close();
        inbox_staged_peak_ = std::max(inbox_staged_peak_, inbox.staged_bytes());
        inbox.take([&](uint64_t v, const void* x) {
          Value value;
          std::memcpy(&value, x, sizeof(Value));
          take(static_cast<Id>(v), value);
        });
      };
      epoch([&] { body(put, [] {}); });
      while (across_ranks(MaxOp<uint64_t>{}, held.size()) > 0) {
        updates_held_ += held.size();
        const std::vector<Id> waiting = std::move(held);
        held.clear();
        epoch([&] {
          for (Id v : waiting) put(v);
        });
      }
      comm_.note_buffer(
          inbox_staged_peak_);  // push_in_slices also notes it with what else it holds
    }
    return arrived;
  }

  // The changed mirrors as (vertex, value) records through MPI_Alltoallv; returns the masters
  // newly changed here.
  template <typename Program>
  std::vector<Id> send_collectively(const Program& program,
                                    const std::vector<std::vector<Id>>& changed) {
    struct Update {
      Id v;
      typename Program::Op::Value x;
    };
    const auto target = program.target();
    std::vector<Id> arrived;
    // Rounds of at most `stride` bytes of records per peer, until no rank has more: the
    // exchange's memory stays within its bound however many updates a pass makes.
    // The buffer holds what this pass sends its busiest peer, or the bound's share if less, so
    // a pass of few updates holds few bytes (the report's peak is what was needed).
    const auto ranks = static_cast<size_t>(comm_.size());
    std::vector<size_t> counts(ranks), from;
    for (const auto& changes : changed)
      for (Id v : changes)
        if (!local_.owns(v)) ++counts[static_cast<size_t>(comm_.owner(v))];
    const size_t busiest = std::max<size_t>(1, *std::max_element(counts.begin(), counts.end()));
    const size_t per_peer =
        std::clamp<size_t>(dist_.exchange_bytes / 2 / ranks / sizeof(Update), 1, busiest);
    const size_t stride = per_peer * sizeof(Update);
    if (send_capacity_ < stride * ranks) {
      send_buffer_.reset(
          new std::byte[stride * ranks]);  // not zeroed: only what is packed is touched
      send_capacity_ = stride * ranks;
    }
    size_t list = 0, at = 0;  // where packing goes on in the next round
    for (bool any_more = true; any_more;) {
      std::fill(counts.begin(), counts.end(), 0);
      bool more = false;
      while (list < changed.size()) {
        const auto& changes = changed[list];
        for (; at < changes.size(); ++at) {
          const Id v = changes[at];
          if (local_.owns(v)) continue;
          const auto r = static_cast<size_t>(comm_.owner(v));
          if (counts[r] + sizeof(Update) > stride) {
            more = true;  // that peer's share of this round is full
            break;
          }
          const Update u{v, target[v]};
          std::memcpy(send_buffer_.get() + r * stride + counts[r], &u, sizeof(Update));
          ++updates_sent_;
          counts[r] += sizeof(Update);
          sent(program, v);
        }
        if (more) break;  // the next round goes on from `at`
        ++list;
        at = 0;
      }
      const auto received =
          comm_.exchange(send_buffer_.get(), stride, counts, more, any_more, from);
      for (size_t k = 0; k + sizeof(Update) <= received.size(); k += sizeof(Update)) {
        Update u;
        std::memcpy(&u, received.data() + k, sizeof(Update));
        if (local_.receive(program, u.v, u.x)) arrived.push_back(u.v);
      }
    }
    return arrived;
  }

  static constexpr size_t kRingRecordBytes = 16;  // a vertex id and a value, padded
  static constexpr size_t kTaskRecordBytes = 16;  // a vertex id and its source value, padded

  // The inbox for updates combined with Op (made on first use, by every rank in the same pass).
  template <typename Op>
  dist::Inbox& inbox_for() {
    using T = typename Op::Value;
    static_assert(dist::MpiValue<T>,
                  "the accumulate exchange carries 4- and 8-byte integers and doubles");
    constexpr mpi::ReduceOp op = dist::MpiReduce<Op>::kOp;
    constexpr mpi::Scalar scalar = dist::MpiScalar<T>::kValue;
    for (auto& [key, inbox] : inboxes_)
      if (key.op == op && key.scalar == scalar) return *inbox;
    const T identity = Op::identity();
    auto inbox =
        std::make_unique<dist::Inbox>(comm_, sizeof(T), scalar, op, &identity, one_sided_bytes());
    auto& made = inboxes_.emplace_back(InboxKey{op, scalar}, std::move(inbox));
    return *made.second;
  }
  struct InboxKey {
    mpi::ReduceOp op;
    mpi::Scalar scalar;
  };

  mpi::Comm& comm_;
  Local local_;
  DistOptions dist_;
  std::unique_ptr<dist::Rings> rings_;
  dist::RingCounters rings_at_reset_;
  std::unique_ptr<std::byte[]> send_buffer_;  // per peer a stride of packed records
  size_t send_capacity_ = 0;
  std::vector<std::pair<InboxKey, std::unique_ptr<dist::Inbox>>> inboxes_;
  uint64_t inbox_staged_peak_ = 0;  // the most values an inbox epoch staged, in bytes
  std::deque<ArrayInfo> arrays_;
  mpi::CommCounters between_edge_passes_;
  bool in_pass_ = false;
  std::vector<std::byte> shipped_;  // source values shipped for pull passes, reused
  uint64_t forest_copy_peak_ = 0, forest_hooks_peak_ = 0;  // what merge_forest held (exchange_held)
  std::vector<RankPassStats> passes_;
  uint64_t updates_sent_ = 0, updates_sent_early_ = 0, slices_stolen_ = 0, updates_held_ = 0,
           sources_readied_ = 0;  // in the edge pass under way
  std::unique_ptr<dist::TaskBoard> board_;
  uint64_t push_passes_ = 0;       // sliced push passes so far: the task board's pass numbers
  std::vector<std::byte> stolen_;  // a stolen slice's records
};

static_assert(GraphEngine<DistEngine<uint32_t, NoWeight>>);
static_assert(GraphEngine<DistEngine<uint64_t, double>>);

}  // namespace tg
