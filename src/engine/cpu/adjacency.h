// How the engine reaches edges: a vertex's out-edges (push) or in-edges (pull) across the block
// grid, a vertex's r-th edge and the edges after its first k (Afforest's links), and vertex
// chunks balanced on edges. This is the seam the block store (engine part 3) replaces; nothing
// above it knows about blocks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "graph/graph_view.h"
#include "util/parallel.h"

namespace tg {

template <typename Id, typename W>
class Adjacency {
 public:
  using Graph = GraphView<Id, W>;
  explicit Adjacency(const Graph& g) : Adjacency(g, g.grid(Grid::kOut), g.grid(Grid::kIn)) {}
  // Over other decoders of the same blocks (a store's leases), each grid in storage order.
  Adjacency(const Graph& g, const BlockDecoder* out, const BlockDecoder* in)
      : g_(g), p_(g.blocks_per_side()), out_(out), in_(in) {
    // A 1x1 grid of a graph with 65,536 or more arcs and vertices is plain CSR with 32-bit
    // offsets and full-width ids (its column starts at vertex 0): the hot loops then read the
    // arrays directly, as they would an in-memory CSR, with no per-vertex encoding switch.
    auto flat = [](const BlockDecoder& d, Flat& to) {
      if (d.dcsr() || d.offset_bytes != 4 || d.id_bytes != sizeof(Id) || d.minor_first != 0)
        return false;
      to.offsets = reinterpret_cast<const uint32_t*>(d.directory);
      to.ids = reinterpret_cast<const Id*>(d.neighbours);
      if constexpr (!std::is_same_v<W, NoWeight>)
        to.weights = reinterpret_cast<const W*>(d.weights);
      return true;
    };
    flat_ = p_ == 1 && flat(out_block(0, 0), out_flat_) && flat(in_block(0, 0), in_flat_);
  }

  uint32_t range_of(uint64_t v) const { return g_.range_of(v); }

  // Calls f(neighbor, weight) for the out-edges of u (and its in-edges when kBoth is set),
  // through a copy of f (see scan_flat).
  template <bool kBoth, typename F>
  void for_out(uint64_t u, F&& f) const {
    if (flat_) {
      scan_flat(out_flat_, u, f);
      if constexpr (kBoth) {
        if (g_.directed()) scan_flat(in_flat_, u, f);
      }
      return;
    }
    for_out_blocks<kBoth>(u, f);
  }

  // Calls f(neighbor, weight) for the in-edges of v (and its out-edges when kBoth is set) until
  // f returns true (saturated); returns the number of edges read.
  template <bool kBoth, typename F>
  uint64_t for_in_until(uint64_t v, F&& f) const {
    uint64_t examined = 0;
    if (flat_) {
      if (scan_flat_until(in_flat_, v, f, examined)) return examined;
      if constexpr (kBoth) {
        if (g_.directed()) scan_flat_until(out_flat_, v, f, examined);
      }
      return examined;
    }
    return for_in_until_blocks<kBoth>(v, f);
  }

  // The Combine-combination of message(neighbour, weight) over v's in-edges (and its out-edges
  // when kBoth is set), counting them into `examined`: gather_then's pull. The sum is built and
  // returned by value, where for_in_until's function holds it by reference, which kept it (and
  // the function's captures) in memory between vertices.
  template <bool kBoth, typename Combine, typename Message>
  typename Combine::Value combine_in(uint64_t v, const Message& message, uint64_t& examined) const {
    if (flat_) {
      auto acc = combine_flat<Combine>(in_flat_, v, message, examined);
      if constexpr (kBoth) {
        if (g_.directed())
          acc = Combine::combine(acc, combine_flat<Combine>(out_flat_, v, message, examined));
      }
      return acc;
    }
    typename Combine::Value acc = Combine::identity();
    auto take = [&](Id u, W w) {
      acc = Combine::combine(acc, message(u, w));
      return false;
    };
    examined += for_in_until_blocks<kBoth>(v, take);
    return acc;
  }

  // Calls f(neighbor) for u's out-edge number r (from 0, across its row), if it has one.
  template <typename F>
  void for_out_arc(uint64_t u, uint32_t r, F&& f) const {
    for_out_range(u, r, uint64_t{r} + 1, f);
  }
  // Calls f(neighbor) for the out-edges of u after its first `skip` (those for_out_arc gave for
  // r below skip), and for all its in-edges too when `in` is set.
  template <typename F>
  void for_arcs_after(uint64_t u, uint32_t skip, bool in, F&& f) const {
    for_out_range(u, skip, UINT64_MAX, f);
    if (!in) return;
    for_in_until<false>(u, [&](Id v, W) {
      f(v);
      return false;  // every in-arc
    });
  }

  // Vertex chunks of [first, end) (first a multiple of 64; chunks of whole 64-vertex words, so
  // a chunk owns whole bitmap words) of about equal cost, 32 per thread, for dynamically
  // scheduled pull passes.
  template <typename Cost>
  std::vector<uint64_t> balanced_chunks(Cost cost, uint64_t first, uint64_t end) const {
    const uint64_t words = (end - first + 63) / 64;
    std::vector<uint64_t> word_cost(words + 1, 0);
#pragma omp parallel for
    for (uint64_t w = 0; w < words; ++w) {
      uint64_t c = 0;
      for (uint64_t v = first + w * 64; v < std::min(end, first + w * 64 + 64); ++v)
        c += cost(v) + 1;
      word_cost[w + 1] = c;
    }
    for (uint64_t w = 0; w < words; ++w) word_cost[w + 1] += word_cost[w];
    const uint64_t total = word_cost.back();
    const uint64_t count = static_cast<uint64_t>(max_threads()) * 32;
    std::vector<uint64_t> chunks{first};
    for (uint64_t t = 1; t < count; ++t) {
      const uint64_t target = total * t / count;
      const uint64_t w = static_cast<uint64_t>(
          std::lower_bound(word_cost.begin(), word_cost.end(), target) - word_cost.begin());
      const uint64_t v = std::min(end, first + w * 64);
      if (v > chunks.back() && v < end) chunks.push_back(v);
    }
    chunks.push_back(end);
    return chunks;
  }

