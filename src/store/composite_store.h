// The composite store: routes each block to one of several stores (tiers), so one run mixes
// resident and fetched blocks: hot blocks mapped in DRAM, cold ones read from disk or a far rank.
// A pass's plan is split by tier, each tier keeping the plan's order (so each fetches what the
// next tasks need); leases are forwarded by plan position. Arrival numbers come from the tiers
// and serve only as "which first" hints; a resident block is always ready.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/block_store.h"

namespace tg {

class CompositeStore final : public BlockStore {
 public:
  // place(block) names the tier (an index into tiers) that holds the block. Tiers are not owned.
  using Placement = std::function<size_t(const BlockId&)>;
  CompositeStore(std::vector<BlockStore*> tiers, Placement place);

  std::string name() const override;
  bool zero_copy() const override;
  bool holds_weights() const override;
  // The fewest blocks the smallest fetching tier holds: a vertex-major pass may need every one of
  // its blocks in one tier (the tier checks the exact count when the pass begins).
  uint64_t capacity_blocks() const override;
  uint64_t pool_bytes() const override;
  // The pieces of the tier that holds the block.
  std::span<const BlockPiece> pieces(const BlockId& block) const override;
  // Whether a selection pays on the tier that holds the block.
  uint64_t selection_leases(const BlockId& block, std::span<const EntryRun> runs,
                            uint64_t arcs_bound,
                            uint32_t piece = PlannedBlock::kWhole) const override;

  void begin_pass(std::vector<PlannedBlock> plan) override;
  uint64_t arrival(uint64_t k) const override;
  bool wait_any(std::span<const uint64_t> entries, double timeout = kForever) override;
  const BlockDecoder& acquire(uint64_t k) override;
  void release(uint64_t k) override;
  void cancel_pass() override;
  void end_pass() override;
  StoreCounters counters() const override;
  std::vector<TierCounters> tier_counters() const override;

  // The tiers, in the order placement names them.
  const std::vector<BlockStore*>& tiers() const { return tiers_; }
  // Plan entries each tier was given over all passes (what the tests check the routing by).
  const std::vector<uint64_t>& routed() const { return routed_; }

 private:
  struct Route {
    uint32_t tier;
    uint64_t local;  // the entry's position in its tier's plan
  };
  BlockStore& tier_of(const BlockId& block) const;
  std::vector<BlockStore*> tiers_;
  Placement place_;
  std::vector<Route> routes_;
  std::vector<uint64_t> routed_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace tg
