// Tests for InputStream: each format round-trips, whatever the read size; compression is found by
// content, not name; concatenated streams read fully; truncated or corrupt data is an error that
// names the file. Test files are compressed here with the libraries' own encoders.
#include "io/input_stream.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "temp_file.h"
#include "util/error.h"

namespace tg {
namespace {

namespace fs = std::filesystem;

// About 3 MB of edge-list lines with random numbers: poorly compressible enough that every
// format's compressed file is over 1 MiB too, so reads cross the input buffer's boundary.
const std::string& sample_text() {
  static const std::string text = [] {
    std::mt19937 rng(42);
    std::string s;
    while (s.size() < 3'000'000) {
      s += std::to_string(rng()) + '\t' + std::to_string(rng() % 100000) + '\n';
    }
    return s;
  }();
  return text;
}

std::string gzip(const std::string& data) {
  z_stream zs{};
  // windowBits 31 = 15 + 16: write a gzip wrapper rather than zlib's.
  if (deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2");
  }
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate");
  return out;
}

std::string xz(const std::string& data) {
  lzma_stream strm = LZMA_STREAM_INIT;
  if (lzma_easy_encoder(&strm, 1, LZMA_CHECK_CRC64) != LZMA_OK) {
    throw std::runtime_error("lzma_easy_encoder");
  }
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  strm.next_in = reinterpret_cast<const uint8_t*>(data.data());
  strm.avail_in = data.size();
  strm.next_out = reinterpret_cast<uint8_t*>(out.data());
  strm.avail_out = out.size();
  const lzma_ret rc = lzma_code(&strm, LZMA_FINISH);
  out.resize(strm.total_out);
  lzma_end(&strm);
  if (rc != LZMA_STREAM_END) throw std::runtime_error("lzma_code");
  return out;
}

// xz(data) with its block header declaring the largest LZMA2 dictionary, 4 GiB - 1, which no
// encoder writes (liblzma's stop at 1.5 GiB); the header's CRC32 is recomputed to match.
std::string xz_declaring_4gib_dictionary(const std::string& data) {
  std::string s = xz(data);
  const size_t header = 12;  // the block header follows the 12-byte stream header
  const size_t size = (static_cast<uint8_t>(s[header]) + 1) * 4;
  const auto flags = static_cast<uint8_t>(s[header + 1]);
  size_t i = header + 2;
  for (int present : {0x40, 0x80}) {  // optional compressed and uncompressed sizes (varints)
    if (flags & present) {
      while (static_cast<uint8_t>(s[i]) & 0x80) ++i;
      ++i;
    }
  }
  // The filter flags: LZMA2 (0x21), one byte of properties, the dictionary size code (40: 4 GiB -
  // 1).
  if (s[i] != 0x21 || s[i + 1] != 1) throw std::runtime_error("unexpected xz block header");
  s[i + 2] = 40;
  const uint32_t crc = lzma_crc32(reinterpret_cast<const uint8_t*>(s.data() + header), size - 4, 0);
  for (int k = 0; k < 4; ++k)
    s[header + size - 4 + k] = static_cast<char>(crc >> (8 * k));  // little-endian
  return s;
}

std::string zstd(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  // With a content checksum, as the zstd command writes by default: without one, a flipped byte
  // in a literal run decodes to wrong text that no decoder can notice.
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) throw std::runtime_error(ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

std::string compress(Compression c, const std::string& data) {
  switch (c) {
    case Compression::kNone:
      return data;
    case Compression::kGzip:
      return gzip(data);
    case Compression::kXz:
      return xz(data);
    case Compression::kZstd:
      return zstd(data);
  }
  return data;
}

// sample_text() compressed, computed once per format: xz is slow enough to matter.
const std::string& compressed_sample(Compression c) {
  static std::string cache[4];
  std::string& s = cache[static_cast<int>(c)];
  if (s.empty()) s = compress(c, sample_text());
  return s;
}

using testing::TempFile;

const char* suffix(Compression c) {
  switch (c) {
    case Compression::kNone:
      return ".txt";
    case Compression::kGzip:
      return ".gz";
    case Compression::kXz:
      return ".xz";
    case Compression::kZstd:
      return ".zst";
  }
  return "";
}

// Reads the whole stream with reads of `chunk` bytes; every read but the last must fill `chunk`.
std::string read_all(InputStream& in, size_t chunk) {
  std::string out;
  std::vector<char> buf(chunk);
  bool short_read = false;
  for (;;) {
    const size_t n = in.read(buf.data(), chunk);
    if (n == 0) break;
    EXPECT_FALSE(short_read) << "a short read came before the end";
    short_read = n < chunk;
    out.append(buf.data(), n);
  }
  return out;
}

std::string read_file(const std::string& path) { return read_all(*InputStream::open(path), 65536); }

// Expects `f` to throw tg::Error whose message contains every one of `parts`.
template <typename F>
void expect_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no tg::Error thrown";
  } catch (const Error& e) {
    const std::string message = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos)
          << "message \"" << message << "\" lacks \"" << part << '"';
    }
  }
}