 private:
  const BlockDecoder& out_block(uint32_t i, uint32_t j) const { return out_[uint64_t{i} * p_ + j]; }
  const BlockDecoder& in_block(uint32_t i, uint32_t j) const { return in_[uint64_t{j} * p_ + i]; }

  // f(neighbor) for u's out-edges [from, to), counted from its first across its row.
  template <typename F>
  void for_out_range(uint64_t u, uint64_t from, uint64_t to, F& f) const {
    if (flat_) {
      const uint64_t begin = out_flat_.offsets[u], degree = out_flat_.offsets[u + 1] - begin;
      for (uint64_t k = std::min(from, degree); k < std::min(to, degree); ++k)
        f(out_flat_.ids[begin + k]);
      return;
    }
    auto take = [&](Id v, W) { f(v); };
    const uint32_t i = p_ == 1 ? 0 : range_of(u);
    uint64_t seen = 0;  // u's out-edges in the blocks before this one
    for (uint32_t j = 0; j < p_ && seen < to; ++j) {
      const auto& b = out_block(i, j);
      uint64_t begin, end;
      b.arcs_of(u, begin, end);
      const uint64_t lo = std::max(seen, from), hi = std::min(seen + (end - begin), to);
      if (lo < hi) for_arcs<Id, W>(b, begin + (lo - seen), begin + (hi - seen), take);
      seen += end - begin;
    }
  }

  // The general paths, out of line, so that what the passes inline for a flat 1x1 file is only
  // its two-load loop.
  template <bool kBoth, typename F>
  [[gnu::noinline]] void for_out_blocks(uint64_t u, const F& f) const {
    F call = f;  // as scan_flat does: its captures stay in registers across the atomics
    const uint32_t i = p_ == 1 ? 0 : range_of(u);
    for (uint32_t j = 0; j < p_; ++j) scan(out_block(i, j), u, call);
    if constexpr (kBoth) {
      if (g_.directed())
        for (uint32_t j = 0; j < p_; ++j) scan(in_block(j, i), u, call);
    }
  }
  template <bool kBoth, typename F>
  [[gnu::noinline]] uint64_t for_in_until_blocks(uint64_t v, F& f) const {
    uint64_t examined = 0;
    const uint32_t j = p_ == 1 ? 0 : range_of(v);
    for (uint32_t i = 0; i < p_; ++i)
      if (scan_until(in_block(i, j), v, f, examined)) return examined;
    if constexpr (kBoth) {
      if (g_.directed())
        for (uint32_t i = 0; i < p_; ++i)
          if (scan_until(out_block(j, i), v, f, examined)) return examined;
    }
    return examined;
  }

  struct Flat {
    const uint32_t* offsets = nullptr;
    const Id* ids = nullptr;
    const W* weights = nullptr;
  };
  static W weight_at(const Flat& b, uint64_t k) {
    if constexpr (std::is_same_v<W, NoWeight>) {
      return {};
    } else {
      return b.weights[k];
    }
  }
  // The arrays and the function are read through locals: a function that combines atomically
  // (push) is a barrier to the compiler, which otherwise reloaded the arrays' pointers and every
  // captured value from memory after each edge, a dozen instructions around the one random load.
  // So f is called as a copy: it must keep no state of its own (push's lambda keeps none).
  template <typename F>
  static void scan_flat(const Flat& b, uint64_t u, const F& f) {
    const Flat local = b;
    F call = f;
    const uint32_t end = local.offsets[u + 1];
    for (uint32_t k = local.offsets[u]; k < end; ++k) call(local.ids[k], weight_at(local, k));
  }
  template <typename Combine, typename Message>
  static typename Combine::Value combine_flat(const Flat& b, uint64_t v, const Message& message,
                                              uint64_t& examined) {
    const uint32_t begin = b.offsets[v], end = b.offsets[v + 1];
    typename Combine::Value acc = Combine::identity();
    for (uint32_t k = begin; k < end; ++k)
      acc = Combine::combine(acc, message(b.ids[k], weight_at(b, k)));
    examined += end - begin;
    return acc;
  }
  template <typename F>
  static bool scan_flat_until(const Flat& b, uint64_t v, F& f, uint64_t& examined) {
    const uint32_t begin = b.offsets[v], end = b.offsets[v + 1];
    for (uint32_t k = begin; k < end; ++k) {
      if (f(b.ids[k], weight_at(b, k))) {
        examined += k - begin + 1;
        return true;
      }
    }
    examined += end - begin;
    return false;
  }
  template <typename F>
  static void scan(const BlockDecoder& b, uint64_t u, F& f) {
    uint64_t begin, end;
    b.arcs_of(u, begin, end);
    for_arcs<Id, W>(b, begin, end, f);
  }
  template <typename F>
  static bool scan_until(const BlockDecoder& b, uint64_t v, F& f, uint64_t& examined) {
    uint64_t begin, end;
    b.arcs_of(v, begin, end);
    bool stopped = false;
    examined += for_arcs<Id, W>(b, begin, end, f, stopped);
    return stopped;
  }

  const Graph& g_;
  uint32_t p_ = 1;
  const BlockDecoder* out_;
  const BlockDecoder* in_;
  bool flat_ = false;
  Flat out_flat_, in_flat_;
};

}  // namespace tg
