// The device engine's vertex side, as its base: the vertex arrays it hands out (device memory,
// freed by scopes) and what the host does to one entry (set, get, update, combine_at), collect,
// the vertex sets, the vertex passes over them (for_each, reduce, select: Thrust algorithms over
// counting ranges or a set's list), and delta-stepping's bins. The engine (device_engine.h)
// adds the edges.
#pragma once

#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/cuda/device_functors.h"
#include "engine/cuda/device_ops.h"
#include "engine/cuda/device_set.h"
#include "engine/cuda/temporary_cache.h"
#include "engine/sampled_mode.h"
#include "engine/vertex_array.h"
#include "graph/graph_view.h"
#include "util/timer.h"

namespace tg::device {

template <typename Id, typename W, typename Backend>
class DeviceVertices {
 public:
  using Set = DeviceSet<Id, Backend>;
  template <typename T>
  using Vector = typename Backend::template Vector<T>;

  // Copies the out-degrees to the device (ops() and the sets' edge counts read them).
  explicit DeviceVertices(const GraphView<Id, W>& graph) : g_(graph), n_(graph.num_vertices()) {
    Timer timer;
    std::vector<uint64_t> degree(n_ ? n_ : 1, 0);
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < n_; ++v) degree[v] = graph.out_degree(v);
    degree_ = Vector<uint64_t>(degree.begin(), degree.end());
    claimed_ = Vector<uint32_t>(n_ ? n_ : 1, 0);
    Backend::synchronize();
    setup_seconds_ = timer.seconds();
  }

  DeviceOps<Id> ops() const { return {thrust::raw_pointer_cast(degree_.data())}; }
  uint64_t vertex_bytes() const { return vertex_bytes_; }
  uint64_t peak_vertex_bytes() const { return peak_vertex_bytes_; }

  // ---- vertex state ------------------------------------------------------------------------

  class [[nodiscard]] Scope {
   public:
    explicit Scope(DeviceVertices& e) : e_(e), mark_(e.storage_.size()) {}
    ~Scope() {
      while (e_.storage_.size() > mark_) {
        e_.vertex_bytes_ -= e_.storage_.back()->size() * sizeof(uint64_t);
        e_.storage_.pop_back();
      }
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    DeviceVertices& e_;
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

 protected:
  // The list as a set, with its members' out-edges counted.
  Set with_edges(typename Set::List list) const {
    const uint64_t edges = thrust::transform_reduce(
        policy(), list.begin(), list.end(), Degree<Id>{thrust::raw_pointer_cast(degree_.data())},
        uint64_t{0}, thrust::plus<uint64_t>());
    return Set::of(std::move(list), edges);
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

  // How long copying the degrees in took (the engine's copy-in time includes it).
  double setup_seconds() const { return setup_seconds_; }

  const GraphView<Id, W>& g_;
  std::unique_ptr<TemporaryCache<Backend>> cache_ = std::make_unique<TemporaryCache<Backend>>();
  uint64_t n_ = 0;
  Vector<uint64_t> degree_;
  Vector<uint32_t> claimed_;  // a vertex listed once: by an edge pass, or taken from a bin

 private:
  std::vector<std::unique_ptr<Vector<uint64_t>>> storage_;
  uint64_t vertex_bytes_ = 0, peak_vertex_bytes_ = 0;
  double setup_seconds_ = 0;
};

}  // namespace tg::device
