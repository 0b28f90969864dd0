#include "ingest/binary_edges.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "io/input_stream.h"
#include "util/error.h"
#include "util/option_names.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace tg {

namespace {

template <typename T>
T load(const unsigned char* p) {
  T x;
  std::memcpy(&x, p, sizeof(T));
  return x;
}

}  // namespace

EdgeList read_binary_edges(const std::string& path, const ParseOptions& options,
                           EdgeBatchSink& sink) {
  const size_t id_bytes = options.format == "bin64" ? 8 : 4;
  const size_t record = 2 * id_bytes + (options.weighted ? 4 : 0);
  const IdMode mode = options.id_mode.value_or(IdMode::kLabel);
  if (options.vertices && mode != IdMode::kIndex) {
    fail("{} applies to index mode; add {}", option_name("vertices"), option_with("ids", "index"));
  }
  EdgeList list;
  list.source_name = path;
  list.id_mode = mode;
  list.declared_vertices = options.vertices;
  auto stream = InputStream::open(path);
  Progress progress("reading", stream->raw_size(), options.progress);
  const size_t chunk =
      std::max<size_t>(options.chunk_bytes > 0 ? options.chunk_bytes : size_t{32} << 20,
                       record * 1024) /
      record * record;
  std::vector<unsigned char> buffer(chunk);
  const int threads = max_threads();
  std::vector<std::vector<Edge<uint64_t, double>>> parts(static_cast<size_t>(threads));
  sink.start(options.weighted, false);
  uint64_t offset = 0;  // of the buffer's first byte in the (decompressed) input
  size_t held = 0;      // bytes of a partial record carried to the next round
  for (;;) {
    size_t got = held;
    while (got < buffer.size()) {
      const size_t n =
          stream->read(reinterpret_cast<char*>(buffer.data()) + got, buffer.size() - got);
      if (n == 0) break;
      got += n;
    }
    const size_t records = got / record;
    if (records == 0) {
      if (got > 0) {
        fail(
            "{}: the input ends {} bytes into a record at offset {} (records are {} bytes: two "
            "{}-byte ids{}); a truncated file?",
            path, got, offset, record, id_bytes, options.weighted ? " and a 4-byte weight" : "");
      }
      break;
    }
    // Each thread decodes a stretch of the records; the first bad id (in input order) fails.
    std::vector<uint64_t> bad(static_cast<size_t>(threads), UINT64_MAX);
    WeightInfo weights;
#pragma omp parallel num_threads(threads)
    {
      const size_t t = static_cast<size_t>(omp_get_thread_num());
      const size_t a = records * t / static_cast<size_t>(threads),
                   b = records * (t + 1) / static_cast<size_t>(threads);
      auto& part = parts[t];
      part.resize(b - a);
      WeightInfo local;
      for (size_t k = a; k < b; ++k) {
        const unsigned char* p = buffer.data() + k * record;
        const uint64_t u = id_bytes == 8 ? load<uint64_t>(p) : load<uint32_t>(p);
        const uint64_t v = id_bytes == 8 ? load<uint64_t>(p + 8) : load<uint32_t>(p + 4);
        double w = 0;
        if (options.weighted) {
          w = static_cast<double>(load<int32_t>(p + 2 * id_bytes));
          local.add(w);
        }
        if (list.declared_vertices &&
            (u >= *list.declared_vertices || v >= *list.declared_vertices) && bad[t] == UINT64_MAX)
          bad[t] = k;
        part[k - a] = {u, v, w};
      }
#pragma omp critical(tg_binary_weights)
      weights.merge(local);
    }
    for (uint64_t k : bad) {
      if (k == UINT64_MAX) continue;
      const unsigned char* p = buffer.data() + k * record;
      const uint64_t u = id_bytes == 8 ? load<uint64_t>(p) : load<uint32_t>(p);
      const uint64_t v = id_bytes == 8 ? load<uint64_t>(p + 8) : load<uint32_t>(p + 4);
      fail("{}: record {} (offset {}): vertex id {} is not below {} {}", path,
           (offset / record) + k, offset + k * record, u >= *list.declared_vertices ? u : v,
           option_name("vertices"), *list.declared_vertices);
    }
    list.weight_info.merge(weights);
    uint64_t max_id = 0;
    std::vector<EdgeBatch> batches;
    for (const auto& part : parts) {
      batches.emplace_back(part);
      for (const auto& e : part) max_id = std::max(max_id, std::max(e.u, e.v));
    }
    sink.add(batches, max_id);
    held = got - records * record;
    std::memmove(buffer.data(), buffer.data() + records * record, held);
    offset += records * record;
    progress.update(stream->raw_bytes_consumed());
    if (got < buffer.size()) {
      if (held > 0) {
        fail(
            "{}: the input ends {} bytes into a record at offset {} (records are {} bytes: two "
            "{}-byte ids{}); a truncated file?",
            path, held, offset, record, id_bytes, options.weighted ? " and a 4-byte weight" : "");
      }
      break;
    }
  }
  progress.finish();
  if (offset == 0 && !list.declared_vertices) fail("{}: no edges found (the input is empty)", path);
  return list;
}

}  // namespace tg
