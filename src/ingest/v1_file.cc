#include "ingest/v1_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <span>

#include "graph/checksum.h"
#include "util/error.h"

namespace tg {

namespace {

// Version 1's section kinds and index rows (positions in elements of their sections).
enum class V1Section : uint32_t {
  kRanges = 1,
  kOutIndex = 2,
  kOutOffsets = 3,
  kOutNeighbors = 4,
  kOutWeights = 5,
  kIdMap = 10
};
struct V1Block {
  uint64_t offsets_begin, edges_begin, edge_count;
};

class Mapping {
 public:
  explicit Mapping(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open graph file '{}': {}", path, std::strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size < static_cast<off_t>(format::kHeaderBytes)) {
      close(fd);
      fail("'{}' is not a tiergraph graph file", path);
    }
    size_ = static_cast<uint64_t>(st.st_size);
    void* p = mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) fail("cannot map '{}': {}", path, std::strerror(errno));
    base_ = static_cast<const unsigned char*>(p);
  }
  ~Mapping() { munmap(const_cast<unsigned char*>(base_), size_); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  const unsigned char* base() const { return base_; }
  uint64_t size() const { return size_; }

 private:
  const unsigned char* base_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace

bool is_version1_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  format::Header h{};
  const bool read_all = pread(fd, &h, sizeof(h), 0) == static_cast<ssize_t>(sizeof(h));
  close(fd);
  return read_all && std::memcmp(h.magic, format::kMagic, sizeof(h.magic)) == 0 && h.version == 1;
}

Version1Graph read_version1_file(const std::string& path) {
  Mapping file(path);
  Version1Graph g;
  auto& h = g.header;
  std::memcpy(&h, file.base(), sizeof(h));
  if (std::memcmp(h.magic, format::kMagic, sizeof(h.magic)) != 0 || h.version != 1) {
    fail("'{}' is not a version 1 graph file", path);
  }
  format::Header copy = h;
  copy.header_checksum = 0;
  if (XXH3_64bits(&copy, sizeof(copy)) != h.header_checksum)
    fail("'{}': header checksum mismatch", path);
  if (h.section_count > format::kMaxSections)
    fail("'{}': header lists {} sections", path, h.section_count);
  if (h.id_bytes != 4 && h.id_bytes != 8) fail("'{}': header has id width {}", path, h.id_bytes);
  if (h.weight_type > static_cast<uint8_t>(format::WeightType::kFloat64))
    fail("'{}': unknown weight type", path);
  auto section = [&](V1Section kind, uint64_t element_size,
                     bool required) -> std::span<const unsigned char> {
    for (uint32_t i = 0; i < h.section_count; ++i) {
      const auto& e = h.sections[i];
      if (e.kind != static_cast<uint32_t>(kind)) continue;
      if (e.offset > file.size() || e.bytes > file.size() - e.offset ||
          e.bytes % element_size != 0) {
        fail("'{}': version 1 section {} lies outside the file or is ragged", path, e.kind);
      }
      if (section_checksum(file.base() + e.offset, e.bytes) != e.checksum) {
        fail("'{}': checksum mismatch in version 1 section {} (the file is corrupted)", path,
             e.kind);
      }
      return {file.base() + e.offset, e.bytes};
    }
    if (required) fail("'{}': version 1 section {} is missing", path, static_cast<uint32_t>(kind));
    return {};
  };
  const uint64_t n = h.num_vertices, p = h.blocks_per_side;
  const uint32_t wbytes = format::weight_bytes(static_cast<format::WeightType>(h.weight_type));
  const auto ranges_bytes = section(V1Section::kRanges, 8, true);
  const std::span<const uint64_t> ranges{reinterpret_cast<const uint64_t*>(ranges_bytes.data()),
                                         ranges_bytes.size() / 8};
  if (p == 0 || ranges.size() != p + 1 || ranges[0] != 0 || ranges[p] != n)
    fail("'{}': version 1 ranges are inconsistent", path);
  for (uint64_t i = 0; i < p; ++i)
    if (ranges[i] > ranges[i + 1]) fail("'{}': version 1 ranges decrease", path);
  const auto index_bytes = section(V1Section::kOutIndex, sizeof(V1Block), true);
  if (index_bytes.size() / sizeof(V1Block) != p * p)
    fail("'{}': version 1 index has the wrong size", path);
  const auto* index = reinterpret_cast<const V1Block*>(index_bytes.data());
  const auto offsets_bytes = section(V1Section::kOutOffsets, 4, true);
  const auto* offsets = reinterpret_cast<const uint32_t*>(offsets_bytes.data());
  const uint64_t offset_count = offsets_bytes.size() / 4;
  const auto neighbours = section(V1Section::kOutNeighbors, h.id_bytes, true);
  const uint64_t arcs = neighbours.size() / h.id_bytes;
  std::span<const unsigned char> weights;
  if (wbytes) {
    weights = section(V1Section::kOutWeights, wbytes, true);
    if (weights.size() / wbytes != arcs)
      fail("'{}': version 1 weights and neighbours differ in count", path);
  }
  const auto id_map = section(V1Section::kIdMap, 8, false);
  if (!id_map.empty()) {
    if (id_map.size() / 8 != n) fail("'{}': version 1 id map has the wrong size", path);
    g.id_map.resize(n);
    std::memcpy(g.id_map.data(), id_map.data(), id_map.size());
  }

  auto& list = g.edges;
  list.source_name = path;
  list.declared_vertices = n;
  list.id_mode = IdMode::kIndex;
  const bool directed = (h.flags & format::Flags::kDirected) != 0;
  list.undirected_input = !directed;
  auto fill = [&]<typename Id, typename W>(EdgeArray<Id, W>& edges) {
    for (uint64_t i = 0; i < p; ++i)
      for (uint64_t j = 0; j < p; ++j) {
        const auto& b = index[i * p + j];
        const uint64_t size = ranges[i + 1] - ranges[i];
        if (b.offsets_begin > offset_count || size + 1 > offset_count - b.offsets_begin ||
            b.edges_begin > arcs || b.edge_count > arcs - b.edges_begin) {
          fail("'{}': version 1 block ({}, {}) lies outside its sections", path, i, j);
        }
        const uint32_t* o = offsets + b.offsets_begin;
        if (o[0] != 0 || o[size] != b.edge_count)
          fail("'{}': version 1 block ({}, {}) has bad offsets", path, i, j);
        for (uint64_t k = 0; k < size; ++k) {
          if (o[k] > o[k + 1])
            fail("'{}': version 1 block ({}, {}) has decreasing offsets", path, i, j);
          const uint64_t u = ranges[i] + k;
          for (uint64_t e = b.edges_begin + o[k]; e < b.edges_begin + o[k + 1]; ++e) {
            uint64_t v = 0;
            std::memcpy(&v, neighbours.data() + e * h.id_bytes, h.id_bytes);
            if (v >= n)
              fail("'{}': version 1 block ({}, {}) has neighbour id {} >= {} vertices", path, i, j,
                   v, n);
            if (!directed && u > v) continue;
            if constexpr (std::is_same_v<W, double>) {
              double w = 0;
              const unsigned char* at = weights.data() + e * wbytes;
              if (h.weight_type == static_cast<uint8_t>(format::WeightType::kInt32)) {
                int32_t x;
                std::memcpy(&x, at, 4);
                w = x;
              } else if (h.weight_type == static_cast<uint8_t>(format::WeightType::kInt64)) {
                int64_t x;
                std::memcpy(&x, at, 8);
                w = static_cast<double>(x);
              } else {
                std::memcpy(&w, at, 8);
              }
              edges.push_back({static_cast<Id>(u), static_cast<Id>(v), w});
            } else {
              edges.push_back({static_cast<Id>(u), static_cast<Id>(v), {}});
            }
          }
        }
      }
  };
  auto by_weight = [&]<typename Id>() {
    if (wbytes) {
      EdgeArray<Id, double> edges;
      fill(edges);
      list.edges = std::move(edges);
      list.weight_info.min = h.min_weight;
      list.weight_info.max = h.max_weight;
    } else {
      EdgeArray<Id, NoWeight> edges;
      fill(edges);
      list.edges = std::move(edges);
    }
  };
  if (h.id_bytes == 4) {
    by_weight.template operator()<uint32_t>();
  } else {
    by_weight.template operator()<uint64_t>();
  }
  return g;
}

}  // namespace tg