class RoundTrip : public ::testing::TestWithParam<std::tuple<Compression, size_t>> {};

TEST_P(RoundTrip, ReadsBackExactBytes) {
  const auto [compression, chunk] = GetParam();
  const std::string& data = compressed_sample(compression);
  TempFile file(suffix(compression), data);
  auto in = InputStream::open(file.path());
  EXPECT_EQ(in->compression(), compression);
  EXPECT_EQ(in->path(), file.path());
  EXPECT_EQ(in->raw_size(), data.size());
  const std::string text = read_all(*in, chunk);
  EXPECT_EQ(text.size(), sample_text().size());
  EXPECT_TRUE(text == sample_text());
  EXPECT_EQ(in->raw_bytes_consumed(), data.size());
  EXPECT_EQ(in->read(nullptr, 0), 0u);
  char c;
  EXPECT_EQ(in->read(&c, 1), 0u) << "reading past the end gives 0 again";
}

INSTANTIATE_TEST_SUITE_P(AllFormats, RoundTrip,
                         ::testing::Combine(::testing::Values(Compression::kNone,
                                                              Compression::kGzip, Compression::kXz,
                                                              Compression::kZstd),
                                            ::testing::Values(size_t{1}, size_t{7}, size_t{4096},
                                                              size_t{1} << 20, size_t{3} << 20)),
                         [](const auto& param_info) {
                           return std::string(compression_name(std::get<0>(param_info.param))) +
                                  "_" + std::to_string(std::get<1>(param_info.param));
                         });

TEST(InputStream, CompressionNames) {
  EXPECT_STREQ(compression_name(Compression::kNone), "none");
  EXPECT_STREQ(compression_name(Compression::kGzip), "gzip");
  EXPECT_STREQ(compression_name(Compression::kXz), "xz");
  EXPECT_STREQ(compression_name(Compression::kZstd), "zstd");
}

TEST(InputStream, DetectsByContentNotName) {
  TempFile gz_as_txt(".txt", compressed_sample(Compression::kGzip));
  TempFile zst_as_gz(".gz", compressed_sample(Compression::kZstd));
  EXPECT_EQ(InputStream::open(gz_as_txt.path())->compression(), Compression::kGzip);
  EXPECT_EQ(InputStream::open(zst_as_gz.path())->compression(), Compression::kZstd);
  EXPECT_TRUE(read_file(gz_as_txt.path()) == sample_text());
  EXPECT_TRUE(read_file(zst_as_gz.path()) == sample_text());
}

TEST(InputStream, ConcatenatedStreamsReadFully) {
  // Split unevenly so that the joint falls inside the input buffer, not on its edge.
  const std::string& text = sample_text();
  const std::string a = text.substr(0, 1'234'567), b = text.substr(1'234'567);
  for (Compression c : {Compression::kGzip, Compression::kXz, Compression::kZstd}) {
    SCOPED_TRACE(compression_name(c));
    TempFile file(suffix(c), compress(c, a) + compress(c, b) + compress(c, "tail\n"));
    EXPECT_TRUE(read_file(file.path()) == text + "tail\n");
  }
}

TEST(InputStream, EmptyFiles) {
  TempFile empty(".txt", "");
  auto in = InputStream::open(empty.path());
  EXPECT_EQ(in->compression(), Compression::kNone);
  EXPECT_EQ(in->raw_size(), 0u);
  char buf[16];
  EXPECT_EQ(in->read(buf, sizeof buf), 0u);
  // A compressed empty text is a valid stream with no data.
  for (Compression c : {Compression::kGzip, Compression::kXz, Compression::kZstd}) {
    TempFile file(suffix(c), compress(c, ""));
    EXPECT_EQ(read_file(file.path()), "") << compression_name(c);
  }
}

