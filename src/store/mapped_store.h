// The mapped store: every block is the mapped file's own bytes, resident and ready, handed out
// without a copy. It is today's in-memory path behind the store interface, so a block-major pass
// in memory costs a plan and an array lookup per block, nothing more.
#pragma once

#include <atomic>
#include <span>
#include <string>
#include <vector>

#include "store/block_store.h"

namespace tg {

class MappedStore final : public BlockStore {
 public:
  // out, in: a grid's decoders in storage order (major * p + minor), as a GraphView holds them.
  MappedStore(const BlockDecoder* out, const BlockDecoder* in, uint32_t p)
      : out_(out), in_(in), p_(p) {}

  std::string name() const override { return "mapped"; }
  bool zero_copy() const override { return true; }
  uint64_t capacity_blocks() const override { return ~uint64_t{0}; }
  uint64_t pool_bytes() const override { return 0; }
  bool holds_weights() const override { return true; }  // the whole file is mapped

  void begin_pass(std::vector<PlannedBlock> plan) override {
    plan_.resize(plan.size());
    for (size_t k = 0; k < plan.size(); ++k) {
      const auto& b = plan[k].block;
      plan_[k] = &(b.grid == Grid::kOut ? out_ : in_)[uint64_t{b.major} * p_ + b.minor];
    }
    blocks_ += plan.size();
  }
  uint64_t arrival(uint64_t k) const override { return k; }
  bool wait_any(std::span<const uint64_t>, double) override { return true; }
  const BlockDecoder& acquire(uint64_t k) override { return *plan_[k]; }
  void release(uint64_t) override {}
  void cancel_pass() override {}  // nothing waits
  void end_pass() override {}
  StoreCounters counters() const override { return {.blocks = blocks_}; }

 private:
  const BlockDecoder* out_;
  const BlockDecoder* in_;
  uint32_t p_;
  std::vector<const BlockDecoder*> plan_;
  uint64_t blocks_ = 0;
};

}  // namespace tg
