// The copying store: reads each planned block of the graph file into a bounded pool of buffers on
// background I/O threads, with up to `depth` requests in flight, through a Transfer: by default
// pread with an injected delay and, if asked, out-of-order completion (PreadTransfer); O_DIRECT
// through io_uring for the disk tier (UringTransfer). It is the shape every fetching tier has
// (disk, far-memory rank, device): buffers that are recycled, a start/complete pair per request,
// validation on arrival. And it checks the engine: a buffer whose last lease is released is made
// unreadable (mprotect PROT_NONE) and a held one read-only, so reading a block the engine does
// not hold, or writing into one, faults instead of passing silently. Buffers may be smaller than
// the largest block: such blocks are leased in pieces (block_pieces.h) that each fit one.
// copying_store.cc holds the pool, the I/O threads and the leases; copying_store_reads.cc plans
// which byte ranges a lease reads (whole, or a sparse pass's selected entries and arcs).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/block_pieces.h"
#include "store/block_selection.h"
#include "store/block_store.h"
#include "store/pread_transfer.h"
#include "store/transfer.h"

namespace tg {

struct CopyingStoreOptions {
  uint32_t buffers = 8;       // the pool: at most this many blocks held or in flight
  uint64_t buffer_bytes = 0;  // bytes a buffer holds (its mapping is rounded up to 4 KiB); 0: the
                              // largest block's. A larger block is leased in pieces.
  uint32_t depth = 4;         // requests in flight at most (bounded by the pool too)
  uint32_t io_threads = 1;    // threads completing requests (the store's own, outside the engine's)
  // The default transfer's (pread) behaviour:
  double delay_seconds = 0;  // injected latency of every request
  using Completion = PreadTransfer::Completion;
  Completion completion = Completion::kInOrder;
  bool with_weights = false;  // fetch the weights part (an unweighted pass reads the prefix only)
  bool check_hashes = true;   // verify each fetched part's XXH3 (structure is always checked)
  bool protect = true;        // mprotect released buffers PROT_NONE and held ones read-only
  uint64_t seed = 1;          // for kShuffled
};

class CopyingStore final : public BlockStore {
 public:
  // transfer: how bytes move (null: pread with options' delay and completion order).
  CopyingStore(std::shared_ptr<const GraphFile> file, CopyingStoreOptions options,
               std::unique_ptr<Transfer> transfer = nullptr);
  ~CopyingStore() override;
  CopyingStore(const CopyingStore&) = delete;
  CopyingStore& operator=(const CopyingStore&) = delete;

  std::string name() const override;  // the transfer's: "copying", "file"
  const Transfer& transfer() const { return *transfer_; }
  bool zero_copy() const override { return false; }
  bool holds_weights() const override { return options_.with_weights; }
  uint64_t capacity_blocks() const override { return options_.buffers; }
  // The buffers, and the bookkeeping of the selections in flight.
  uint64_t pool_bytes() const override {
    return pool_bytes_for(options_.buffers, options_.depth, piece_bytes_, transfer_->alignment());
  }
  uint64_t buffer_bytes() const { return buffer_bytes_; }  // a buffer's mapping (whole pages)
  // The mapping a buffer filled with at most piece_bytes needs, for a transfer of this alignment.
  static uint64_t mapping_bytes(uint64_t piece_bytes, uint64_t alignment);
  // What a pool of `buffers` such buffers holds, `depth` selections in flight included (what a
  // planner sizes a pool by before the store exists). A selection's bookkeeping (its runs, the
  // groups they are read in, where each landed) is limited to an eighth of a buffer.
  static uint64_t pool_bytes_for(uint32_t buffers, uint32_t depth, uint64_t piece_bytes,
                                 uint64_t alignment) {
    return uint64_t{buffers} * mapping_bytes(piece_bytes, alignment) +
           uint64_t{depth} * (piece_bytes / 8);
  }
  uint64_t piece_bytes() const { return piece_bytes_; }  // the most a buffer is filled with
  std::span<const BlockPiece> pieces(const BlockId& block) const override;
  // A selection pays when its two steps, bounded from above, move at most half the bytes of
  // what it replaces (the block, or the piece of a block leased in pieces; the second step costs
  // a round trip more) and fit one buffer. Each lease reads at most selection_runs_per_lease()
  // runs: each run may be a read of its own in either step, two with weights or DCSR vertices.
  uint64_t selection_leases(const BlockId& block, std::span<const EntryRun> runs,
                            uint64_t arcs_bound,
                            uint32_t piece = PlannedBlock::kWhole) const override;
  // The most runs one selection lease reads (its bookkeeping and its transfer's reads bound it).
  uint64_t selection_runs_per_lease() const;
  // Blocks leased in pieces (larger than a buffer), over both grids.
  uint64_t blocks_in_pieces() const { return blocks_in_pieces_; }

