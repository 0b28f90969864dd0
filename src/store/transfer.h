// How a fetching store moves bytes from where the graph lives into its buffers: a request of one
// or more byte ranges is started, and later completes (the Fargraph+ paper's Far_read_start and
// Far_read_complete pair). The store decides what to read and where; a transfer only reads.
// One implementation per medium: pread with injected latency and completion order (tests and
// benchmarks of the pipeline), O_DIRECT reads through io_uring (the disk tier), and later
// one-sided reads from a far-memory rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tg {

// Bytes [offset, offset + bytes) of the file into `into`. With an alignment above 1, offset,
// bytes and into are multiples of it, and only the first `needed` bytes must arrive (an aligned
// read may run past the end of the file).
struct ReadRange {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint64_t needed = 0;
  unsigned char* into = nullptr;
};

class Transfer {
 public:
  virtual ~Transfer() = default;
  // What the store calls itself when it runs on this transfer ("copying", "file").
  virtual std::string name() const = 0;
  // The alignment every range's offset, length and buffer address must have (1: none).
  virtual uint64_t alignment() const = 0;
  // The most ranges one request may have.
  virtual size_t max_ranges() const { return ~size_t{0}; }
  // Starts request `id` (reading its ranges, in any order); returns at once.
  virtual void start(uint64_t id, std::vector<ReadRange> ranges) = 0;
  // Waits until a started request has completed and returns its id; `error` is empty or says
  // what went wrong. May be called from several threads, each getting a different request.
  virtual uint64_t complete(std::string& error) = 0;
};

}  // namespace tg
