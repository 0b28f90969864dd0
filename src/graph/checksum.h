// Section checksums. A section's checksum is the XXH3-64 of the sequence of XXH3-64 hashes of its
// 1 MiB chunks: the same strength as one hash over the whole, but computable by many threads at
// once when writing and when verifying.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tg {

inline constexpr size_t kChecksumChunk = size_t{1} << 20;

// Checksum of bytes in memory.
uint64_t section_checksum(const void* data, size_t bytes);

// Checksum of bytes [offset, offset + bytes) of an open file, read with a bounded buffer per
// thread (so it does not grow the resident set by the file's size).
uint64_t file_range_checksum(int fd, uint64_t offset, uint64_t bytes);

// Plain XXH3-64 of bytes [offset, offset + bytes) of an open file (a block part's hash), read
// serially through a bounded buffer.
uint64_t file_range_hash(int fd, uint64_t offset, uint64_t bytes);

}  // namespace tg
