// InputStream over a file read through a 1 MiB buffer, decompressed on the fly if needed.
//
// The format comes from the magic bytes at the start of the data, never the file name, and is
// detected from the buffer's first fill rather than by seeking, so standard input works too. Each
// compressed format is a small Decoder that turns buffered input into output; FileStream owns the
// file, the buffer, and the end-of-file check that turns a stream cut short into a "truncated"
// error instead of silently short data.
#include "io/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZLIB_CONST  // makes z_stream::next_in const, so input needs no const_cast
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <span>
#include <string_view>

#include "util/error.h"

namespace tg {

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kXz:
      return "xz";
    case Compression::kZstd:
      return "zstd";
  }
  return "unknown";
}

namespace {

// The buffer: 1 MiB, or less for a file known to be smaller (a 1 MiB allocation per open was most
// of the cost of reading a small file). Never below 64 KiB: a file whose size is not what stat
// says (procfs) still reads in sensible pieces, and the magic bytes always fit.
constexpr size_t kBufferSize = size_t{1} << 20;
constexpr size_t kMinBufferSize = size_t{64} << 10;

// Turns buffered compressed input into output, for one format.
class Decoder {
 public:
  explicit Decoder(std::string path) : path_(std::move(path)) {}
  virtual ~Decoder() = default;
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  // Decodes from `in` into out[0, n), advancing `in` past what it consumed; returns the number of
  // bytes written. `at_end` says that `in` is empty and the file has nothing more. Not called
  // once the data ends and complete() is true.
  virtual size_t decode(std::span<const uint8_t>& in, char* out, size_t n, bool at_end) = 0;
  // True when the data decoded so far ends with a complete stream, so ending here is no truncation.
  virtual bool complete() const = 0;

 protected:
  [[noreturn]] void corrupt(std::string_view format, std::string_view detail) const {
    fail("'{}': corrupt {} data: {}", path_, format, detail);
  }
  std::string path_;
};

class GzipDecoder final : public Decoder {
 public:
  explicit GzipDecoder(std::string path) : Decoder(std::move(path)) {
    // 15 + 32: the largest window, and accept a gzip header (zlib detects it).
    if (inflateInit2(&zs_, 15 + 32) != Z_OK) fail("'{}': cannot start gzip decoder", path_);
  }
  ~GzipDecoder() override { inflateEnd(&zs_); }

  size_t decode(std::span<const uint8_t>& in, char* out, size_t n, bool /*at_end*/) override {
    if (!in_member_) {
      // Data after the end of a member is another member (`cat a.gz b.gz`, pigz, bgzip): gzip
      // defines the concatenation as one stream. Anything else fails as a bad header below.
      inflateReset(&zs_);
      in_member_ = true;
    }
    const auto room = static_cast<uInt>(std::min<size_t>(n, std::numeric_limits<uInt>::max()));
    zs_.next_in = in.data();
    zs_.avail_in = static_cast<uInt>(in.size());  // at most the 1 MiB buffer
    zs_.next_out = reinterpret_cast<Bytef*>(out);
    zs_.avail_out = room;
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    in = in.subspan(in.size() - zs_.avail_in);
    if (rc == Z_STREAM_END) {
      in_member_ = false;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {  // Z_BUF_ERROR: needs more input; not an error
      corrupt("gzip", zs_.msg != nullptr ? zs_.msg : zError(rc));
    }
    return room - zs_.avail_out;
  }
  bool complete() const override { return !in_member_; }

 private:
  z_stream zs_{};
  bool in_member_ = true;
};

class XzDecoder final : public Decoder {
 public:
  explicit XzDecoder(std::string path) : Decoder(std::move(path)) {
    // LZMA_CONCATENATED reads `cat a.xz b.xz` as one, like xz(1). The memory limit admits every
    // dictionary an encoder writes (liblzma's stops at 1.5 GiB; xz -9 uses 64 MiB), but not the
    // 4 GiB a header can declare, which the decoder would allocate at once: a 64-byte file
    // reserved 4 GiB (found while fuzzing). zstd likewise refuses windows over 128 MiB by default.
    if (lzma_stream_decoder(&strm_, kXzMemoryLimit, LZMA_CONCATENATED) != LZMA_OK) {
      fail("'{}': cannot start xz decoder", path_);
    }
  }
  ~XzDecoder() override { lzma_end(&strm_); }

