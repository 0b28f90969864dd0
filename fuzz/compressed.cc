// Fuzz target: the compressed input streams of io/input_stream (gzip, xz, zstd, found by their
// magic bytes; concatenated members and frames read as one stream). The bytes are read twice:
// straight through InputStream in pieces of a size the options pick, where a truncated or corrupt
// stream must be a tg::Error; then as the edge list they hold, its format sniffed from the
// decompressed content, and parsed like any other input.
#include <memory>

#include "fuzz/fuzz_input.h"
#include "io/input_stream.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::Input in(data, size);
  constexpr size_t kPieces[] = {1, 7, 4096, size_t{1} << 20};
  const size_t piece = kPieces[in.take(2)];
  // More than the stream's 1 MiB buffer. A few KiB of zstd can expand to gigabytes of edges:
  // such bombs are read no further, and not parsed (that would only measure memory).
  constexpr uint64_t kMaxRead = uint64_t{4} << 20;
  uint64_t total = 0;
  try {
    auto stream = tg::InputStream::open(tg::fuzz::as_file(in.text()));
    auto buffer = std::make_unique_for_overwrite<char[]>(piece);
    while (total <= kMaxRead) {
      const size_t got = stream->read(buffer.get(), piece);
      if (got > piece) __builtin_trap();
      if (got == 0) {
        if (stream->read(buffer.get(), piece) != 0) __builtin_trap();  // the end stays the end
        break;
      }
      total += got;
    }
  } catch (const tg::Error&) {
    // A truncated or corrupt stream, refused with a message.
  }
  if (total <= kMaxRead) tg::fuzz::read_and_check(in.text(), tg::ParseOptions{});  // format "auto"
  return 0;
}
