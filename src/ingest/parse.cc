#include "ingest/parse.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <future>

#include "ingest/binary_edges.h"
#include "ingest/formats.h"
#include "ingest/gapbs_sg.h"
#include "ingest/parse_fields.h"
#include "io/input_stream.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace tg {

namespace {

constexpr size_t kChunkBytes = size_t{32} << 20;  // text parsed per round, at most
// The first round's buffer. Buffers double each round the input fills them, up to kChunkBytes:
// a small file costs kilobytes, not two 32 MiB buffers (zeroing those took 10 ms per file), and
// inputs of a few KiB already cross rounds, which is how the fuzzers reach the carry code.
constexpr size_t kFirstChunkBytes = size_t{4} << 10;
// Rounds from this size on read the next chunk on another thread while they are parsed; smaller
// ones read it when it is needed, since starting a thread costs more than such a read.
constexpr size_t kReadAheadBytes = size_t{1} << 20;

std::string lower_extension(const std::string& path) {
  std::filesystem::path p(path);
  std::string ext = p.extension().string();
  for (const char* compressed : {".gz", ".xz", ".zst"}) {
    if (ext == compressed) {
      p = p.stem();
      ext = p.extension().string();
    }
  }
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

std::string sniff_content(const std::string& path) {
  auto stream = InputStream::open(path);
  std::string head(65536, '\0');
  head.resize(stream->read(head.data(), head.size()));
  size_t pos = 0;
  bool dimacs_comment = false;
  while (pos < head.size()) {
    size_t end = head.find('\n', pos);
    if (end == std::string::npos) end = head.size();
    std::string_view line(head.data() + pos, end - pos);
    pos = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.starts_with("%%MatrixMarket") || line.starts_with("%%matrixmarket")) return "mtx";
    if (line.starts_with("p sp ")) return "dimacs";
    if (line.starts_with("p tw ")) return "pace";
    if (line.starts_with("a ")) return "dimacs";
    if (line.starts_with("c ") || line == "c") {
      dimacs_comment = true;
      continue;
    }
    if (line.front() == '#' || line.front() == '%') continue;
    if (dimacs_comment) return "dimacs";
    if (line.find(',') != std::string_view::npos) return "csv";
    return "edgelist";
  }
  return dimacs_comment ? "dimacs" : "edgelist";
}

// Text never holds a NUL byte or control characters other than tab, newline, carriage return,
// form feed and vertical tab: a file that starts with one is binary (an image, an executable, a
// graph in some binary format), and saying so beats "expected an edge with 2 fields" at line 1.
void refuse_binary(const std::string& path, const char* head, size_t size) {
  for (size_t k = 0; k < std::min<size_t>(size, 65536); ++k) {
    const auto c = static_cast<unsigned char>(head[k]);
    if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') continue;
    fail(
        "{}: this is not a text edge list: byte {} is 0x{:02x}, which text does not hold (a binary "
        "file? "
        "tiergraph reads text formats, gzip/xz/zstd streams of them, and its own graph files)",
        path, k, c);
  }
}

// A stretch of complete lines handed to one thread.
struct Stretch {
  const char* begin;
  const char* end;
  uint64_t first_line;   // 1-based line number of the first line
  uint64_t first_index;  // data lines before it (METIS vertex numbering)
};

template <typename F>
void for_each_line(const char* begin, const char* end, F f) {
  const char* p = begin;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* line_end = nl ? nl : end;
    const char* trimmed = line_end;
    if (trimmed > p && trimmed[-1] == '\r') --trimmed;
    f(std::string_view(p, static_cast<size_t>(trimmed - p)));
    p = line_end + 1;
  }
}

// The in-memory reader's sink: the edge array grows as batches arrive, 32-bit ids until an id
// needs 64.
class ArraySink final : public EdgeBatchSink {
 public:
  void start(bool weighted, bool) override {
    if (weighted) edges_ = EdgeArray<uint32_t, double>();
  }
  void add(std::span<const EdgeBatch> batches, uint64_t max_id) override {
    size_t total = 0;
    for (const auto& b : batches) total += b.size();
    if (max_id > UINT32_MAX) widen();
    std::visit(
        [&]<typename Id, typename W>(EdgeArray<Id, W>& out) {
          size_t at = out.size();
          out.resize(at + total);
          std::vector<size_t> starts;
          for (const auto& b : batches) {
            starts.push_back(at);
            at += b.size();
          }
#pragma omp parallel for schedule(dynamic, 1)
          for (size_t k = 0; k < batches.size(); ++k) {
            Edge<Id, W>* dst = out.data() + starts[k];
            for (const auto& e : batches[k]) {
              if constexpr (std::is_same_v<W, double>) {
                *dst++ = {static_cast<Id>(e.u), static_cast<Id>(e.v), e.w};
              } else {
                *dst++ = {static_cast<Id>(e.u), static_cast<Id>(e.v), {}};
              }
            }
          }
        },
        edges_);
  }
  AnyEdgeArray take() { return std::move(edges_); }

