#include "engine/mpi/ring.h"

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
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

// A slot's header word: sequence number (low 32 bits: the slots written before it plus one, so a
// stale or empty slot never matches), record count, and two flags.
constexpr uint64_t kHurried = uint64_t{1} << 62, kEnd = uint64_t{1} << 63;
constexpr uint64_t kCountMask = (uint64_t{1} << 30) - 1;
constexpr uint32_t kMaxBatch = 1u << 20;
// Without a hurried batch, a sender drains its own rings after every this many batches it sends.
constexpr uint32_t kDrainEvery = 4;
// A receiver publishes its clear count after consuming this share of a ring.
constexpr double kPublishShare = 0.4;

uint64_t header(uint64_t seq, uint64_t count, bool hurried, bool end) {
  return (seq & 0xffffffffu) | (count << 32) | (hurried ? kHurried : 0) | (end ? kEnd : 0);
}
uint64_t round8(uint64_t b) { return (b + 7) / 8 * 8; }

}  // namespace

namespace {
// Lets MPI make progress: on transports without a progress thread (TCP, UCX's emulated
// one-sided operations) batches put into this rank's window arrive only while it calls into
// MPI's progress engine, and a read of its own window need not (the self transport answers it
// at once: a ring polled only so never saw its batches arrive).
void progress() {
  int flag = 0;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, mpi::compute(), &flag, MPI_STATUS_IGNORE),
        "MPI_Iprobe");
}
}  // namespace

// The window of every rank: one clear word per rank (what that rank consumed of this rank's ring
// there), then one ring per other rank, in rank order.
Rings::Rings(mpi::Comm& comm, size_t max_record_bytes, RingOptions options)
    : comm_(comm), options_(options), max_record_bytes_(max_record_bytes) {
  const auto p = static_cast<uint64_t>(comm.size());
  peers_.resize(p);
  if (!(options.hurried > 0 && options.hurried <= 1))
    fail("the ring's hurried threshold must be in (0, 1], got {}", options.hurried);
  // Slots and batch within the memory bound: the window (clear words and p - 1 rings) plus a
  // staging batch per peer.
  uint64_t batch = std::clamp<uint64_t>(options.batch_records, 1, kMaxBatch);
  uint64_t slots = options.max_slots;
  if (p > 1) {
    const uint64_t per_peer =
        options.memory_bytes > 8 * p ? (options.memory_bytes - 8 * p) / (p - 1) : 0;
    const auto fits = [&](uint64_t b) {
      return per_peer > b * max_record_bytes
                 ? (per_peer - b * max_record_bytes) / (8 + round8(b * max_record_bytes))
                 : 0;
    };
    slots = std::min<uint64_t>(options.max_slots, fits(batch));
    if (slots < 2) {
      batch = per_peer > 16 ? (per_peer - 16) / (3 * max_record_bytes) : 0;
      while (batch > 0 && fits(batch) < 2) --batch;
      slots = 2;
    }
    if (batch < 1) {
      fail("the ring exchange needs at least {} bytes per rank for {} ranks, not {}",
           8 * p + (p - 1) * (16 + 3 * max_record_bytes), p, options.memory_bytes);
    }
  }
  batch_records_ = static_cast<uint32_t>(batch);
  slots_ = static_cast<uint32_t>(std::max<uint64_t>(slots, 2));
  const uint64_t window_bytes = 8 * p + (p - 1) * slots_ * slot_bytes();
  window_ = std::make_unique<mpi::Window>(mpi::compute(), window_bytes, "the ring exchange");
  base_ = window_->base();
  std::memset(base_, 0, window_bytes);  // no slot's header matches before it is written
  unified_ = window_->unified();
  window_->lock_all();
  check(MPI_Win_sync(window_->handle()), "MPI_Win_sync");
  check(MPI_Barrier(mpi::compute()), "MPI_Barrier");  // every window is zeroed before anyone writes
  for (auto& peer : peers_) peer.staged.resize(batch_records_ * max_record_bytes_);
  comm_.note_buffer(bytes());
}

