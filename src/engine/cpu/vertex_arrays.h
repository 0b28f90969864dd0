// The CPU engine's vertex side, as the engine's base: the vertex passes and sets it inherits
// (vertex_passes.h) and the vertex arrays it hands out, with what a vertex function does to one
// (set, update, combine_at, the forest's root and link), collect, and scopes that free arrays.
// The engine (engine.h) adds the edges.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "engine/cpu/vertex_passes.h"
#include "engine/cpu/vertex_state.h"
#include "engine/forest.h"
#include "engine/sampled_mode.h"
#include "engine/vertex_array.h"
#include "graph/graph_view.h"

namespace tg {

template <typename Id, typename W>
class VertexArrays : public VertexPasses<Id, W> {
 public:
  using Passes = VertexPasses<Id, W>;

  VertexArrays(const GraphView<Id, W>& graph, uint64_t first, uint64_t end, int threads,
               uint64_t serial_work)
      : Passes(graph, first, end, threads, serial_work), state_(graph.num_vertices()) {}

  // Frees, when it goes out of scope, every vertex array made after it was taken.
  class [[nodiscard]] Scope {
   public:
    explicit Scope(VertexArrays& e) : state_(e.state_), mark_(e.state_.mark()) {}
    ~Scope() { state_.free_to(mark_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    VertexState& state_;
    size_t mark_;
  };
  Scope scope() { return Scope(*this); }

  // A value per vertex, every one `init`.
  template <typename T>
  VertexArray<T> vertex_array(T init) {
    return state_.allocate<T>(init);
  }
  // A value per vertex, f(v) for each.
  template <typename F>
  auto vertex_array_from(F f) {
    auto a = state_.allocate<std::invoke_result_t<F, Id>>({});
    this->for_each([&](Id v) { a[v] = f(v); });
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
    std::vector<std::invoke_result_t<Map, T>> out(a.size());
    state_.add_result(out.size() * sizeof(out[0]));     // beside the arrays still held
    this->for_each([&](Id v) { out[v] = map(a[v]); });  // the masters: other ranks map their own
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
    this->for_each([&](Id v) { parent.store(v, root_halving(parent, v)); });
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

  // The vertex state and the results collect handed out since reset_held_bytes, at their peak
  // together (a kernel's state_bytes promises this): a result moved out of an array adds
  // nothing, a mapped one adds its bytes while the arrays still held count.
  uint64_t peak_held_bytes() const { return state_.peak_held_bytes(); }
  void reset_held_bytes() { state_.reset_held(); }
  uint64_t vertex_bytes() const { return state_.bytes(); }  // vertex state held now
  uint64_t peak_vertex_bytes() const { return state_.peak_bytes(); }
  // A pass's working memory, held as vertex state (VertexState::hold).
  void hold_bytes(uint64_t bytes) { state_.hold(bytes); }
  void release_bytes(uint64_t bytes) { state_.release(bytes); }

 private:
  VertexState state_;
};

}  // namespace tg
