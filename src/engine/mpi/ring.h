// The ring exchange (Nezha's protocol, `--exchange ring`): every rank exposes one MPI window
// holding, for each peer that sends to it, a ring of fixed-size slots, and for each peer it sends
// to, a "clear" count that the peer advances. A sender stages records per peer and, when a batch
// is full (or the pass ends), writes it into the next free slot of its ring at the receiver with
// one-sided operations: the payload with MPI_Put, a flush, then the slot's header word (sequence
// number, record count, flags) with an atomic MPI_Accumulate(MPI_REPLACE), and a flush. The
// header goes last because a ring slot written in one piece was seen torn on shared memory
// (PLATFORM.md): a receiver that sees the header's sequence number sees the whole payload.
//
// Nothing is overwritten unread: a sender counts the slots it wrote, the receiver publishes how
// many it has consumed into the sender's clear word (after each 40% of the ring, on a hurried
// batch, and at the pass's end), and a sender whose ring is full consumes its own incoming
// batches while it waits for the clear count to move. Congestion: when a sender's ring at a
// receiver is fuller than the hurried threshold, its batches carry a hurried flag; a receiver
// that sees one publishes its clear count at once and from then on drains its rings after every
// batch it sends itself (otherwise after every few).
//
// Passive target (MPI_Win_lock_all for the window's life): no rank waits on another's fence,
// batches travel while their receivers compute. A rank reads its own headers and clear words
// with atomic loads after MPI_Win_sync where the window is unified (else MPI_Fetch_and_op with
// MPI_NO_OP), and calls MPI's progress engine while it polls: on transports without a progress
// thread (TCP, UCX's emulated one-sided operations) batches land only then.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "mpi/comm.h"
#include "mpi/window.h"

namespace tg::dist {

struct RingOptions {
  uint32_t batch_records = 128;       // records per batch (fewer when the memory bound asks)
  double hurried = 0.8;               // a batch is hurried when its ring is fuller than this
  uint64_t memory_bytes = 64u << 20;  // the window plus the staging batches, per rank
  uint32_t max_slots = 64;            // slots per ring, at most
};

// What the rings did since they were made (a pass's share is the difference).
struct RingCounters {
  uint64_t batches = 0;     // sent
  uint64_t hurried = 0;     // batches sent with the hurried flag
  uint64_t full_waits = 0;  // times a sender found its ring full (all slots unread) and waited
  uint64_t clears = 0;      // clear counts published
};

class Rings {
 public:
  // Records of at most `max_record_bytes`. The window is made here (collective).
  Rings(mpi::Comm& comm, size_t max_record_bytes, RingOptions options);
  ~Rings();
  Rings(const Rings&) = delete;
  Rings& operator=(const Rings&) = delete;

  using Deliver = std::function<void(const std::byte* records, size_t count)>;
  // Starts a pass's exchange of records of `record_bytes`; `deliver` gets each batch that arrives
  // here, on this thread, inside add() and finish().
  void begin(size_t record_bytes, Deliver deliver);
  // Stages a record for `peer`; a full batch is sent.
  void add(int peer, const void* record);
  // Sends every staged batch, the last to each peer marked as the end, and delivers until each
  // peer's end has arrived. Returns when this rank has everything sent to it in this pass.
  void finish();
  // Delivers every batch that has arrived so far (between add()s: a sender that pauses to
  // compute takes in what came meanwhile, and frees its peers' slots).
  void take_arrived() { drain(); }

  uint32_t slots() const { return slots_; }
  uint32_t batch_records() const { return batch_records_; }
  size_t bytes() const;  // the window and the staging batches on this rank
  const RingCounters& counters() const { return counters_; }

 private:
  struct Peer {
    std::vector<std::byte> staged;  // this pass's records not yet sent
    size_t staged_count = 0;
    uint64_t sent = 0;         // slots written into this peer's ring for this rank (all passes)
    uint64_t known_clear = 0;  // how many of them the peer said it consumed
    uint64_t consumed = 0;     // slots of this rank's ring for the peer consumed here
    uint64_t published = 0;    // the consumed count the peer was last told
    bool ended = false;        // this pass's end from the peer has arrived
  };
  uint64_t slot_bytes() const;
  // Where sender's ring starts in receiver's window (every rank's window has the same layout).
  uint64_t ring_at(int receiver, int sender) const;
  void send_batch(int peer, bool end);
  void wait_for_slot(int peer);
  // Delivers every batch that has arrived; true if any did.
  bool drain();
  void publish(int peer);
  uint64_t read_local(uint64_t displacement);

  mpi::Comm& comm_;
  RingOptions options_;
  size_t max_record_bytes_;
  uint32_t batch_records_ = 0, slots_ = 0;
  size_t record_bytes_ = 0;
  Deliver deliver_;
  std::unique_ptr<mpi::Window> window_;
  bool unified_ = false;  // MPI_WIN_UNIFIED: this rank may read its own window with plain loads
  std::byte* base_ = nullptr;
  std::vector<Peer> peers_;
  uint32_t batches_since_drain_ = 0;
  bool eager_ = false;  // a hurried batch arrived in this pass: drain after every send
  RingCounters counters_;
};

}  // namespace tg::dist
