// Reading a byte range of a file whole, through short reads (pread may return less than asked).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace tg {

// Where a read stopped and why (errno's text, or that the file ends there).
struct ReadFailure {
  uint64_t offset = 0;
  std::string reason;
};

// Reads `bytes` at `offset` of `fd` into `into`; nothing on success.
inline std::optional<ReadFailure> read_at(int fd, unsigned char* into, uint64_t bytes,
                                          uint64_t offset) {
  uint64_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::pread(fd, into + done, bytes - done, static_cast<off_t>(offset + done));
    if (got <= 0)
      return ReadFailure{offset + done, got < 0 ? std::strerror(errno) : "the file ends there"};
    done += static_cast<uint64_t>(got);
  }
  return std::nullopt;
}

}  // namespace tg