  size_t decode(std::span<const uint8_t>& in, char* out, size_t n, bool at_end) override {
    strm_.next_in = in.data();
    strm_.avail_in = in.size();
    strm_.next_out = reinterpret_cast<uint8_t*>(out);
    strm_.avail_out = n;
    // With LZMA_CONCATENATED only LZMA_FINISH lets the decoder say the input ended cleanly
    // (LZMA_STREAM_END); on truncated input it makes no progress, which read() reports.
    const lzma_ret rc = lzma_code(&strm_, at_end ? LZMA_FINISH : LZMA_RUN);
    in = in.subspan(in.size() - strm_.avail_in);
    if (rc == LZMA_STREAM_END) {
      done_ = true;
    } else if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
      corrupt("xz", describe(rc));
    }
    return n - strm_.avail_out;
  }
  bool complete() const override { return done_; }

 private:
  static const char* describe(lzma_ret rc) {
    switch (rc) {
      case LZMA_DATA_ERROR:
        return "compressed data is corrupt";
      case LZMA_FORMAT_ERROR:
        return "not in xz format";
      case LZMA_OPTIONS_ERROR:
        return "unsupported compression options";
      case LZMA_MEM_ERROR:
        return "out of memory";
      case LZMA_MEMLIMIT_ERROR:
        return "its dictionary is larger than any xz encoder writes (1.5 GiB)";
      default:
        return "internal decoder error";
    }
  }
  static constexpr uint64_t kXzMemoryLimit = uint64_t{1600}
                                             << 20;  // a 1.5 GiB dictionary and state
  lzma_stream strm_ = LZMA_STREAM_INIT;
  bool done_ = false;
};

class ZstdDecoder final : public Decoder {
 public:
  explicit ZstdDecoder(std::string path) : Decoder(std::move(path)), dctx_(ZSTD_createDCtx()) {
    if (dctx_ == nullptr) fail("'{}': cannot start zstd decoder", path_);
  }
  ~ZstdDecoder() override { ZSTD_freeDCtx(dctx_); }

  size_t decode(std::span<const uint8_t>& in, char* out, size_t n, bool /*at_end*/) override {
    ZSTD_inBuffer src{in.data(), in.size(), 0};
    ZSTD_outBuffer dst{out, n, 0};
    // Moves on to the next frame by itself, so concatenated frames read as one stream.
    const size_t rc = ZSTD_decompressStream(dctx_, &dst, &src);
    if (ZSTD_isError(rc)) corrupt("zstd", ZSTD_getErrorName(rc));
    in = in.subspan(src.pos);
    frame_done_ = rc == 0;  // 0: a frame just ended and all its output was flushed
    return dst.pos;
  }
  bool complete() const override { return frame_done_; }

 private:
  ZSTD_DCtx* dctx_;
  bool frame_done_ = false;
};

Compression detect(std::span<const uint8_t> head) {
  auto starts_with = [&](std::initializer_list<uint8_t> magic) {
    return head.size() >= magic.size() && std::equal(magic.begin(), magic.end(), head.begin());
  };
  if (starts_with({0x1f, 0x8b})) return Compression::kGzip;
  if (starts_with({0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00})) return Compression::kXz;
  if (starts_with({0x28, 0xb5, 0x2f, 0xfd})) return Compression::kZstd;
  return Compression::kNone;
}

// Owns a file descriptor, so that it is closed even when FileStream's constructor throws.
struct FileDescriptor {
  int fd = -1;
  FileDescriptor() = default;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd > STDIN_FILENO) ::close(fd);  // standard input is not ours to close
  }
};

