// Measuring the disk tier as the file store reads it: O_DIRECT requests through io_uring, each
// reader keeping `depth` requests of `chunk_bytes` in flight at random 4 KiB-aligned offsets.
// What `tiergraph calibrate --far file` runs for every chunk size, depth and thread count.
#pragma once

#include <cstdint>
#include <string>

#include "store/fetch_profile.h"

namespace tg {

struct FileReadTrial {
  uint64_t chunk_bytes = 1 << 20;
  uint32_t depth = 4;
  uint32_t threads = 1;
  double seconds = 0.2;  // how long each reader keeps requests in flight
  uint64_t seed = 1;
};

// Reads the first `file_bytes` of `path` (at least one chunk) as the trial says; throws
// tg::Error naming the file when it cannot be opened or read.
FetchPoint measure_file_reads(const std::string& path, uint64_t file_bytes,
                              const FileReadTrial& trial);

}  // namespace tg
