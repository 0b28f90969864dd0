// The accumulate exchange (GraCXL's remote atomics, `--exchange accumulate`): each rank exposes an
// MPI window holding, for each of its masters, a combined value and an "arrived" bit. In a push
// pass, every other rank combines its changed mirrors straight into the owners' windows with
// MPI_Accumulate (the combine operator as MPI_MIN / MPI_MAX / MPI_SUM / MPI_BOR; concurrent
// updates from several ranks to one vertex are combined by MPI, atomically) and sets the vertex's
// bit (MPI_BOR on its word). No buffers are packed or exchanged; between two fences (active
// target: the owners take part, so no progress thread is needed) the owner then takes each
// arrived vertex's value, resets it to the operator's identity, and combines it into the target
// as if it had been pushed locally, which is where it decides whether the vertex changed.
//
// What the exchange's memory bound covers: the values a rank's puts send, which MPI may read until
// the epoch closes, are staged in a buffer of a fixed size (its share of --exchange-memory); a
// put that finds it full is refused, and the caller sends that update in a later epoch. The bits
// need no staging (one constant word per bit position). The window is not a buffer of traffic:
// like a vertex array it holds a value and a bit per master however little is sent, and is
// reported and planned as such (window_bytes).
//
// Why an inbox and not the target array itself: MPI's atomicity covers only MPI's own
// accumulates, not the CPU atomics the owner's threads use on its targets, and a remote
// fetch-and-op per update to learn whether it changed anything would cost a round trip each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "mpi/comm.h"
#include "mpi/window.h"

namespace tg::dist {

class Inbox {
 public:
  // Values of `value_bytes` bytes, of MPI type `scalar`, combined with `op`, starting (and reset
  // to) `identity`; an epoch stages at most `staging_bytes` of them (at least one value).
  Inbox(mpi::Comm& comm, size_t value_bytes, mpi::Scalar scalar, mpi::ReduceOp op,
        const void* identity, uint64_t staging_bytes);
  ~Inbox();
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  // Opens the epoch (collective).
  void open();
  // Combines x into master v of rank `owner` and marks v arrived (between open and close); false,
  // and nothing sent, when this epoch's staging is full.
  bool put(int owner, uint64_t v, const void* x);
  // Closes the epoch (collective): every rank's puts have landed.
  void close();
  // f(v, value) for each of this rank's masters that something arrived for, in vertex order;
  // the value is reset to the identity and the bit cleared.
  template <typename F>
  void take(F f) {
    const uint64_t first = comm_.first(comm_.rank()), words = word_count();
    for (uint64_t w = 0; w < words; ++w) {
      uint64_t bits = arrived_[w];
      if (!bits) continue;
      arrived_[w] = 0;
      for (; bits; bits &= bits - 1) {
        const uint64_t v = first + w * 64 + static_cast<uint64_t>(__builtin_ctzll(bits));
        std::byte* value = values_ + (v - first) * value_bytes_;
        f(v, static_cast<const void*>(value));
        reset(value);
      }
    }
  }
  size_t window_bytes() const;  // what the window holds on this rank: a value and a bit per master
  uint64_t staged_bytes() const {
    return staged_ * value_bytes_;
  }  // this epoch's (until the next open)

 private:
  uint64_t word_count() const;
  void reset(std::byte* value) const;
  mpi::Comm& comm_;
  size_t value_bytes_;
  mpi::Scalar scalar_;
  mpi::ReduceOp op_;
  std::unique_ptr<std::byte[]> identity_;
  std::unique_ptr<mpi::Window> window_;
  uint64_t* arrived_ = nullptr;  // this rank's bits, then its values, in the window
  std::byte* values_ = nullptr;
  uint64_t capacity_ = 1;                 // values an epoch stages
  std::unique_ptr<std::byte[]> staging_;  // this epoch's values, alive until it closes
  uint64_t staged_ = 0;
};

}  // namespace tg::dist