 private:
  void widen() {
    std::visit(
        [&]<typename Id, typename W>(EdgeArray<Id, W>& in) {
          if constexpr (std::is_same_v<Id, uint32_t>) {
            EdgeArray<uint64_t, W> wide(in.size());
#pragma omp parallel for
            for (size_t i = 0; i < in.size(); ++i) wide[i] = {in[i].u, in[i].v, in[i].w};
            edges_ = std::move(wide);
          }
        },
        edges_);
  }
  AnyEdgeArray edges_;
};

}  // namespace

std::string detect_format(const std::string& path, const ParseOptions& options) {
  if (options.format != "auto") return options.format;
  if (path == "-") {
    // Sniffing would consume standard input, which cannot be read twice.
    fail(
        "reading standard input needs --format (edgelist, csv, tsv, mtx, dimacs, pace, metis, "
        "cedge, bin32 or bin64)");
  }
  const std::string ext = lower_extension(path);
  if (ext == ".mtx") return "mtx";
  if (ext == ".graph" || ext == ".metis") return "metis";
  if (ext == ".csv") return "csv";
  if (ext == ".tsv") return "tsv";
  if (ext == ".cedge") return "cedge";
  if (ext == ".sg") return "sg";
  if (ext == ".wsg") return "wsg";
  if (ext == ".bin32") return "bin32";  // the raw records `generate -o x.bin32` writes
  if (ext == ".bin64") return "bin64";
  if (ext == ".gr" || ext == ".dimacs") {
    const std::string sniffed = sniff_content(path);
    return sniffed == "pace" ? "pace" : "dimacs";
  }
  return sniff_content(path);
}

