// Priority bins for delta-stepping and other ordered algorithms: vertices wait in the bin of
// their key (SSSP: tentative distance / delta); the lowest non-empty bin is the next frontier.
// Each thread fills bins of its own, as GAPBS does, so inserting takes no lock and no atomic;
// taking a bin gathers that bin from every thread, keeping each vertex once and only if its key
// still names the bin (an entry goes stale when its vertex moved to a lower bin later).
#pragma once

#include <omp.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "engine/cpu/frontier.h"
#include "util/parallel.h"

namespace tg {

template <typename Id>
class Bins {
 public:
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  Bins(uint64_t n, int threads) : local_(static_cast<size_t>(threads)), taken_(n) {}

  uint64_t current() const { return current_; }
  int threads() const { return static_cast<int>(local_.size()); }
  std::vector<std::vector<Id>>& local(int thread) { return local_[static_cast<size_t>(thread)]; }
  // Thread t's entries for bin b (an empty list if it never filled that bin).
  std::vector<Id>& entries(int thread, uint64_t b) {
    auto& bins = local(thread);
    if (b >= bins.size()) bins.resize(b + 1);
    return bins[b];
  }
  Bitmap& taken() { return taken_; }

  // The lowest bin at or after the current one that some thread holds entries for (kNone if
  // none); it becomes the current bin.
  uint64_t advance() {
    const uint64_t b = lowest();
    if (b != kNone) current_ = b;
    return b;
  }
  // The lowest bin at or after the current one that some thread holds entries for (kNone if none).
  uint64_t lowest() const {
    uint64_t lowest = kNone;
    for (const auto& bins : local_) {
      for (uint64_t b = current_; b < bins.size() && b < lowest; ++b) {
        if (!bins[b].empty()) {
          lowest = b;
          break;
        }
      }
    }
    return lowest;
  }
  // Makes b the current bin (ranks agree on the lowest bin of them all, then each takes it).
  void set_current(uint64_t b) { current_ = b; }

 private:
  std::vector<std::vector<std::vector<Id>>> local_;  // [thread][bin] -> vertices
  Bitmap taken_;                                     // members of the bin being taken
  uint64_t current_ = 0;
};

}  // namespace tg
