// The MPI engine's vertex side, as its base: the vertex arrays a rank hands out and keeps
// consistent with the other ranks' (replicas.h: whole where the algorithm reads any vertex,
// merged where it combined into other ranks' vertices), the sets of a rank's members with
// job-wide counts, vertex passes over its masters (reductions combined across ranks in rank
// order), Afforest's links over a rank's masters' arcs, and delta-stepping's bins, whose lowest
// live bin is agreed by every rank. The engine (dist_engine.h) adds the edge passes; each call
// here is made by every rank alike.
#pragma once

#include <cstring>
#include <mutex>
#include <span>
#include <vector>

#include "engine/combine.h"
#include "engine/cpu/engine.h"
#include "engine/mpi/replicas.h"
#include "mpi/comm.h"

namespace tg::dist {

template <typename Id, typename W>
class RankVertices {
 public:
  using Local = Engine<Id, W>;
  using Graph = GraphView<Id, W>;
  using Set = Frontier<Id>;

  RankVertices(const Graph& graph, EngineOptions options, mpi::Comm& comm)
      : comm_(comm), local_(graph, restricted(std::move(options), comm)), replicas_(comm, local_) {}

  const Graph& graph() const { return local_.graph(); }
  uint64_t num_vertices() const { return local_.num_vertices(); }
  uint64_t num_arcs() const { return local_.num_arcs(); }
  uint64_t out_degree(uint64_t v) const { return local_.out_degree(v); }

  // ---- vertex state ------------------------------------------------------------------------

  class [[nodiscard]] Scope {
   public:
    explicit Scope(RankVertices& e) : inner_(e.local_), e_(e), mark_(e.replicas_.mark()) {}
    ~Scope() { e_.replicas_.forget_to(mark_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    typename Local::Scope inner_;
    RankVertices& e_;
    size_t mark_;
  };
  Scope scope() { return Scope(*this); }

  template <typename T>
  VertexArray<T> vertex_array(T init) {
    return replicas_.known(local_.vertex_array(init));
  }
  template <typename F>
  auto vertex_array_from(F f) {
    auto a = replicas_.known(local_.vertex_array_from(f));
    comm_.allgather_slices(a.data(), sizeof(*a.data()));
    return a;
  }
  template <typename T>
  VertexArray<T> copy(VertexArray<T> from) {
    if (!replicas_.info_of(from).whole.load(std::memory_order_relaxed))
      return vertex_array_from([=](Id v) { return from[v]; });
    auto a =
        replicas_.known(local_.vertex_array(T{}));  // every rank holds all of `from`: copy it here
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
    replicas_.forget(a);
    auto values = local_.collect(a);
    if (comm_.rank() != 0) values.clear();
    return values;
  }
  template <typename T, typename Map>
  auto collect(VertexArray<T> a, Map map) {
    auto values = local_.collect(a, map);  // each rank maps its masters
    replicas_.forget(a);
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
    if (!replicas_.in_pass() || local_.owns(v)) return local_.combine_at(op, a, v, x);
    ArrayInfo& info = replicas_.template merge_after_pass<Op>(a);
    if (!local_.combine_at(op, a, v, x)) return false;
    const std::lock_guard lock(info.remote_mutex);  // rare: most combines improve nothing
    info.remote_combined.push_back(v);
    return true;
  }
  Id root(VertexArray<Id> parent, Id v) {
    replicas_.keep_whole(parent);
    return local_.root(parent, v);
  }
  void compress(VertexArray<Id> parent) {
    replicas_.keep_whole(parent);
    // Halving also shortens this rank's replica of other ranks' paths (each pointer moves to an
    // ancestor: the same roots), which the gather after the pass replaces with their owners'.
    for_each([&](Id v) { parent.store(v, local_.root_halving(parent, v)); });
  }
  void link(VertexArray<Id> parent, Id u, Id v) {
    // Each rank's forest is valid; so is their minimum, and merge_forest keeps every rank's links.
    ArrayInfo& info = replicas_.template merge_after_pass<MinOp<Id>>(parent);
    if (!info.forest.load(std::memory_order_relaxed))
      info.forest.store(true, std::memory_order_relaxed);
    local_.link(parent, u, v);
  }
  template <typename T>
  T most_frequent(VertexArray<T> a, int samples) {
    replicas_.keep_whole(a);
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
  // Afforest's links (sample_pass, arc_pass): a rank's over its masters' arcs, into its replica of
  // the forest, which the sync after the pass merges keeping every rank's links.
  template <typename F>
  void sample_pass(uint32_t r, F f) {
    pass([&] { local_.sample_pass(r, f); });
  }
  template <typename F>
  void arc_pass(const Set& set, uint32_t skip, F f) {
    pass([&] { local_.arc_pass(set, skip, f); });
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

 protected:
  using ArrayInfo = typename dist::Replicas<Local>::ArrayInfo;

  // Runs a vertex pass on this rank's masters, then brings the arrays kept whole up to date.
  template <typename F>
  void pass(F run) {
    replicas_.run_in_pass(run);
    replicas_.sync();
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

  // Gives a set the job-wide counts (it holds this rank's members, and their counts).
  void count_globally(Set& s) {
    const auto total =
        across_ranks(SumOp<Pair<uint64_t>>{}, Pair<uint64_t>{s.size(), s.out_edges()});
    s.set_counts(total.first, total.second);
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

  mpi::Comm& comm_;
  Local local_;
  Replicas<Local> replicas_;  // the vertex arrays' standing across ranks
};

}  // namespace tg::dist
