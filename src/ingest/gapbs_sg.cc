#include "ingest/gapbs_sg.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/read_at.h"

namespace tg {

namespace {

constexpr uint64_t kHeaderBytes = 1 + 8 + 8;

class Fd {
 public:
  explicit Fd(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) fail("{}: cannot open: {}", path, std::strerror(errno));
  }
  ~Fd() { ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

void read_range(int fd, void* into, uint64_t bytes, uint64_t offset, const std::string& path) {
  if (const auto failure = read_at(fd, static_cast<unsigned char*>(into), bytes, offset)) {
    fail("{}: reading {} bytes at offset {} failed at byte {}: {}", path, bytes, offset,
         failure->offset, failure->reason);
  }
}

}  // namespace

EdgeList read_gapbs_graph(const std::string& path, const ParseOptions& options,
                          EdgeBatchSink& sink) {
  const bool weighted = options.format == "wsg";
  const uint64_t neighbor_bytes = weighted ? 8 : 4;
  if (path == "-")
    fail("standard input cannot be read as a GAPBS .{} (it is read at offsets); give its file",
         options.format);
  for (const char* compressed : {".gz", ".xz", ".zst"}) {
    if (path.ends_with(compressed))
      fail("{}: a GAPBS .{} is read at offsets: decompress it first", path, options.format);
  }
  if (options.weighted)
    fail(
        "--weighted describes bin32/bin64 records; a .wsg file says it is weighted by its name "
        "(--format wsg)");
  Fd fd(path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail("{}: cannot stat: {}", path, std::strerror(errno));
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < kHeaderBytes)
    fail("{}: {} bytes is shorter than a GAPBS .{} header ({} bytes)", path, size, options.format,
         kHeaderBytes);
  unsigned char header[kHeaderBytes];
  read_range(fd.get(), header, kHeaderBytes, 0, path);
  if (header[0] > 1)
    fail("{}: byte 0 must be 0 or 1 (the 'directed' flag of a GAPBS .{}), found {}", path,
         options.format, header[0]);
  const bool directed = header[0] == 1;
  int64_t arcs = 0, n = 0;
  std::memcpy(&arcs, header + 1, 8);
  std::memcpy(&n, header + 9, 8);
  if (n < 0 || arcs < 0 || n > (int64_t{1} << 31)) {
    fail(
        "{}: the header's counts ({} arcs, {} vertices at offsets 1 and 9) are not those of a "
        "GAPBS .{} (int32 ids: at most 2^31 vertices)",
        path, arcs, n, options.format);
  }
  const auto vertices = static_cast<uint64_t>(n), stored = static_cast<uint64_t>(arcs);
  const uint64_t csr = (vertices + 1) * 8 + stored * neighbor_bytes;
  const uint64_t expected = kHeaderBytes + csr * (directed ? 2 : 1);
  if (size != expected) {
    fail(
        "{}: {} bytes, but a {} GAPBS .{} of {} vertices and {} arcs takes {} (a truncated or "
        "different file?)",
        path, size, directed ? "directed" : "undirected", options.format, vertices, stored,
        expected);
  }
  EdgeList list;
  list.source_name = path;
  list.id_mode = IdMode::kIndex;
  list.declared_vertices = vertices;
  list.undirected_input = !directed;
  sink.start(weighted, !directed);
  const uint64_t offsets_at = kHeaderBytes, neighbors_at = offsets_at + (vertices + 1) * 8;
  // Stretches of vertices whose arcs fill about a chunk.
  const uint64_t chunk = std::max<uint64_t>(
      options.chunk_bytes > 0 ? options.chunk_bytes : uint64_t{32} << 20, 1 << 16);
  Progress progress("reading", csr, options.progress);
  std::vector<int64_t> offsets;
  std::vector<unsigned char> neighbors;
  const int threads = max_threads();
  std::vector<std::vector<Edge<uint64_t, double>>> parts(static_cast<size_t>(threads));
  int64_t previous_end = 0;
  uint64_t v0 = 0;
  while (v0 < vertices || (vertices == 0 && v0 == 0)) {
    const uint64_t v1 = std::min(vertices, v0 + std::max<uint64_t>(1, chunk / 8 / 4));
    offsets.resize(v1 - v0 + 1);
    read_range(fd.get(), offsets.data(), offsets.size() * 8, offsets_at + v0 * 8, path);
    if (offsets.front() != previous_end) {
      fail("{}: offset of vertex {} (at byte {}) is {}, not {} where the vertex before it ended",
           path, v0, offsets_at + v0 * 8, offsets.front(), previous_end);
    }
    for (uint64_t k = 1; k < offsets.size(); ++k) {
      if (offsets[k] < offsets[k - 1] || offsets[k] > arcs) {
        fail(
            "{}: offset of vertex {} (at byte {}) is {}: offsets must grow and stay within the {} "
            "arcs",
            path, v0 + k, offsets_at + (v0 + k) * 8, offsets[k], arcs);
      }
    }
    if (v1 == vertices && offsets.back() != arcs) {
      fail("{}: the last offset (at byte {}) is {}, not the header's {} arcs", path,
           offsets_at + vertices * 8, offsets.back(), arcs);
    }
    const auto first = static_cast<uint64_t>(offsets.front()),
               last = static_cast<uint64_t>(offsets.back());
    neighbors.resize((last - first) * neighbor_bytes);
    read_range(fd.get(), neighbors.data(), neighbors.size(), neighbors_at + first * neighbor_bytes,
               path);
    std::vector<uint64_t> bad(static_cast<size_t>(threads), UINT64_MAX);
    WeightInfo weights;
#pragma omp parallel num_threads(threads)
    {
      const auto t = static_cast<size_t>(omp_get_thread_num());
      const uint64_t a = v0 + (v1 - v0) * t / static_cast<size_t>(threads),
                     b = v0 + (v1 - v0) * (t + 1) / static_cast<size_t>(threads);
      auto& part = parts[t];
      part.clear();
      WeightInfo local;
      for (uint64_t u = a; u < b; ++u) {
        for (auto j = static_cast<uint64_t>(offsets[u - v0]);
             j < static_cast<uint64_t>(offsets[u - v0 + 1]); ++j) {
          const unsigned char* p = neighbors.data() + (j - first) * neighbor_bytes;
          int32_t v = 0, w = 0;
          std::memcpy(&v, p, 4);
          if (weighted) std::memcpy(&w, p + 4, 4);
          if (v < 0 || static_cast<uint64_t>(v) >= vertices) {
            if (bad[t] == UINT64_MAX) bad[t] = j;
            continue;
          }
          if (weighted) local.add(w);
          part.push_back({u, static_cast<uint64_t>(v), static_cast<double>(w)});
        }
      }
#pragma omp critical(tg_gapbs_weights)
      weights.merge(local);
    }
    for (uint64_t j : bad) {
      if (j == UINT64_MAX) continue;
      int32_t v = 0;
      std::memcpy(&v, neighbors.data() + (j - first) * neighbor_bytes, 4);
      fail("{}: arc {} (at byte {}) names vertex {}, outside [0, {})", path, j,
           neighbors_at + j * neighbor_bytes, v, vertices);
    }
    list.weight_info.merge(weights);
    std::vector<EdgeBatch> batches(parts.begin(), parts.end());
    sink.add(batches, vertices > 0 ? vertices - 1 : 0);
    previous_end = offsets.back();
    progress.update((v1 + 1) * 8 + last * neighbor_bytes);
    if (vertices == 0) break;
    v0 = v1;
  }
  progress.finish();
  return list;
}

}  // namespace tg
