// The CPU engine's vertex-side passes: vertex sets (all, one vertex, a list), passes over them
// (for_each, reduce, select) and the priority bins of delta-stepping. Each runs on the engine's
// team over its masters [first, end), on one thread when the work is small: waking the team
// costs more than a road graph's thousands of tiny levels.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/cpu/bins.h"
#include "engine/cpu/frontier.h"
#include "graph/graph_view.h"
#include "util/parallel.h"

namespace tg {

template <typename Id, typename W>
class VertexPasses {
 public:
  using Graph = GraphView<Id, W>;
  using Set = Frontier<Id>;

  // threads: the team (0: the caller's OpenMP setting); serial_work: the most vertices (or bin
  // entries) a pass runs on one thread.
  VertexPasses(const Graph& graph, uint64_t first, uint64_t end, int threads, uint64_t serial_work)
      : g_(graph), lo_(first), hi_(end), threads_(threads), serial_work_(serial_work) {}

  // Whether v is one of the masters (every vertex, unless EngineOptions::owned says less).
  bool owns(uint64_t v) const { return v >= lo_ && v < hi_; }
  uint64_t first_owned() const { return lo_; }
  uint64_t end_owned() const { return hi_; }

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
    const TeamSize team(threads_);
#pragma omp parallel for schedule(static) if (hi_ - lo_ > serial_work_)
    for (uint64_t v = lo_; v < hi_; ++v) f(static_cast<Id>(v));
  }
  template <typename F>
  void for_each(const Set& set, F f) const {
    const TeamSize team(threads_);
    if (set.kind() == Set::Kind::kAll) return for_each(f);
    const auto& list = set.list();
#pragma omp parallel for schedule(static) if (list.size() > serial_work_)
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
    const TeamSize team(threads_);
    const bool everyone = input.kind() == Set::Kind::kAll;
    const std::vector<Id>* list = everyone ? nullptr : &input.list();
    const uint64_t count = everyone ? hi_ - lo_ : list->size();
    const int threads = count > serial_work_ ? max_threads() : 1;
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

  // ---- priority bins -------------------------------------------------------------------------

  Bins<Id> bins() const {
    const TeamSize team(threads_);
    return Bins<Id>(g_.num_vertices(), max_threads());
  }
  // Puts each member of `set` into bin key(v) (never below the current bin), each thread into
  // bins of its own.
  template <typename Key>
  void to_bins(Bins<Id>& bins, const Set& set, Key key) const {
    const TeamSize team(threads_);
    const auto& list = set.list();
    auto put = [&](std::vector<std::vector<Id>>& mine, Id v) {
      const uint64_t b = std::max<uint64_t>(key(v), bins.current());
      if (b >= mine.size()) mine.resize(b + 1);
      mine[b].push_back(v);
    };
    if (list.size() <= serial_work_) {  // no team for a road graph's thousands of tiny rounds
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
    const TeamSize team(threads_);
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
      const bool small = entries <= serial_work_;  // no team for tiny rounds
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
    const TeamSize team(threads_);
    using Value = typename Op::Value;
    const int threads = count > serial_work_ ? max_threads() : 1;
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

  const Graph& g_;

 protected:
  uint64_t lo_, hi_;  // the masters (the engine's passes read them too)

 private:
  int threads_;
  uint64_t serial_work_;
};

}  // namespace tg
