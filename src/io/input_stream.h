// Sequential byte source over a file that may be compressed (.gz, .xz, .zst).
// Compression is recognised by the file's magic bytes, not its name, so a misnamed file still
// reads correctly. A truncated or corrupt compressed stream is a tg::Error naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tg {

enum class Compression { kNone, kGzip, kXz, kZstd };

const char* compression_name(Compression c);

class InputStream {
 public:
  virtual ~InputStream() = default;

  // Opens `path` ("-" is standard input), detecting compression from its first bytes.
  static std::unique_ptr<InputStream> open(const std::string& path);

  // Reads up to n decompressed bytes into buf; returns 0 only at the end of the data.
  // Throws tg::Error naming the file if the data is truncated or corrupt.
  virtual size_t read(char* buf, size_t n) = 0;

  virtual Compression compression() const = 0;
  const std::string& path() const { return path_; }
  // Bytes consumed from the underlying file so far and its total size (0 if unknown),
  // for progress reporting.
  virtual uint64_t raw_bytes_consumed() const = 0;
  uint64_t raw_size() const { return raw_size_; }

 protected:
  std::string path_;
  uint64_t raw_size_ = 0;
};

}  // namespace tg
