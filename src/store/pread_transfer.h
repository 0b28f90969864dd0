// pread with injected latency and a chosen completion order: each request completes `delay`
// seconds after it started (sleeping out what the read did not take), in the order started, in
// reverse, or shuffled. It makes the fetch pipeline's behaviour testable (a store that completes
// in reverse, a slow tier) on a machine whose page cache answers in microseconds.
#pragma once

#include <deque>
#include <mutex>
#include <random>
#include <string>

#include "store/transfer.h"

namespace tg {

class PreadTransfer final : public Transfer {
 public:
  enum class Completion { kInOrder, kReverse, kShuffled };
  PreadTransfer(const std::string& path, double delay_seconds, Completion completion,
                uint64_t seed);
  ~PreadTransfer() override;
  PreadTransfer(const PreadTransfer&) = delete;
  PreadTransfer& operator=(const PreadTransfer&) = delete;

  std::string name() const override { return "copying"; }
  uint64_t alignment() const override { return 1; }
  void start(uint64_t id, std::vector<ReadRange> ranges) override;
  uint64_t complete(std::string& error) override;

 private:
  struct Request {
    uint64_t id;
    double started;
    std::vector<ReadRange> ranges;
  };
  std::string path_;
  int fd_ = -1;
  double delay_;
  Completion completion_;
  std::mt19937_64 rng_;
  std::mutex mutex_;
  std::deque<Request> started_;
};

}  // namespace tg