class FileStream final : public InputStream {
 public:
  explicit FileStream(const std::string& path) {
    path_ = path;
    if (path == "-") {
      file_.fd = STDIN_FILENO;
    } else {
      file_.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (file_.fd < 0) fail("cannot open '{}': {}", path, std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(file_.fd, &st) != 0) fail("cannot open '{}': {}", path, std::strerror(errno));
    // open() accepts a directory; say so now rather than fail on the first read.
    if (S_ISDIR(st.st_mode)) fail("cannot open '{}': {}", path, std::strerror(EISDIR));
    if (S_ISREG(st.st_mode)) {
      raw_size_ = static_cast<uint64_t>(st.st_size);
      ::posix_fadvise(file_.fd, 0, 0, POSIX_FADV_SEQUENTIAL);  // only advice: ignore failure
      buffer_size_ =
          static_cast<size_t>(std::clamp<uint64_t>(raw_size_ + 1, kMinBufferSize, kBufferSize));
    }
    in_ = std::make_unique_for_overwrite<uint8_t[]>(buffer_size_);

    // Fill until the longest magic number fits: a pipe may deliver fewer bytes per read.
    while (in_len_ < 6 && !eof_) {
      const size_t got = read_file(in_.get() + in_len_, buffer_size_ - in_len_);
      eof_ = got == 0;
      in_len_ += got;
    }
    compression_ = detect({in_.get(), in_len_});
    switch (compression_) {
      case Compression::kNone:
        break;
      case Compression::kGzip:
        decoder_ = std::make_unique<GzipDecoder>(path);
        break;
      case Compression::kXz:
        decoder_ = std::make_unique<XzDecoder>(path);
        break;
      case Compression::kZstd:
        decoder_ = std::make_unique<ZstdDecoder>(path);
        break;
    }
  }

  size_t read(char* buf, size_t n) override {
    return decoder_ ? read_decoded(buf, n) : read_plain(buf, n);
  }
  Compression compression() const override { return compression_; }
  uint64_t raw_bytes_consumed() const override { return file_bytes_read_ - (in_len_ - in_pos_); }

 private:
  // One read(2), retried on EINTR; returns 0 at the end of the file.
  size_t read_file(void* dst, size_t n) {
    for (;;) {
      const ssize_t got = ::read(file_.fd, dst, n);
      if (got >= 0) {
        file_bytes_read_ += static_cast<uint64_t>(got);
        return static_cast<size_t>(got);
      }
      if (errno != EINTR) fail("error reading '{}': {}", path_, std::strerror(errno));
    }
  }

  // Refills the emptied buffer; afterwards it is still empty only at the end of the file.
  void refill() {
    in_pos_ = in_len_ = 0;
    if (eof_) return;  // never read past an end: on a terminal, that would wait for more input
    in_len_ = read_file(in_.get(), buffer_size_);
    eof_ = in_len_ == 0;
  }

  size_t read_plain(char* buf, size_t n) {
    size_t out = 0;
    while (out < n) {
      if (in_pos_ < in_len_) {
        const size_t take = std::min(n - out, in_len_ - in_pos_);
        std::memcpy(buf + out, in_.get() + in_pos_, take);
        in_pos_ += take;
        out += take;
      } else if (eof_) {
        break;
      } else if (n - out >= buffer_size_) {
        // A request as big as the buffer goes straight into the caller's memory: no copy.
        const size_t got = read_file(buf + out, n - out);
        eof_ = got == 0;
        out += got;
      } else {
        refill();
      }
    }
    return out;
  }

  size_t read_decoded(char* buf, size_t n) {
    size_t out = 0;
    while (out < n) {
      if (in_pos_ == in_len_) refill();
      const bool at_end = in_pos_ == in_len_;
      // Stop without calling the decoder: zstd, called with no input after a finished frame,
      // would start waiting for another frame and no longer count as complete.
      if (at_end && decoder_->complete()) break;
      std::span<const uint8_t> in(in_.get() + in_pos_, in_len_ - in_pos_);
      const size_t produced = decoder_->decode(in, buf + out, n - out, at_end);
      in_pos_ = in_len_ - in.size();
      out += produced;
      // All input is decoded and all output flushed, yet the end-of-stream marker never came.
      if (at_end && produced == 0 && !decoder_->complete()) {
        fail("'{}': truncated {} stream (ended after {} compressed bytes)", path_,
             compression_name(compression_), file_bytes_read_);
      }
    }
    return out;
  }

  FileDescriptor file_;
  std::unique_ptr<uint8_t[]> in_;  // input buffer: in_[in_pos_, in_len_) is not yet consumed
  size_t buffer_size_ = kBufferSize;
  size_t in_pos_ = 0;
  size_t in_len_ = 0;
  bool eof_ = false;
  uint64_t file_bytes_read_ = 0;
  Compression compression_ = Compression::kNone;
  std::unique_ptr<Decoder> decoder_;  // null for uncompressed data
};

}  // namespace

std::unique_ptr<InputStream> InputStream::open(const std::string& path) {
  return std::make_unique<FileStream>(path);
}

}  // namespace tg
