#include "engine/mpi/steal.h"

#include <mpi.h>

#include <cstdint>
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

// The header's words, then the bounds (max_slices + 1 words), then the records.
constexpr MPI_Aint kPass = 0, kCount = 1, kNext = 2, kHeaderWords = 3;
// Where word w is in the window (displacements are in bytes).
constexpr MPI_Aint at_word(MPI_Aint w) { return 8 * w; }

}  // namespace

TaskBoard::TaskBoard(mpi::Comm& comm, size_t record_bytes, uint64_t max_records,
                     uint32_t max_slices)
    : comm_(comm),
      record_bytes_(record_bytes),
      max_records_(max_records),
      max_slices_(max_slices),
      window_(std::make_unique<mpi::Window>(mpi::compute(), bytes(), "the task board")) {
  base_ = reinterpret_cast<uint64_t*>(window_->base());
  std::memset(base_, 0, records_at());
  base_[kPass] = ~uint64_t{0};  // no pass published yet
  window_->lock_all();
  check(MPI_Win_sync(window_->handle()), "MPI_Win_sync");
  check(MPI_Barrier(mpi::compute()), "MPI_Barrier");  // every header is set before anyone reads one
  comm_.note_buffer(bytes());
}

TaskBoard::~TaskBoard() = default;  // the window unlocks and frees itself (mpi/window.h)

uint64_t TaskBoard::records_at() const { return 8 * (kHeaderWords + max_slices_ + 1); }
uint64_t TaskBoard::records_fitting(uint64_t bytes, size_t record_bytes, uint32_t max_slices) {
  const uint64_t header = 8 * (kHeaderWords + uint64_t{max_slices} + 1);
  return bytes > header ? (bytes - header) / record_bytes : 0;
}
size_t TaskBoard::bytes() const { return records_at() + max_records_ * record_bytes_; }

std::byte* TaskBoard::records() const { return reinterpret_cast<std::byte*>(base_) + records_at(); }

void TaskBoard::publish(uint64_t pass, std::span<const size_t> bounds) {
  const uint64_t count = bounds.empty() ? 0 : bounds.size() - 1;
  if (count > max_slices_ || (count > 0 && bounds.back() > max_records_)) {
    fail("a task board of {} slices and {} records was given {} slices of {} records", max_slices_,
         max_records_, count, bounds.empty() ? 0 : bounds.back());
  }
  // Nobody reads these until the pass number below says they are this pass's (see steal.h).
  for (size_t k = 0; k < bounds.size(); ++k) base_[kHeaderWords + k] = bounds[k];
  base_[kCount] = count;
  base_[kNext] = 0;
  count_ = count;
  check(MPI_Win_sync(window_->handle()), "MPI_Win_sync");
  const int me = comm_.rank();
  check(MPI_Accumulate(&pass, 1, MPI_UINT64_T, me, at_word(kPass), 1, MPI_UINT64_T, MPI_REPLACE,
                       window_->handle()),
        "MPI_Accumulate");
  check(MPI_Win_flush(me, window_->handle()), "MPI_Win_flush");
}

int64_t TaskBoard::take_own() {
  if (count_ == 0) return -1;
  const uint64_t one = 1;
  uint64_t taken = 0;
  const int me = comm_.rank();
  check(
      MPI_Fetch_and_op(&one, &taken, MPI_UINT64_T, me, at_word(kNext), MPI_SUM, window_->handle()),
      "MPI_Fetch_and_op");
  check(MPI_Win_flush(me, window_->handle()), "MPI_Win_flush");
  return taken < count_ ? static_cast<int64_t>(taken) : -1;
}

size_t TaskBoard::steal(uint64_t pass, std::vector<std::byte>& records) {
  const int me = comm_.rank(), p = comm_.size();
  Timer t;
  uint64_t bytes_read = 0, messages = 0;
  size_t got = 0;
  for (;;) {
    // The peer with the most slices left in this pass.
    int victim = -1;
    uint64_t most = 0, victim_count = 0;
    for (int r = 0; r < p; ++r) {
      if (r == me) continue;
      uint64_t header[kHeaderWords];
      check(MPI_Get_accumulate(nullptr, 0, MPI_UINT64_T, header, kHeaderWords, MPI_UINT64_T, r, 0,
                               kHeaderWords, MPI_UINT64_T, MPI_NO_OP, window_->handle()),
            "MPI_Get_accumulate");
      check(MPI_Win_flush(r, window_->handle()), "MPI_Win_flush");
      bytes_read += sizeof(header);
      ++messages;
      if (header[kPass] != pass || header[kNext] >= header[kCount]) continue;
      if (header[kCount] - header[kNext] > most) {
        most = header[kCount] - header[kNext];
        victim = r;
        victim_count = header[kCount];
      }
    }
    if (victim < 0) break;
    const uint64_t one = 1;
    uint64_t slice = 0;
    check(MPI_Fetch_and_op(&one, &slice, MPI_UINT64_T, victim, at_word(kNext), MPI_SUM,
                           window_->handle()),
          "MPI_Fetch_and_op");
    check(MPI_Win_flush(victim, window_->handle()), "MPI_Win_flush");
    ++messages;
    if (slice >= victim_count)
      continue;  // its owner or another thief took the last one first: look again
    uint64_t bounds[2];
    check(MPI_Get(bounds, 2, MPI_UINT64_T, victim,
                  at_word(kHeaderWords + static_cast<MPI_Aint>(slice)), 2, MPI_UINT64_T,
                  window_->handle()),
          "MPI_Get");
    check(MPI_Win_flush(victim, window_->handle()), "MPI_Win_flush");
    got = bounds[1] - bounds[0];
    if (got * record_bytes_ > static_cast<uint64_t>(INT32_MAX))
      fail("a stolen slice of {} records is too large for one MPI_Get", got);
    records.resize(got * record_bytes_);
    if (got > 0) {
      check(MPI_Get(records.data(), static_cast<int>(records.size()), MPI_BYTE, victim,
                    static_cast<MPI_Aint>(records_at() + bounds[0] * record_bytes_),
                    static_cast<int>(records.size()), MPI_BYTE, window_->handle()),
            "MPI_Get");
      check(MPI_Win_flush(victim, window_->handle()), "MPI_Win_flush");
    }
    bytes_read += sizeof(bounds) + records.size();
    messages += 2;
    ++stolen_;
    if (got > 0) break;
  }
  // What a thief reads counts as what it moved: a one-sided read is a transfer like a send.
  comm_.add({.bytes_sent = bytes_read, .messages = messages, .communication_seconds = t.seconds()});
  return got;
}

}  // namespace tg::dist
