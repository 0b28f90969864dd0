#include "graph/checksum.h"

#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "util/error.h"

namespace tg {

namespace {
uint64_t combine(const std::vector<uint64_t>& chunk_hashes) {
  return XXH3_64bits(chunk_hashes.data(), chunk_hashes.size() * sizeof(uint64_t));
}
}  // namespace

uint64_t section_checksum(const void* data, size_t bytes) {
  const size_t chunks = (bytes + kChecksumChunk - 1) / kChecksumChunk;
  std::vector<uint64_t> hashes(chunks);
  const auto* base = static_cast<const unsigned char*>(data);
#pragma omp parallel for schedule(dynamic, 4)
  for (size_t c = 0; c < chunks; ++c) {
    const size_t begin = c * kChecksumChunk;
    hashes[c] = XXH3_64bits(base + begin, std::min(kChecksumChunk, bytes - begin));
  }
  return combine(hashes);
}

uint64_t file_range_checksum(int fd, uint64_t offset, uint64_t bytes) {
  const size_t chunks = (bytes + kChecksumChunk - 1) / kChecksumChunk;
  std::vector<uint64_t> hashes(chunks);
  bool failed = false;
  int saved_errno = 0;
#pragma omp parallel
  {
    std::vector<unsigned char> buffer(kChecksumChunk);
#pragma omp for schedule(dynamic, 4)
    for (size_t c = 0; c < chunks; ++c) {
      const size_t begin = c * kChecksumChunk;
      const size_t len = std::min<uint64_t>(kChecksumChunk, bytes - begin);
      size_t done = 0;
      while (done < len) {
        const ssize_t got =
            pread(fd, buffer.data() + done, len - done, static_cast<off_t>(offset + begin + done));
        if (got <= 0) {
#pragma omp critical
          {
            failed = true;
            saved_errno = got < 0 ? errno : 0;
          }
          break;
        }
        done += static_cast<size_t>(got);
      }
      hashes[c] = XXH3_64bits(buffer.data(), len);
    }
  }
  if (failed)
    fail("reading back for checksum failed: {}",
         saved_errno ? std::strerror(saved_errno) : "unexpected end of file");
  return combine(hashes);
}

uint64_t file_range_hash(int fd, uint64_t offset, uint64_t bytes) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  std::vector<unsigned char> buffer(std::min<uint64_t>(bytes, kChecksumChunk));
  uint64_t done = 0;
  while (done < bytes) {
    const size_t want = std::min<uint64_t>(buffer.size(), bytes - done);
    const ssize_t got = pread(fd, buffer.data(), want, static_cast<off_t>(offset + done));
    if (got <= 0) {
      XXH3_freeState(state);
      fail("reading back for a block hash failed: {}",
           got < 0 ? std::strerror(errno) : "unexpected end of file");
    }
    XXH3_64bits_update(state, buffer.data(), static_cast<size_t>(got));
    done += static_cast<uint64_t>(got);
  }
  const uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

}  // namespace tg
