// The set of active vertices, as a sparse list or a dense bitmap (or "every vertex"), converted
// on demand: push wants the list, pull wants the bitmap. The counts (size, out-edges) are global:
// what the direction choice and empty() look at must be the same on every rank, so a distributed
// engine stores the allreduced counts here, never a rank's local share.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "util/parallel.h"

namespace tg {

class Bitmap {
 public:
  Bitmap() = default;
  explicit Bitmap(uint64_t n) : words_((n + 63) / 64, 0) {}
  bool get(uint64_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  void set(uint64_t i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
  // Sets bit i atomically; true if this call set it.
  bool set_atomic(uint64_t i) {
    const uint64_t bit = uint64_t{1} << (i & 63);
    std::atomic_ref<uint64_t> w(words_[i >> 6]);
    if (w.load(std::memory_order_relaxed) & bit) return false;
    return (w.fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
  }
  void clear(uint64_t i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  // Clears bit i while other threads may touch other bits of the same word.
  void clear_atomic(uint64_t i) {
    std::atomic_ref<uint64_t>(words_[i >> 6])
        .fetch_and(~(uint64_t{1} << (i & 63)), std::memory_order_relaxed);
  }
  void reset() { std::fill(words_.begin(), words_.end(), 0); }
  uint64_t word(uint64_t w) const { return words_[w]; }
  uint64_t words() const { return words_.size(); }
  uint64_t* data() { return words_.data(); }

 private:
  std::vector<uint64_t> words_;
};

template <typename Id>
class Frontier {
 public:
  enum class Kind { kSparse, kDense, kAll };

  // Every vertex; as a list, only [first, end) (a rank's masters: what it pushes from).
  static Frontier all(uint64_t n, uint64_t arcs, uint64_t first = 0, uint64_t end = UINT64_MAX) {
    Frontier f(n);
    f.kind_ = Kind::kAll;
    f.first_ = std::min(first, n);
    f.end_ = std::min(end, n);
    f.size_ = n;
    f.out_edges_ = arcs;
    return f;
  }
  static Frontier sparse(uint64_t n, std::vector<Id> list, uint64_t out_edges) {
    Frontier f(n);
    f.kind_ = Kind::kSparse;
    f.size_ = list.size();
    f.list_ = std::move(list);
    f.out_edges_ = out_edges;
    return f;
  }
  static Frontier dense(uint64_t n, Bitmap&& bits, uint64_t size, uint64_t out_edges) {
    Frontier f(n);
    f.kind_ = Kind::kDense;
    f.bits_ = std::move(bits);
    f.size_ = size;
    f.out_edges_ = out_edges;
    return f;
  }

  Kind kind() const { return kind_; }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint64_t out_edges() const { return out_edges_; }  // sum of out-degrees of the members
  // Replaces the counts by the job's (a distributed engine's list holds its rank's share).
  void set_counts(uint64_t size, uint64_t out_edges) {
    size_ = size;
    out_edges_ = out_edges;
  }
  // Out-edges of all earlier frontiers of this traversal, and whether the pass that made this
  // frontier pulled: what the engine's direction choice looks at.
  uint64_t explored_edges() const { return explored_edges_; }
  bool came_from_pull() const { return came_from_pull_; }
  uint64_t previous_size() const { return previous_size_; }  // size of the frontier before
  void set_history(uint64_t explored_edges, bool came_from_pull, uint64_t previous_size) {
    explored_edges_ = explored_edges;
    came_from_pull_ = came_from_pull;
    previous_size_ = previous_size;
  }

  // The members as a list (built from the bitmap on first use).
  const std::vector<Id>& list() const {
    if (kind_ == Kind::kSparse || have_list_) return list_;
    list_.clear();
    if (kind_ == Kind::kAll) {
      list_.resize(end_ - first_);
#pragma omp parallel for
      for (uint64_t v = first_; v < end_; ++v) list_[v - first_] = static_cast<Id>(v);
    } else {
      const uint64_t words = bits_.words();
      const int threads = max_threads();
      std::vector<std::vector<Id>> parts(threads);
#pragma omp parallel num_threads(threads)
      {
        OwnList<Id> own(parts[omp_get_thread_num()]);  // alone on its cache lines
        auto& mine = own.list();
#pragma omp for schedule(static)
        for (uint64_t w = 0; w < words; ++w) {
          for (uint64_t bits = bits_.word(w); bits; bits &= bits - 1) {
            mine.push_back(static_cast<Id>(w * 64 + static_cast<uint64_t>(__builtin_ctzll(bits))));
          }
        }
      }
      list_ = concatenate(parts);
    }
    have_list_ = true;
    return list_;
  }

  // The membership bitmap (nullptr for "every vertex"); valid after prepare_dense().
  const Bitmap* membership() const { return kind_ == Kind::kAll ? nullptr : &bits_; }
  // Membership test for pull; valid after prepare_dense().
  bool contains(uint64_t v) const { return kind_ == Kind::kAll || bits_.get(v); }
  void prepare_dense() const {
    if (kind_ != Kind::kSparse || have_bits_) return;
    bits_ = Bitmap(n_);
    bits_from_list_ = true;
    if (list_.size() > 4096) {
      // Several list members may share a bitmap word.
#pragma omp parallel for schedule(static)
      for (size_t k = 0; k < list_.size(); ++k) bits_.set_atomic(list_[k]);
    } else {
      for (Id v : list_) bits_.set(v);
    }
    have_bits_ = true;
    kind_ = Kind::kDense;
    have_list_ = true;
  }
  // Frees the bitmap prepare_dense() built from a list (n bits however few the members): an edge
  // pass builds it for itself and drops it at its end, so a set an algorithm keeps (BC's levels,
  // thousands of them on a road graph) holds only its list. A set made dense keeps its bitmap.
  void drop_dense() const {
    if (!bits_from_list_) return;
    bits_ = Bitmap();
    have_bits_ = bits_from_list_ = false;
    kind_ = Kind::kSparse;
  }

 private:
  explicit Frontier(uint64_t n) : n_(n) {}
  // The list and the bitmap are caches of one set, filled on first use (hence mutable).
  mutable Kind kind_ = Kind::kSparse;
  uint64_t n_ = 0, size_ = 0, out_edges_ = 0, explored_edges_ = 0, previous_size_ = 0;
  uint64_t first_ = 0, end_ = 0;  // kAll: the range list() holds
  bool came_from_pull_ = false;
  mutable std::vector<Id> list_;
  mutable Bitmap bits_;
  mutable bool have_list_ = false, have_bits_ = false, bits_from_list_ = false;
};

}  // namespace tg
