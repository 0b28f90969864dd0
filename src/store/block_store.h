// The block store: how the engine reaches edge blocks during a block-major pass. Before a pass
// the engine hands the store the pass's plan (which blocks, in the order its tasks will want
// them, and how many tasks use each); the store starts fetching in that order; worker threads
// acquire a planned block as a lease (ready now, or waited for), read it, and release it. A block
// whose last use is released may leave memory. Every tier (memory, NUMA, file, far-memory rank,
// a device) is one implementation of this interface; the engine and the algorithms never know
// which one they run on.
//
// Leases are named by their position in the plan, so acquiring is an array lookup, not a search.
// acquire/try_acquire/release are called from many worker threads at once; begin_pass and
// end_pass from the engine's thread between passes.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "graph/block_decoder.h"
#include "graph/graph_file.h"

namespace tg {

// A block in storage coordinates: the out grid is stored source-major (major = the source range),
// the in grid destination-major (major = the destination range).
struct BlockId {
  Grid grid = Grid::kOut;
  uint32_t major = 0;
  uint32_t minor = 0;
};

// Part of a block, for a store whose buffers are smaller than its largest block: directory
// entries [entry_first, entry_last) and arcs [arc_first, arc_last) of the block, which hold the
// arcs of major vertices [vertex_first, vertex_last) (global ids) that fall in the arc range. A
// vertex with more arcs than a buffer holds is cut between consecutive pieces; the engine's
// programs combine messages, so a vertex's arcs may be read in parts.
struct BlockPiece {
  uint64_t vertex_first = 0, vertex_last = 0;
  uint64_t entry_first = 0, entry_last = 0;
  uint64_t arc_first = 0, arc_last = 0;
};

// Directory entries [first, last) of a block: part of a selection.
struct EntryRun {
  uint64_t first = 0, last = 0;
};

// One entry of a pass's plan: a block (or one of its pieces) and how many tasks will acquire
// (and release) it.
struct PlannedBlock {
  BlockId block;
  uint32_t uses = 1;
  static constexpr uint32_t kWhole = ~uint32_t{0};
  uint32_t piece = kWhole;  // an index into the store's pieces(block), or the whole block
  // A sparse pass's selection: only these directory entries (sorted, disjoint; inside the piece
  // when there is one) and their arcs are read, leased as a block holding just them. Empty: the
  // block (or piece) itself. The runs belong to the engine and stay valid until the pass ends.
  std::span<const EntryRun> selection{};
  // The selection is one of several leases of the block (or piece), each with its own runs: it
  // can never be read whole instead, which would deliver the other leases' vertices twice.
  bool split = false;
};

// What a store did, summed over the passes so far (the engine takes differences per pass).
struct StoreCounters {
  uint64_t blocks = 0;         // blocks read (a block leased in pieces counts once)
  uint64_t pieces = 0;         // pieces of blocks read (leases of part of a block)
  uint64_t leases = 0;         // plan entries read (a block's pieces and selections count each)
  uint64_t bytes = 0;          // bytes moved into local buffers (0 for a zero-copy store)
  uint64_t requests = 0;       // fetch requests issued
  double wait_seconds = 0;     // time worker threads spent waiting for a lease, summed
  double request_seconds = 0;  // time from each request's start to its completion, summed
  uint64_t max_in_flight = 0;  // most requests outstanding at once
  uint64_t partial_blocks =
      0;  // of the blocks read, those fetched (in some piece) as a selection of entries
  uint64_t partial_bytes = 0;  // of the bytes, those the selections moved (both their steps)
};

// One tier's name and what it did (a composite store reports each of its tiers).
struct TierCounters {
  std::string name;
  StoreCounters counters;
};

class BlockStore {
 public:
  virtual ~BlockStore() = default;

  virtual std::string name() const = 0;
  // Zero-copy stores hand out the mapped blocks: every block is resident, always ready.
  virtual bool zero_copy() const = 0;
  // How many leases may be held at once (a vertex-major pass holds every block of the pass).
  virtual uint64_t capacity_blocks() const = 0;
  // Bytes of local memory the store itself holds (its buffer pool; 0 for a zero-copy store).
  virtual uint64_t pool_bytes() const = 0;
  // Whether the blocks it hands out carry their weights part: a store made for passes that read
  // no weights fetches only the prefix before it, and an engine that reads weights refuses it.
  virtual bool holds_weights() const = 0;
  // The pieces a block is leased in, in order (empty: the whole block is one lease). A pass
  // plans a block's pieces in place of the block; only block-major passes read pieces.
  virtual std::span<const BlockPiece> pieces(const BlockId&) const { return {}; }
  // Whether reading only the directory entries `runs` of a block and their arcs (at most
  // `arcs_bound` of them) moves fewer bytes than reading the whole block, or the whole of its
  // piece `piece` when the block is leased in pieces (the runs then lie inside the piece and
  // hold no vertex cut between pieces): what decides a sparse pass's selections. Returns 0 when
  // it does not pay, else in how many leases to read them: the runs cut into that many
  // consecutive parts of equal count (the last one smaller), each planned as its own selection,
  // since one request carries a bounded number of reads. A store that reads blocks in place, or
  // cannot select, says 0.
  virtual uint64_t selection_leases(const BlockId&, std::span<const EntryRun> /*runs*/,
                                    uint64_t /*arcs_bound*/,
                                    uint32_t /*piece*/ = PlannedBlock::kWhole) const {
    return 0;
  }

  // Starts a pass: the blocks it will acquire, in the order its tasks want them.
  virtual void begin_pass(std::vector<PlannedBlock> plan) = 0;
  // When plan entry k's block arrived, as a sequence number (arrival order within the pass), or
  // kNotArrived. A task with several blocks to read takes the earliest arrived first, so a
  // block is processed as soon as it is ready while later ones are in flight.
  static constexpr uint64_t kNotArrived = ~uint64_t{0};
  virtual uint64_t arrival(uint64_t k) const = 0;
  // Waits until at least one of the entries has arrived (or failed to), or `timeout` seconds
  // have passed; says whether one has. Throws tg::Error if the pass was cancelled while none had.
  static constexpr double kForever = std::numeric_limits<double>::infinity();
  virtual bool wait_any(std::span<const uint64_t> entries, double timeout = kForever) = 0;
  // The decoder of plan entry k, waiting for it; throws tg::Error if the block failed to arrive
  // (it names the block).
  virtual const BlockDecoder& acquire(uint64_t k) = 0;
  // Ends one use of plan entry k; after its last use the store may reuse the block's memory
  // (and a checking store makes it unreadable).
  virtual void release(uint64_t k) = 0;
  // A task failed: start no more requests and wake every waiter (wait_any and acquire of a block
  // not yet arrived then throw). Without it, tasks still running could wait forever for blocks
  // that need the buffers the failed task's unread leases hold.
  virtual void cancel_pass() = 0;
  // Ends the pass. A completed pass has released every lease; after a cancelled one the store
  // takes back the leases that were never released.
  virtual void end_pass() = 0;

  virtual StoreCounters counters() const = 0;
  // The counters of each tier the store routes blocks to (a single store: itself).
  virtual std::vector<TierCounters> tier_counters() const { return {{name(), counters()}}; }
};

}  // namespace tg
