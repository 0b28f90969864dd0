// The standing of every vertex array across MPI ranks (engine/mpi/dist_engine.h says the rules):
// which arrays are kept whole on every rank, which a vertex pass combined into or linked into on
// other ranks' vertices, and the syncs that bring the replicas level after a vertex pass (a
// gather of the slices that changed, a merge with the combine operator, a forest merge that
// keeps every rank's links). Every branch that ends in a collective is decided on job-wide flags.
#pragma once

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "engine/mpi/ops.h"
#include "engine/vertex_array.h"
#include "mpi/comm.h"

namespace tg::dist {

// Local: the rank's shared-memory engine (its link is the forest merge's).
template <typename Local>
class Replicas {
 public:
  using Id = typename Local::VertexId;

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

  Replicas(mpi::Comm& comm, const Local& local) : comm_(comm), local_(local) {}

  // Scopes: the arrays made after mark() are forgotten by forget_to(mark).
  size_t mark() const { return arrays_.size(); }
  void forget_to(size_t mark) {
    while (arrays_.size() > mark) arrays_.pop_back();
  }
  bool in_pass() const { return in_pass_; }
  // What merge_forest held at most: a forest's copy, and every rank's replaced hooks.
  uint64_t forest_copy_peak() const { return forest_copy_peak_; }
  uint64_t forest_hooks_peak() const { return forest_hooks_peak_; }

  template <typename T>
  VertexArray<T> known(VertexArray<T> a) {
    ArrayInfo& info = arrays_.emplace_back();
    info.data = a.data();
    info.value_bytes = sizeof(T);
    info.count = a.size();
    if constexpr (MpiValue<T>) info.scalar = MpiScalar<T>::kValue;
    info.mergeable = MpiValue<T>;
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
    if constexpr (!MpiReduce<Op>::kIdempotent)
      throw std::logic_error(
          "a vertex pass combined with a non-idempotent operator into another rank's vertex");
    constexpr mpi::ReduceOp m = MpiReduce<Op>::kOp;
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
  void sync() {
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

 private:
  // The hash of this rank's slice of an array (its masters' values).
  uint64_t slice_hash(const ArrayInfo& info) const {
    const auto* bytes = static_cast<const unsigned char*>(info.data);
    return XXH3_64bits(bytes + comm_.first(comm_.rank()) * info.value_bytes,
                       (comm_.end(comm_.rank()) - comm_.first(comm_.rank())) * info.value_bytes);
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
    T* values = const_cast<T*>(static_cast<const T*>(info.data));
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

  // Merges a forest the ranks linked into their own replicas (WCC's Afforest links) without
  // losing a link. The pointer-wise minimum is a forest, but where two ranks hooked one root
  // differently it keeps one hook, and the tree the other joined falls away (after WCC's last
  // links nothing would join it again: a wrong answer). So each rank lists its hooks that the
  // minimum replaced, as (its parent of v, v), and every rank links all of them, rank by rank,
  // into the merged forest: the same links in the same order, so the replicas stay equal.
  void merge_forest(ArrayInfo& info) {
    auto parent =
        VertexArray<Id>::over(const_cast<Id*>(static_cast<const Id*>(info.data)), 0, info.count);
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

  mpi::Comm& comm_;
  const Local& local_;
  std::deque<ArrayInfo> arrays_;
  bool in_pass_ = false;
  uint64_t forest_copy_peak_ = 0, forest_hooks_peak_ = 0;
};

}  // namespace tg::dist
