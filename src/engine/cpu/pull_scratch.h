// What block-major pulls' slice accumulators hold, now and at their peak: the engine reports the
// peak (Engine::peak_pull_scratch_bytes), which engine tests hold to what it declares
// (working_memory.h's pull_scratch_bytes). A task counts its accumulators while it holds them.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tg {

class PullScratchCount {
 public:
  // Counts `bytes` while it lives: twice a task under a critical section, cheap beside the task.
  class [[nodiscard]] Held {
   public:
    Held(PullScratchCount& count, uint64_t bytes) : count_(count), bytes_(bytes) {
#pragma omp critical(tg_pull_scratch)
      {
        count_.live_ += bytes_;
        count_.peak_ = std::max(count_.peak_, count_.live_);
      }
    }
    ~Held() {
#pragma omp critical(tg_pull_scratch)
      count_.live_ -= bytes_;
    }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

   private:
    PullScratchCount& count_;
    const uint64_t bytes_;
  };

  uint64_t peak() const { return peak_; }

 private:
  uint64_t live_ = 0, peak_ = 0;
};

}  // namespace tg
