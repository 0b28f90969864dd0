// The disk tier's transfer: the graph file opened with O_DIRECT (no page cache, so a memory
// budget means what it says) and read through io_uring with many requests in flight. Ranges must
// be aligned to 4 KiB (offsets, lengths, buffer addresses); the store rounds them out.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "store/transfer.h"

namespace tg {

class UringTransfer final : public Transfer {
 public:
  // Whether this build has the file tier (liburing was found); without it the constructor
  // refuses, saying why.
  static bool built();
  static constexpr uint64_t kAlignment = 4096;
  // The most ranges one request may have (a selection's groups; a piece has four). A sparse
  // step over a large block reads a few KiB for each of thousands of vertices, so a request
  // carries many reads (the ring holds four such requests; a selection of more runs is cut
  // into several requests by the store).
  static constexpr unsigned kMaxRanges = 256;
  // queue_depth: ranges in flight at most (the ring holds at least four requests of kMaxRanges).
  UringTransfer(const std::string& path, unsigned queue_depth);
  ~UringTransfer() override;
  UringTransfer(const UringTransfer&) = delete;
  UringTransfer& operator=(const UringTransfer&) = delete;

  std::string name() const override { return "file"; }
  uint64_t alignment() const override { return kAlignment; }
  size_t max_ranges() const override { return kMaxRanges; }
  void start(uint64_t id, std::vector<ReadRange> ranges) override;
  uint64_t complete(std::string& error) override;

 private:
  struct Pending {
    std::vector<ReadRange> ranges;
    std::vector<uint64_t> done;  // bytes arrived per range
    size_t left = 0;             // ranges not yet complete
    std::string error;
  };
  void submit_read(uint64_t id, size_t part, const ReadRange& r, uint64_t from);  // holds mutex_

  std::string path_;
  int fd_ = -1;
  struct Ring;  // liburing's io_uring (uring_transfer.cc)
  std::unique_ptr<Ring> ring_;
  std::mutex mutex_;       // the submission side and the pending table
  std::mutex reap_mutex_;  // one thread reaps completions at a time
  std::unordered_map<uint64_t, Pending> pending_;
};

}  // namespace tg