Rings::~Rings() = default;  // the window unlocks and frees itself (mpi/window.h)

uint64_t Rings::slot_bytes() const {
  return 8 + round8(uint64_t{batch_records_} * max_record_bytes_);
}

uint64_t Rings::ring_at(int receiver, int sender) const {
  const auto index = static_cast<uint64_t>(sender < receiver ? sender : sender - 1);
  return 8 * static_cast<uint64_t>(comm_.size()) + index * slots_ * slot_bytes();
}

size_t Rings::bytes() const {
  const auto p = static_cast<uint64_t>(comm_.size());
  return 8 * p + (p - 1) * (slots_ * slot_bytes() + uint64_t{batch_records_} * max_record_bytes_);
}

void Rings::begin(size_t record_bytes, Deliver deliver) {
  if (record_bytes == 0 || record_bytes > max_record_bytes_)
    fail("a ring record of {} bytes (at most {})", record_bytes, max_record_bytes_);
  record_bytes_ = record_bytes;
  deliver_ = std::move(deliver);
  eager_ = false;
  batches_since_drain_ = 0;
  for (auto& peer : peers_) {
    peer.staged_count = 0;
    peer.ended = false;
  }
}

void Rings::add(int peer, const void* record) {
  Peer& to = peers_[static_cast<size_t>(peer)];
  std::memcpy(to.staged.data() + to.staged_count * record_bytes_, record, record_bytes_);
  if (++to.staged_count < batch_records_) return;
  send_batch(peer, false);
  if (eager_ || ++batches_since_drain_ >= kDrainEvery) {
    batches_since_drain_ = 0;
    drain();
  }
}

void Rings::finish() {
  const int me = comm_.rank(), p = comm_.size();
  for (int r = 0; r < p; ++r)
    if (r != me) send_batch(r, true);
  // Everything this rank sends is out; what is left is waiting for the slowest sender.
  Timer waiting;
  double delivering = 0;
  for (;;) {
    bool all = true;
    for (int r = 0; r < p; ++r) all = all && (r == me || peers_[static_cast<size_t>(r)].ended);
    if (all) break;
    Timer t;
    if (drain())
      delivering += t.seconds();  // drain() also lets MPI make progress
    else
      sched_yield();  // ranks may share cores: let a sender run
  }
  comm_.add({.wait_seconds = std::max(0.0, waiting.seconds() - delivering)});
}

uint64_t Rings::read_local(uint64_t displacement) {
  if (unified_) {
    // The unified model: what others put here is in this memory once it is complete, and a
    // window sync orders the read after it; the header or clear word is read atomically.
    check(MPI_Win_sync(window_->handle()), "MPI_Win_sync");
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(base_ + displacement))
        .load(std::memory_order_acquire);
  }
  uint64_t value = 0;
  const int me = comm_.rank();
  check(MPI_Fetch_and_op(nullptr, &value, MPI_UINT64_T, me, static_cast<MPI_Aint>(displacement),
                         MPI_NO_OP, window_->handle()),
        "MPI_Fetch_and_op");
  check(MPI_Win_flush(me, window_->handle()), "MPI_Win_flush");
  return value;
}

void Rings::wait_for_slot(int peer) {
  Peer& to = peers_[static_cast<size_t>(peer)];
  if (to.sent - to.known_clear < slots_) return;
  to.known_clear = read_local(8 * static_cast<uint64_t>(peer));  // what the peer said since
  if (to.sent - to.known_clear < slots_) return;
  ++counters_.full_waits;
  Timer waiting;
  double delivering = 0;
  for (;;) {
    to.known_clear = read_local(8 * static_cast<uint64_t>(peer));
    if (to.sent - to.known_clear < slots_) break;
    // The receiver may itself be waiting on this rank's ring: take in what it sent meanwhile.
    Timer t;
    if (drain())
      delivering += t.seconds();  // drain() also lets MPI make progress
    else
      sched_yield();
  }
  comm_.add({.wait_seconds = std::max(0.0, waiting.seconds() - delivering)});
}

