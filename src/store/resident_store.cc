#include "store/resident_store.h"

#include <fmt/format.h>

#include "graph/block_check.h"
#include "util/error.h"

namespace tg {

ResidentStore::ResidentStore(std::shared_ptr<const GraphFile> file) : file_(std::move(file)) {
  const uint64_t p = file_->blocks_per_side(), grids = file_->directed() ? 2 : 1;
  decoders_.resize(grids * p * p);
  has_.assign(grids * p * p, 0);
}

uint64_t ResidentStore::slot(const BlockId& b) const {
  const uint64_t p = file_->blocks_per_side();
  const bool in = b.grid == Grid::kIn && file_->directed();
  return (in ? p * p : 0) + b.major * p + b.minor;
}

void ResidentStore::hold(const unsigned char* region, uint64_t region_bytes,
                         const std::vector<Placed>& placed, const BlockDecoder* out,
                         const BlockDecoder* in, bool weights, bool check_hashes,
                         const std::string& where) {
  region_bytes_ = region_bytes;
  held_ = placed.size();
  weights = weights && file_->weighted();
  holds_weights_ = weights;
  const uint32_t p = file_->blocks_per_side();
  const auto ranges = file_->ranges();
  // Checked in parallel; the first failure in block order is reported.
  std::vector<std::string> problems(placed.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t k = 0; k < placed.size(); ++k) {
    const Placed& h = placed[k];
    const BlockId& b = h.block;
    const auto& e = file_->entry(b.grid, b.major, b.minor);
    const unsigned char* at = region + h.at;
    problems[k] = validate_block(at, h.bytes, e, file_->shape(b.major, b.minor), ranges[b.major],
                                 ranges[b.minor], check_hashes, weights);
    if (!problems[k].empty()) continue;
    BlockDecoder d = BlockDecoder::at(at, e, ranges[b.major], ranges[b.minor]);
    const BlockDecoder& viewed = (b.grid == Grid::kOut ? out : in)[uint64_t{b.major} * p + b.minor];
    d.presence = viewed.presence;
    d.presence_rank = viewed.presence_rank;
    decoders_[slot(b)] = d;
    has_[slot(b)] = 1;
  }
  for (size_t k = 0; k < placed.size(); ++k) {
    if (problems[k].empty()) continue;
    const BlockId& b = placed[k].block;
    fail("'{}': {}, {}: {}", file_->path(), file_->block_name(b.grid, b.major, b.minor), where,
         problems[k]);
  }
}

void ResidentStore::begin_pass(std::vector<PlannedBlock> plan) {
  plan_.resize(plan.size());
  for (size_t k = 0; k < plan.size(); ++k) {
    const uint64_t s = slot(plan[k].block);
    if (!has_[s]) {
      fail(
          "internal: the {} store was asked for block ({}, {}) of the {} grid, which it does not "
          "hold",
          name(), plan[k].block.major, plan[k].block.minor, grid_name(plan[k].block.grid));
    }
    plan_[k] = &decoders_[s];
  }
  blocks_ += plan.size();
}

}  // namespace tg
