// A store whose blocks already lie in one region of memory that is not the file's mapping (a
// NUMA node's memory, a far-memory rank's shared window) and are read there in place: every lease
// is ready at once and nothing is copied per pass. The subclasses fill the region; this class
// checks each block there once (structure, and hashes unless told not to) and hands out decoders
// over it.
//
// It does not call itself zero-copy: the engine leases its blocks like any store's (a vertex-major
// pass holds them all, a block-major one takes each in turn), never reading the file's mapping
// behind the store's back.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "store/block_store.h"

namespace tg {

class ResidentStore : public BlockStore {
 public:
  // A block and where it lies in the region: `bytes` from `at` (what the run's passes read:
  // the weights part only when they read weights).
  struct Placed {
    BlockId block;
    uint64_t at = 0, bytes = 0;
  };

  bool zero_copy() const override { return false; }
  uint64_t capacity_blocks() const override { return ~uint64_t{0}; }
  uint64_t pool_bytes() const override { return 0; }  // its memory is the region's: region_bytes()
  bool holds_weights() const override { return holds_weights_; }
  uint64_t region_bytes() const { return region_bytes_; }
  uint64_t blocks_held() const { return held_; }

  void begin_pass(std::vector<PlannedBlock> plan) override;
  uint64_t arrival(uint64_t k) const override { return k; }
  bool wait_any(std::span<const uint64_t>, double) override { return true; }
  const BlockDecoder& acquire(uint64_t k) override { return *plan_[k]; }
  void release(uint64_t) override {}
  void cancel_pass() override {}
  void end_pass() override {}
  StoreCounters counters() const override { return {.blocks = blocks_.load()}; }

 protected:
  explicit ResidentStore(std::shared_ptr<const GraphFile> file);
  // Checks the blocks in `placed` at `region` and serves them; fails naming the first bad block
  // in storage order and `where` (what the region is, for the message). out/in: the view's
  // decoders (their DCSR presence index, which the vertex-major passes use, is shared).
  void hold(const unsigned char* region, uint64_t region_bytes, const std::vector<Placed>& placed,
            const BlockDecoder* out, const BlockDecoder* in, bool weights, bool check_hashes,
            const std::string& where);
  const GraphFile& file() const { return *file_; }

 private:
  uint64_t slot(const BlockId& b) const;
  std::shared_ptr<const GraphFile> file_;
  uint64_t region_bytes_ = 0, held_ = 0;
  bool holds_weights_ = false;
  std::vector<BlockDecoder> decoders_;  // by slot: out grid then in grid, storage order
  std::vector<unsigned char> has_;      // by slot: the store holds the block
  std::vector<const BlockDecoder*> plan_;
  std::atomic<uint64_t> blocks_{0};
};

}  // namespace tg