void Rings::send_batch(int peer, bool end) {
  wait_for_slot(peer);
  Peer& to = peers_[static_cast<size_t>(peer)];
  Timer t;
  const uint64_t threshold = static_cast<uint64_t>(std::ceil(options_.hurried * slots_));
  if (to.sent + 1 - to.known_clear > threshold)
    to.known_clear = read_local(8 * static_cast<uint64_t>(peer));
  const bool hurried = to.sent + 1 - to.known_clear > threshold;
  const uint64_t slot = to.sent % slots_;
  const uint64_t at = ring_at(peer, comm_.rank()) + slot * slot_bytes();
  const uint64_t payload = to.staged_count * record_bytes_;
  if (payload > 0) {
    check(MPI_Put(to.staged.data(), static_cast<int>(payload), MPI_BYTE, peer,
                  static_cast<MPI_Aint>(at + 8), static_cast<int>(payload), MPI_BYTE,
                  window_->handle()),
          "MPI_Put");
    check(MPI_Win_flush(peer, window_->handle()),
          "MPI_Win_flush");  // the payload lands before its header
  }
  const uint64_t word = header(to.sent + 1, to.staged_count, hurried, end);
  check(MPI_Accumulate(&word, 1, MPI_UINT64_T, peer, static_cast<MPI_Aint>(at), 1, MPI_UINT64_T,
                       MPI_REPLACE, window_->handle()),
        "MPI_Accumulate");
  check(MPI_Win_flush(peer, window_->handle()), "MPI_Win_flush");
  ++to.sent;
  to.staged_count = 0;
  ++counters_.batches;
  if (hurried) ++counters_.hurried;
  comm_.add({.bytes_sent = payload + 8, .messages = 1, .communication_seconds = t.seconds()});
}

bool Rings::drain() {
  const int me = comm_.rank(), p = comm_.size();
  const auto publish_every =
      static_cast<uint64_t>(std::max(1.0, std::ceil(kPublishShare * slots_)));
  progress();
  bool any = false;
  for (int r = 0; r < p; ++r) {
    if (r == me) continue;
    Peer& from = peers_[static_cast<size_t>(r)];
    const uint64_t ring = ring_at(me, r);
    while (!from.ended) {
      const uint64_t at = ring + (from.consumed % slots_) * slot_bytes();
      const uint64_t word = read_local(at);
      if ((word & 0xffffffffu) != ((from.consumed + 1) & 0xffffffffu)) break;
      check(MPI_Win_sync(window_->handle()), "MPI_Win_sync");  // the payload, put before the header
      any = true;
      if (deliver_) deliver_(base_ + at + 8, (word >> 32) & kCountMask);
      ++from.consumed;
      const bool hurried = word & kHurried;
      if (word & kEnd) from.ended = true;
      if (hurried) eager_ = true;
      if (hurried || from.ended || from.consumed - from.published >= publish_every) publish(r);
    }
  }
  return any;
}

void Rings::publish(int peer) {
  Peer& from = peers_[static_cast<size_t>(peer)];
  const uint64_t consumed = from.consumed;
  Timer t;
  check(MPI_Accumulate(&consumed, 1, MPI_UINT64_T, peer,
                       static_cast<MPI_Aint>(8 * static_cast<uint64_t>(comm_.rank())), 1,
                       MPI_UINT64_T, MPI_REPLACE, window_->handle()),
        "MPI_Accumulate");
  check(MPI_Win_flush(peer, window_->handle()), "MPI_Win_flush");
  from.published = consumed;
  ++counters_.clears;
  comm_.add({.bytes_sent = 8, .messages = 1, .communication_seconds = t.seconds()});
}

}  // namespace tg::dist
