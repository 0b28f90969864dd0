#include "store/composite_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "util/error.h"

namespace tg {

CompositeStore::CompositeStore(std::vector<BlockStore*> tiers, Placement place)
    : tiers_(std::move(tiers)), place_(std::move(place)), routed_(tiers_.size(), 0) {
  if (tiers_.empty()) fail("composite store: at least one tier is needed");
  for (const auto* t : tiers_)
    if (t == nullptr) fail("composite store: a tier is missing");
}

std::string CompositeStore::name() const {
  std::vector<std::string> names;
  names.reserve(tiers_.size());
  for (const auto* t : tiers_) names.push_back(t->name());
  return fmt::format("composite({})", fmt::join(names, "+"));
}

bool CompositeStore::zero_copy() const {
  return std::all_of(tiers_.begin(), tiers_.end(),
                     [](const BlockStore* t) { return t->zero_copy(); });
}

uint64_t CompositeStore::capacity_blocks() const {
  uint64_t least = ~uint64_t{0};
  for (const auto* t : tiers_) least = std::min(least, t->capacity_blocks());
  return least;
}

bool CompositeStore::holds_weights() const {
  return std::all_of(tiers_.begin(), tiers_.end(),
                     [](const BlockStore* t) { return t->holds_weights(); });
}

uint64_t CompositeStore::pool_bytes() const {
  uint64_t sum = 0;
  for (const auto* t : tiers_) sum += t->pool_bytes();
  return sum;
}

BlockStore& CompositeStore::tier_of(const BlockId& block) const {
  const size_t tier = place_(block);
  if (tier >= tiers_.size())
    fail("composite store: a block was placed on tier {} of {}", tier, tiers_.size());
  return *tiers_[tier];
}

std::span<const BlockPiece> CompositeStore::pieces(const BlockId& block) const {
  return tier_of(block).pieces(block);
}

uint64_t CompositeStore::selection_leases(const BlockId& block, std::span<const EntryRun> runs,
                                          uint64_t arcs_bound, uint32_t piece) const {
  return tier_of(block).selection_leases(block, runs, arcs_bound, piece);
}

void CompositeStore::begin_pass(std::vector<PlannedBlock> plan) {
  std::vector<std::vector<PlannedBlock>> parts(tiers_.size());
  routes_.resize(plan.size());
  for (size_t k = 0; k < plan.size(); ++k) {
    const size_t tier = place_(plan[k].block);
    if (tier >= tiers_.size())
      fail("composite store: a block was placed on tier {} of {}", tier, tiers_.size());
    routes_[k] = {static_cast<uint32_t>(tier), parts[tier].size()};
    parts[tier].push_back(plan[k]);
  }
  cancelled_.store(false, std::memory_order_relaxed);
  for (size_t t = 0; t < tiers_.size(); ++t) {
    routed_[t] += parts[t].size();
    tiers_[t]->begin_pass(std::move(parts[t]));
  }
}

uint64_t CompositeStore::arrival(uint64_t k) const {
  const Route& r = routes_[k];
  return tiers_[r.tier]->arrival(r.local);
}

// Waits in the tier itself when every waited-for entry lies in one tier. Entries spread over
// several tiers are polled (every 20 microseconds) instead: blocking in one tier could wait on a
// block whose buffer frees only after a block of another tier is processed.
bool CompositeStore::wait_any(std::span<const uint64_t> entries, double timeout) {
  auto any = [&] {
    return std::any_of(entries.begin(), entries.end(),
                       [&](uint64_t k) { return arrival(k) != kNotArrived; });
  };
  if (any()) return true;
  const uint32_t tier = routes_[entries.front()].tier;
  const bool one_tier = std::all_of(entries.begin(), entries.end(),
                                    [&](uint64_t k) { return routes_[k].tier == tier; });
  if (one_tier) {
    std::vector<uint64_t> local;
    for (uint64_t k : entries) local.push_back(routes_[k].local);
    return tiers_[tier]->wait_any(local, timeout);
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(std::min(timeout, 1e9));
  while (!any()) {
    if (cancelled_.load(std::memory_order_acquire))
      fail("the pass was cancelled (another task failed) before its block arrived");
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  return true;
}

const BlockDecoder& CompositeStore::acquire(uint64_t k) {
  const Route& r = routes_[k];
  return tiers_[r.tier]->acquire(r.local);
}

void CompositeStore::release(uint64_t k) {
  const Route& r = routes_[k];
  tiers_[r.tier]->release(r.local);
}

void CompositeStore::cancel_pass() {
  cancelled_.store(true, std::memory_order_release);
  for (auto* t : tiers_) t->cancel_pass();
}

void CompositeStore::end_pass() {
  for (auto* t : tiers_) t->end_pass();
  routes_.clear();
}

StoreCounters CompositeStore::counters() const {
  StoreCounters sum;
  for (const auto* t : tiers_) {
    const StoreCounters c = t->counters();
    sum.blocks += c.blocks;
    sum.pieces += c.pieces;
    sum.leases += c.leases;
    sum.bytes += c.bytes;
    sum.requests += c.requests;
    sum.wait_seconds += c.wait_seconds;
    sum.request_seconds += c.request_seconds;
    sum.max_in_flight = std::max(sum.max_in_flight, c.max_in_flight);
    sum.partial_blocks += c.partial_blocks;
    sum.partial_bytes += c.partial_bytes;
  }
  return sum;
}

std::vector<TierCounters> CompositeStore::tier_counters() const {
  std::vector<TierCounters> all;
  all.reserve(tiers_.size());
  for (const auto* t : tiers_) all.push_back({t->name(), t->counters()});
  return all;
}

}  // namespace tg