EdgeList read_edges(const std::string& path, const ParseOptions& options, EdgeBatchSink& sink) {
  const std::string format_name = detect_format(path, options);
  if (is_binary_format(format_name) || is_gapbs_format(format_name)) {
    ParseOptions binary = options;
    binary.format = format_name;
    return is_gapbs_format(format_name) ? read_gapbs_graph(path, binary, sink)
                                        : read_binary_edges(path, binary, sink);
  }
  if (options.weighted)
    fail("--weighted describes the records of --format bin32 or bin64; {} is text", path);
  auto format = parse::make_format(format_name, options);
  auto stream = InputStream::open(path);
  Progress progress("reading", stream->raw_size(), options.progress);

  size_t chunk = kFirstChunkBytes;  // this round's buffer size
  std::vector<char> buffer(chunk + 1);
  size_t held = 0;  // bytes of a partial last line carried to the next round
  uint64_t next_line = 1, data_lines = 0;
  parse::LineFormat::Totals totals;
  bool in_header = true, at_end = false;
  bool started = false;
  // The sink learns, once the opening lines are read, what they said (weights, symmetry).
  auto start_sink = [&] {
    EdgeList declared;
    format->describe(declared);
    sink.start(format->weighted(), declared.undirected_input);
    started = true;
  };
  uint64_t edges_read = 0;
  const size_t largest_chunk =
      options.chunk_bytes > 0 ? std::max(options.chunk_bytes, kFirstChunkBytes) : kChunkBytes;
  EdgeList list;
  list.source_name = path;
  const int threads = max_threads();

  // Each round reads the next chunk into next_buffer (ahead, on another thread, for large ones).
  std::vector<char> next_buffer;
  auto read_into = [&stream](char* dst, size_t n) {
    size_t got = 0;
    while (got < n) {
      const size_t r = stream->read(dst + got, n - got);
      if (r == 0) break;
      got += r;
    }
    return got;
  };
  size_t asked = chunk;  // bytes the last read asked for: getting fewer means the data ended
  size_t got = read_into(buffer.data(), asked);
  refuse_binary(path, buffer.data(), got);
  while (got > 0 || held > 0) {
    size_t filled = held + got;
    at_end = got < asked || got == 0;
    // Complete lines end at the last newline (or at the end of the data). A buffer without one
    // is carried whole into the next, larger buffer, until the largest.
    size_t usable = filled;
    if (!at_end) {
      const char* last_nl = static_cast<const char*>(memrchr(buffer.data(), '\n', filled));
      if (last_nl == nullptr && chunk == largest_chunk) {
        fail("{}:{}: a line is longer than {} KiB", path, next_line, largest_chunk >> 10);
      }
      usable = last_nl ? static_cast<size_t>(last_nl - buffer.data()) + 1 : 0;
      chunk = std::min(2 * chunk, largest_chunk);
    }
    const char* begin = buffer.data();
    const char* end = buffer.data() + usable;
    // Start reading the next chunk (while this one is parsed, if large); the carried partial line
    // goes first.
    const size_t carry = filled - usable;
    next_buffer.resize(chunk + 1);
    std::memcpy(next_buffer.data(), buffer.data() + usable, carry);
    std::future<size_t> next_read;
    if (!at_end) {
      asked = chunk - carry;
      const auto policy = chunk >= kReadAheadBytes ? std::launch::async : std::launch::deferred;
      next_read = std::async(policy, read_into, next_buffer.data() + carry, asked);
    }
    // Opening lines, one at a time.
    while (in_header && begin < end) {
      const char* nl =
          static_cast<const char*>(std::memchr(begin, '\n', static_cast<size_t>(end - begin)));
      const char* line_end = nl ? nl : end;
      std::string_view line(begin, static_cast<size_t>(line_end - begin));
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!format->header_line(line, parse::Where{path, next_line})) {
        in_header = false;
        break;
      }
      begin = line_end + (nl ? 1 : 0);
      ++next_line;
    }
    if (!in_header && !started) start_sink();
    if (!in_header && begin < end) {
      // Cut into stretches at line boundaries, count lines (and data lines) before each.
      std::vector<Stretch> stretches;
      const size_t bytes = static_cast<size_t>(end - begin);
      const char* cut = begin;
      for (int t = 0; t < threads * 4 && cut < end; ++t) {
        const char* target =
            begin + bytes * static_cast<size_t>(t + 1) / (static_cast<size_t>(threads) * 4);
        const char* stop = target >= end ? end
                                         : static_cast<const char*>(std::memchr(
                                               target, '\n', static_cast<size_t>(end - target)));
        stop = stop ? std::min(stop + 1, end) : end;
        if (stop > cut) stretches.push_back({cut, stop, 0, 0});
        cut = stop;
      }
      std::vector<uint64_t> lines(stretches.size()), counted(stretches.size());
#pragma omp parallel for schedule(static, 1)
      for (size_t k = 0; k < stretches.size(); ++k) {
        lines[k] = static_cast<uint64_t>(std::count(stretches[k].begin, stretches[k].end, '\n'));
        if (format->blank_lines_are_data()) {
          uint64_t c = 0;
          for_each_line(stretches[k].begin, stretches[k].end,
                        [&](std::string_view line) { c += !format->is_comment(line); });
          counted[k] = c;
        }
      }
      for (size_t k = 0; k < stretches.size(); ++k) {
        stretches[k].first_line = next_line;
        stretches[k].first_index = data_lines;
        next_line += lines[k];
        data_lines += counted[k];
      }
      std::vector<parse::Batch> batches(stretches.size());
      std::vector<uint64_t> parsed_lines(stretches.size(), 0);
#pragma omp parallel for schedule(dynamic, 1)
      for (size_t k = 0; k < stretches.size(); ++k) {
        auto& batch = batches[k];
        batch.edges.reserve(static_cast<size_t>(stretches[k].end - stretches[k].begin) / 12);
        uint64_t index = stretches[k].first_index, data = 0;
        const bool blank_is_data = format->blank_lines_are_data();
        for_each_line(stretches[k].begin, stretches[k].end, [&](std::string_view line) {
          if (batch.error_at) return;
          if (format->is_comment(line)) return;
          if (!blank_is_data && parse::is_blank(line)) return;
          format->data_line(line, index++, batch);
          ++data;
        });
        parsed_lines[k] = data;
      }
      for (size_t k = 0; k < stretches.size(); ++k) {
        const auto& b = batches[k];
        if (b.error_at) {
          // Line and column of the first error, counted only now that one happened.
          const char* line_start = stretches[k].begin;
          uint64_t line = stretches[k].first_line;
          for (const char* p = stretches[k].begin; p < b.error_at; ++p) {
            if (*p == '\n') {
              ++line;
              line_start = p + 1;
            }
          }
          fail("{}:{}:{}: {}", path, line, b.error_at - line_start + 1, b.error);
        }
        totals.entries += b.entries;
        totals.listed_by_lower += b.listed_by_lower;
        totals.listed_by_higher += b.listed_by_higher;
        list.weight_info.merge(b.weights);
        if (!format->blank_lines_are_data()) data_lines += parsed_lines[k];
      }
      std::vector<EdgeBatch> spans;
      uint64_t max_id = 0;
      for (const auto& b : batches) {
        spans.emplace_back(b.edges);
        max_id = std::max(max_id, b.max_id);
        edges_read += b.edges.size();
      }
      sink.add(spans, max_id);
    }
    held = carry;
    std::swap(buffer, next_buffer);
    got = next_read.valid() ? next_read.get() : 0;
    progress.update(stream->raw_bytes_consumed());
    if (at_end) break;
  }
  progress.finish();
  if (!started) start_sink();
  totals.edges = edges_read;
  totals.data_lines = data_lines;
  format->finish(path, totals);
  format->describe(list);
  if (options.id_mode) {
    if (*options.id_mode == IdMode::kIndex && list.id_mode == IdMode::kLabel)
      list.id_mode = IdMode::kIndex;
  }
  if (edges_read == 0 && !list.declared_vertices)
    fail("{}: no edges found (the input is empty)", path);
  return list;
}

EdgeList read_edge_list(const std::string& path, const ParseOptions& options) {
  ArraySink sink;
  EdgeList list = read_edges(path, options, sink);
  list.edges = sink.take();
  return list;
}

}  // namespace tg
