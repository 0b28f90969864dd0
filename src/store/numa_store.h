// The NUMA tier: the far blocks live in memory bound to one NUMA node (a far socket, or a CXL
// memory expander, which Linux shows as a node without CPUs) and the engine's workers read them
// in place, with loads across the interconnect and no copy per pass (GraCXL's placement). The
// blocks are read from the graph file into the node's memory once, when the store opens, and
// checked there (structure, and hashes unless told not to).
//
// Its blocks are not the file's mapping, so it does not call itself zero-copy: the engine then
// leases them like any store's (a vertex-major pass holds them all, a block-major one takes each
// in turn), never reading the mapping behind the store's back. Every lease is ready at once.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/block_store.h"

namespace tg {

// NUMA nodes as libnuma sees them.
struct NumaNodes {
  bool available = false;  // libnuma works (the kernel has NUMA support)
  int count = 0;           // configured nodes with memory
  int local = 0;           // the node of the CPU this thread runs on
  int farthest = 0;        // the node with memory at the largest distance from `local` (highest id on ties)
};
NumaNodes numa_nodes();

class NumaStore final : public BlockStore {
 public:
  // Holds the blocks for which holds(block) is true, on `node`. out/in: the view's decoders
  // (for the DCSR presence index the vertex-major passes use). weights: read the weights parts.
  NumaStore(std::shared_ptr<const GraphFile> file, const std::function<bool(const BlockId&)>& holds,
            const BlockDecoder* out, const BlockDecoder* in, int node, bool weights, bool check_hashes);
  ~NumaStore() override;
  NumaStore(const NumaStore&) = delete;
  NumaStore& operator=(const NumaStore&) = delete;

  std::string name() const override { return "numa"; }
  bool zero_copy() const override { return false; }
  uint64_t capacity_blocks() const override { return ~uint64_t{0}; }
  uint64_t pool_bytes() const override { return 0; }  // its memory is the far node's: node_bytes()
  int node() const { return node_; }
  uint64_t node_bytes() const { return bytes_; }
  uint64_t blocks_held() const { return held_; }
  // The node the page holding `address` is on (what the tests check the binding by), or -1.
  static int node_of(const void* address);

  void begin_pass(std::vector<PlannedBlock> plan) override;
  uint64_t arrival(uint64_t k) const override { return k; }
  bool wait_any(std::span<const uint64_t>, double) override { return true; }
  const BlockDecoder& acquire(uint64_t k) override { return *plan_[k]; }
  void release(uint64_t) override {}
  void cancel_pass() override {}
  void end_pass() override {}
  StoreCounters counters() const override { return {.blocks = blocks_.load()}; }

 private:
  uint64_t slot(const BlockId& b) const;
  std::shared_ptr<const GraphFile> file_;
  int node_;
  unsigned char* memory_ = nullptr;
  uint64_t bytes_ = 0, held_ = 0;
  std::vector<BlockDecoder> decoders_;   // by slot: out grid then in grid, storage order
  std::vector<unsigned char> has_;       // by slot: the store holds the block
  std::vector<const BlockDecoder*> plan_;
  std::atomic<uint64_t> blocks_{0};
};

}  // namespace tg
