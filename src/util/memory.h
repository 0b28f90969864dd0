// This process's resident memory, as the kernel counts it.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace tg {

// Peak resident set size of this process's image so far, in bytes: VmHWM, which starts afresh
// at exec. (getrusage's ru_maxrss does not: it keeps the high-water mark of the image exec
// replaced, so a run started from a large Python process would report that process's size.)
inline uint64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  uint64_t kib = 0;
  while (status >> key) {
    if (key == "VmHWM:" && status >> kib) return kib * 1024;
    status.ignore(4096, '\n');
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

// Resident set size of this process now, in bytes (0 if /proc cannot say).
inline uint64_t current_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace tg
