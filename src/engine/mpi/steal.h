// Stealing between ranks (`--steal`, with `--slices`): in a push pass each rank publishes its
// slices on a board, an MPI window holding a header (the pass's number, its slice count, the next
// slice to take), the slices' bounds, and one record per source (the vertex and its source value,
// computed by its owner: a thief's replicas of a vertex's state may be stale). The owner and its
// thieves alike take a slice with an atomic mark, MPI_Fetch_and_op(MPI_SUM, 1) on `next`, so each
// slice is taken once (Nezha's one-sided read plus atomic marking). A rank whose own slices are
// gone reads its peers' headers, marks a slice of the one with the most left, reads the slice's
// records with MPI_Get, and pushes them as if they were its own; the updates they make travel
// like any others. No MPI_Compare_and_swap: the default one-sided path crashes on it
// (PLATFORM.md).
//
// Why the header carries the pass number: a rank may look for work on a peer that has not yet
// published this pass's slices; it sees last pass's number there and moves on. Last pass's slices
// are never taken late: a rank ends a pass only after every peer has sent it everything, which a
// peer does after it stopped stealing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "mpi/comm.h"
#include "mpi/window.h"

namespace tg::dist {

class TaskBoard {
 public:
  // Records of `record_bytes`, at most `max_records` per pass (this rank's masters) in at most
  // `max_slices` slices. The window is made here (collective).
  TaskBoard(mpi::Comm& comm, size_t record_bytes, uint64_t max_records, uint32_t max_slices);
  ~TaskBoard();
  TaskBoard(const TaskBoard&) = delete;
  TaskBoard& operator=(const TaskBoard&) = delete;

  // Where this rank writes its records for the next publish(): max_records() of record_bytes,
  // in its own window (no copy; peers read them only once publish() names the pass).
  std::byte* records() const;
  // Publishes this rank's slices for push pass `pass`, written into records(): slice k is
  // records bounds[k] to bounds[k + 1] (bounds start at 0; its last entry is the record count).
  void publish(uint64_t pass, std::span<const size_t> bounds);
  // The index of the next of this rank's own slices, or -1 when all are taken (some by thieves).
  int64_t take_own();
  // Takes a slice of pass `pass` from the peer with the most left and copies its records into
  // `records`; returns their count, 0 when no peer has a slice left.
  size_t steal(uint64_t pass, std::vector<std::byte>& records);

  uint64_t slices_stolen() const { return stolen_; }  // by this rank, from its peers (all passes)
  size_t bytes() const;                               // the window on this rank
  uint64_t max_records() const { return max_records_; }
  // The records a board of at most `bytes` holds with `max_slices` slices (0: not even one).
  static uint64_t records_fitting(uint64_t bytes, size_t record_bytes, uint32_t max_slices);

 private:
  uint64_t records_at() const;
  mpi::Comm& comm_;
  size_t record_bytes_;
  uint64_t max_records_;
  uint32_t max_slices_;
  uint64_t count_ = 0;  // this rank's slices in the pass it published last
  std::unique_ptr<mpi::Window> window_;
  uint64_t* base_ = nullptr;
  uint64_t stolen_ = 0;
};

}  // namespace tg::dist
