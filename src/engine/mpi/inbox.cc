#include "engine/mpi/inbox.h"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>

#include "mpi/communicators.h"
#include "mpi/mpi_runtime.h"
#include "mpi/types.h"
#include "mpi/window.h"
#include "util/error.h"
#include "util/timer.h"

namespace tg::dist {

namespace {

using mpi::check;

}  // namespace

// The window of rank r: its masters' bits (whole words), then their values.
static uint64_t words_of(const mpi::Comm& comm, int r) {
  return (comm.end(r) - comm.first(r) + 63) / 64;
}

Inbox::Inbox(mpi::Comm& comm, size_t value_bytes, mpi::Scalar scalar, mpi::ReduceOp op,
             const void* identity, uint64_t staging_bytes)
    : comm_(comm),
      value_bytes_(value_bytes),
      scalar_(scalar),
      op_(op),
      identity_(new std::byte[value_bytes]),
      capacity_(std::max<uint64_t>(1, staging_bytes / std::max<size_t>(1, value_bytes))),
      staging_(new std::byte[capacity_ * value_bytes]) {  // not zeroed: pages are touched only as
                                                          // values are staged
  if (value_bytes > 8)
    fail("the accumulate exchange carries values of at most 8 bytes, not {}", value_bytes);
  std::memcpy(identity_.get(), identity, value_bytes);
  const uint64_t masters = comm.end(comm.rank()) - comm.first(comm.rank());
  window_ = std::make_unique<mpi::Window>(mpi::compute(), std::max<uint64_t>(window_bytes(), 8),
                                          "the accumulate exchange");
  arrived_ = reinterpret_cast<uint64_t*>(window_->base());
  values_ = reinterpret_cast<std::byte*>(arrived_ + word_count());
  std::fill(arrived_, arrived_ + word_count(), uint64_t{0});
  for (uint64_t k = 0; k < masters; ++k) reset(values_ + k * value_bytes_);
}

Inbox::~Inbox() = default;  // the window frees itself (mpi/window.h)

uint64_t Inbox::word_count() const { return words_of(comm_, comm_.rank()); }

size_t Inbox::window_bytes() const {
  return word_count() * 8 + (comm_.end(comm_.rank()) - comm_.first(comm_.rank())) * value_bytes_;
}

void Inbox::reset(std::byte* value) const { std::memcpy(value, identity_.get(), value_bytes_); }

void Inbox::open() {
  Timer t;
  check(MPI_Win_fence(MPI_MODE_NOPRECEDE, window_->handle()), "MPI_Win_fence");
  comm_.add({.wait_seconds = t.seconds()});  // returns when the slowest rank arrives
  staged_ = 0;
}

// The word each bit position ORs into an arrived word: constant origin buffers that MPI may read
// until the epoch closes, so bits need no staging.
static constexpr std::array<uint64_t, 64> kBits = [] {
  std::array<uint64_t, 64> bits{};
  for (unsigned k = 0; k < 64; ++k) bits[k] = uint64_t{1} << k;
  return bits;
}();

bool Inbox::put(int owner, uint64_t v, const void* x) {
  if (staged_ == capacity_) return false;
  // MPI may read what it sends until the epoch closes: the value is kept in the staging buffer.
  std::byte* value = staging_.get() + staged_++ * value_bytes_;
  std::memcpy(value, x, value_bytes_);
  const uint64_t local = v - comm_.first(owner);
  const auto bit_at = static_cast<MPI_Aint>((local / 64) * 8);
  const auto value_at = static_cast<MPI_Aint>(words_of(comm_, owner) * 8 + local * value_bytes_);
  check(MPI_Accumulate(value, 1, mpi::datatype_of(scalar_), owner, value_at, 1,
                       mpi::datatype_of(scalar_), mpi::op_of(op_), window_->handle()),
        "MPI_Accumulate");
  check(MPI_Accumulate(&kBits[local & 63], 1, MPI_UINT64_T, owner, bit_at, 1, MPI_UINT64_T, MPI_BOR,
                       window_->handle()),
        "MPI_Accumulate");
  comm_.add({.bytes_sent = value_bytes_ + 8, .messages = 2});
  return true;
}

void Inbox::close() {
  Timer t;
  check(MPI_Win_fence(MPI_MODE_NOSUCCEED, window_->handle()), "MPI_Win_fence");
  comm_.add({.communication_seconds = t.seconds()});
}

}  // namespace tg::dist