TEST(InputStream, ShortPlainFileBelowMagicLength) {
  TempFile file(".txt", "1 2");
  EXPECT_EQ(read_file(file.path()), "1 2");
}

TEST(InputStream, FileLongerThanItsStatSize) {
  // The buffer is sized from the file's stat size; procfs says 0 and still has content.
  const std::string path = "/proc/self/mountinfo";
  if (!fs::exists(path)) GTEST_SKIP() << "no " << path;
  std::ifstream direct(path, std::ios::binary);
  const std::string want{std::istreambuf_iterator<char>(direct), std::istreambuf_iterator<char>()};
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(read_file(path), want);
}

TEST(InputStream, TruncatedStreamsThrow) {
  for (Compression c : {Compression::kGzip, Compression::kXz, Compression::kZstd}) {
    const std::string& data = compressed_sample(c);
    for (size_t keep : {data.size() * 8 / 10, data.size() - 1}) {
      SCOPED_TRACE(std::string(compression_name(c)) + " keeping " + std::to_string(keep));
      TempFile file(suffix(c), data.substr(0, keep));
      expect_error([&] { read_file(file.path()); },
                   {file.path(), "truncated", compression_name(c)});
    }
  }
}

TEST(InputStream, TruncatedAtMemberBoundaryOfLaterMemberThrows) {
  // A second gzip member cut inside its header is still truncation, not a clean end.
  TempFile file(".gz", gzip("first\n") + gzip("second\n").substr(0, 5));
  expect_error([&] { read_file(file.path()); }, {file.path(), "truncated"});
}

TEST(InputStream, CorruptDataThrows) {
  for (Compression c : {Compression::kGzip, Compression::kXz, Compression::kZstd}) {
    SCOPED_TRACE(compression_name(c));
    std::string data = compressed_sample(c);
    data[data.size() / 2] = static_cast<char>(data[data.size() / 2] ^ 0x55);
    TempFile file(suffix(c), data);
    expect_error([&] { read_file(file.path()); }, {file.path()});
  }
  // xz's message says what is wrong.
  std::string data = compressed_sample(Compression::kXz);
  data[data.size() / 2] = static_cast<char>(data[data.size() / 2] ^ 0x55);
  TempFile file(".xz", data);
  expect_error([&] { read_file(file.path()); }, {file.path(), "corrupt xz data"});
}

TEST(InputStream, XzDictionaryBeyondEncodersThrows) {
  // Found while fuzzing: 64 bytes made the decoder allocate the 4 GiB dictionary they declare.
  TempFile file(".xz", xz_declaring_4gib_dictionary("1 2\n"));
  expect_error([&] { read_file(file.path()); }, {file.path(), "corrupt xz data", "dictionary"});
}

TEST(InputStream, GarbageAfterGzipThrows) {
  TempFile file(".gz", gzip("data\n") + "not gzip");
  expect_error([&] { read_file(file.path()); }, {file.path(), "corrupt gzip data"});
}

TEST(InputStream, MissingFileThrows) {
  const std::string path =
      (fs::temp_directory_path() / ("tg_no_such_file_" + std::to_string(::getpid()))).string();
  expect_error([&] { InputStream::open(path); },
               {"cannot open '" + path + "'", "No such file or directory"});
}

TEST(InputStream, DirectoryThrows) {
  const std::string path = fs::temp_directory_path().string();
  expect_error([&] { InputStream::open(path); }, {path, "Is a directory"});
}

TEST(InputStream, StandardInputIsDetectedToo) {
  TempFile file(".gz", compressed_sample(Compression::kGzip));
  const int saved = ::dup(STDIN_FILENO);
  ASSERT_GE(saved, 0);
  const int fd = ::open(file.path().c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::dup2(fd, STDIN_FILENO), STDIN_FILENO);
  ::close(fd);
  std::string text;
  Compression compression = Compression::kNone;
  try {
    auto in = InputStream::open("-");
    compression = in->compression();
    text = read_all(*in, 100'000);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
  }
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  EXPECT_EQ(compression, Compression::kGzip);
  EXPECT_TRUE(text == sample_text());
}

}  // namespace
}  // namespace tg