  void begin_pass(std::vector<PlannedBlock> plan) override;
  uint64_t arrival(uint64_t k) const override;
  bool wait_any(std::span<const uint64_t> entries, double timeout = kForever) override;
  const BlockDecoder& acquire(uint64_t k) override;
  void release(uint64_t k) override;
  void cancel_pass() override;
  void end_pass() override;
  StoreCounters counters() const override;

  // The last pass's plan entries in the order they arrived, and in the order they were first
  // acquired (what the tests compare).
  std::vector<uint64_t> arrival_log() const;
  std::vector<uint64_t> acquire_log() const;

 private:
  enum State : int { kWaiting = 0, kReady = 1, kFailed = 2 };
  struct Entry {
    PlannedBlock planned;
    std::atomic<int> state{kWaiting};
    std::atomic<uint64_t> arrival{kNotArrived};
    std::atomic<uint32_t> remaining{0};
    std::atomic<bool> acquired{false};
    int buffer = -1;
    BlockDecoder decoder;
    std::string error;
    double started = 0;             // when its request started
    uint64_t bytes = 0;             // a whole block's bytes (from data)
    unsigned char* data = nullptr;  // a whole block's first byte in its buffer
    PieceParts parts;               // a piece's parts in its buffer
    // A selection is fetched in two steps (block_selection.h): step 1 reads the entries of its
    // groups (at_first: offsets, at_second: DCSR vertices), step 2 the arcs of its arc groups
    // (at_first: neighbours, at_second: weights), or the whole block when that turns out no
    // larger (then partial is false).
    int step = 0;          // 0: one request; 1 or 2: the step under way
    bool partial = false;  // arrived as a selection
    uint64_t moved = 0;    // bytes its requests moved
    std::vector<RunGroup> groups;
    std::vector<const unsigned char*> at_first, at_second;
    std::vector<EntryRun> arcs;  // each run's arcs in the block (after step 1)
    uint64_t header = 0;         // the gathered header's bytes, at the buffer's start
  };

  void io_loop();
  std::vector<ReadRange> plan_reads(Entry& e, unsigned char* buffer);
  std::vector<ReadRange> plan_unselected(Entry& e,
                                         unsigned char* buffer);      // the block or piece itself
  uint64_t unselected_bytes(const BlockId& b, uint32_t piece) const;  // what that reads
  void read_whole_instead(const Entry& e) const;  // refuses it for a lease of a split selection
  std::vector<ReadRange> plan_selection_arcs(Entry& e, unsigned char* buffer);  // after step 1
  void start_reads(Entry& e, uint64_t k, std::vector<ReadRange> reads);         // holds mutex_
  SelectionWidths selection_widths_of(const BlockId& b) const;
  uint64_t max_selection_runs() const { return piece_bytes_ / 512; }  // see pool_bytes_for
  uint64_t header_place(uint64_t header) const;  // where a selection's reads start, past its header
  uint64_t merge_gap_bytes() const;
  void settle(Entry& e);  // checks what arrived; sets decoder or error
  void finish(Entry& e, uint64_t k);
  void fail_everything(const std::string& why);
  uint64_t fetch_bytes(const BlockId& b) const;
  uint64_t piece_slot(const BlockId& b) const;  // the block's position in pieces_of_
  void cut_pieces();
  void protect(int buffer, int prot) const;
  [[noreturn]] void fail_entry(const Entry& e) const;

  std::shared_ptr<const GraphFile> file_;
  CopyingStoreOptions options_;
  std::unique_ptr<Transfer> transfer_;
  uint64_t buffer_bytes_ = 0;        // a buffer's mapping
  uint64_t piece_bytes_ = 0;         // what a buffer is filled with at most (a block or a piece)
  std::vector<BlockPiece> pieces_;   // the pieces of every block larger than a buffer
  std::vector<uint64_t> pieces_of_;  // block slot s's pieces are [pieces_of_[s], pieces_of_[s + 1])
  uint64_t blocks_in_pieces_ = 0;
  std::vector<unsigned char*> buffers_;

  mutable std::mutex mutex_;
  std::condition_variable arrived_;  // workers wait for arrivals
  std::condition_variable io_wake_;  // the I/O thread waits for work or a free buffer
  std::unique_ptr<Entry[]> entries_;
  uint64_t entry_count_ = 0;
  uint64_t next_ = 0;       // next plan entry to request
  uint64_t in_flight_ = 0;  // requests started and not yet arrived
  uint64_t unclaimed_ = 0;  // of those, how many no I/O thread is completing yet
  std::vector<int> free_buffers_;
  uint64_t arrivals_ = 0;
  bool stopping_ = false;
  bool cancelled_ = false;  // this pass was cancelled (a task failed)
  std::vector<uint64_t> arrival_log_, acquire_log_;
  // A block's leases (its pieces) are consecutive in a plan: group_[k] numbers entry k's block in
  // the pass, and counted_ says whether it has been counted as read (bit 0) and as read at least
  // in part as a selection (bit 1), so that each block counts once.
  std::vector<uint64_t> group_;
  std::vector<uint8_t> counted_;
  StoreCounters counters_;
  std::vector<std::thread> io_;
};

}  // namespace tg
