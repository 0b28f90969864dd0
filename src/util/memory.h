#pragma once

#include <sys/resource.h>

#include <cstdint>

namespace tg {

// Peak resident set size of this process so far, in bytes.
inline uint64_t peak_rss_bytes() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace tg
