#include "graph/graph_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "graph/checksum.h"
#include "util/error.h"

namespace tg {

using format::SectionKind;

std::string_view format::section_name(SectionKind kind) {
  switch (kind) {
    case SectionKind::kRanges: return "ranges";
    case SectionKind::kOutIndex: return "out-index";
    case SectionKind::kOutOffsets: return "out-offsets";
    case SectionKind::kOutNeighbors: return "out-neighbors";
    case SectionKind::kOutWeights: return "out-weights";
    case SectionKind::kInIndex: return "in-index";
    case SectionKind::kInOffsets: return "in-offsets";
    case SectionKind::kInNeighbors: return "in-neighbors";
    case SectionKind::kInWeights: return "in-weights";
    case SectionKind::kIdMap: return "id-map";
    case SectionKind::kOutDegrees: return "out-degrees";
    case SectionKind::kInDegrees: return "in-degrees";
  }
  return "unknown";
}

std::string_view format::weight_type_name(WeightType type) {
  switch (type) {
    case WeightType::kNone: return "none";
    case WeightType::kInt32: return "int32";
    case WeightType::kInt64: return "int64";
    case WeightType::kFloat64: return "float64";
  }
  return "unknown";
}

GraphFile::~GraphFile() {
  if (base_ != nullptr) munmap(const_cast<unsigned char*>(base_), size_);
}

std::shared_ptr<const GraphFile> GraphFile::open(const std::string& path, OpenOptions options) {
  std::shared_ptr<GraphFile> g(new GraphFile());
  g->path_ = path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open graph file '{}': {}", path, std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    fail("'{}' is not a regular file", path);
  }
  g->size_ = static_cast<uint64_t>(st.st_size);
  if (g->size_ < format::kHeaderBytes) {
    close(fd);
    fail("'{}' is not a tiergraph graph file: {} bytes is shorter than the header", path, g->size_);
  }
  void* p = mmap(nullptr, g->size_, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) fail("cannot map '{}': {}", path, std::strerror(errno));
  g->base_ = static_cast<const unsigned char*>(p);

  std::memcpy(&g->header_, g->base_, sizeof(format::Header));
  const auto& h = g->header_;
  if (std::memcmp(h.magic, format::kMagic, sizeof(h.magic)) != 0) {
    fail("'{}' is not a tiergraph graph file (bad magic)", path);
  }
  if (h.version != format::kVersion) {
    fail("'{}': graph file version {} is not supported (this build reads version {})", path,
         h.version, format::kVersion);
  }
  format::Header copy = h;
  copy.header_checksum = 0;
  if (XXH3_64bits(&copy, sizeof(copy)) != h.header_checksum) {
    fail("'{}': header checksum mismatch (the header is corrupted)", path);
  }
  g->validate_table();
  // Checksums before structure, so a corrupted section is named as itself and not as the first
  // structure that disagrees with it.
  if (options.verify_checksums) g->verify_checksums();
  g->validate_layout();
  if (g->has_section(SectionKind::kIdMap)) g->id_map_ = g->section<uint64_t>(SectionKind::kIdMap);
  g->degree_bytes_ = g->section_entry(SectionKind::kOutDegrees).element_size;
  g->out_degrees_ = g->section_bytes(SectionKind::kOutDegrees);
  g->in_degrees_ = g->directed() ? g->section_bytes(SectionKind::kInDegrees) : g->out_degrees_;
  return g;
}

uint64_t GraphFile::dense_id(uint64_t original) const {
  if (id_map_.empty()) {
    if (original < header_.id_base || original - header_.id_base >= num_vertices()) {
      fail("'{}' has no vertex with id {} (ids are {}..{})", path_, original, header_.id_base,
           header_.id_base + num_vertices() - 1);
    }
    return original - header_.id_base;
  }
  const auto it = std::lower_bound(id_map_.begin(), id_map_.end(), original);
  if (it == id_map_.end() || *it != original) fail("'{}' has no vertex with id {}", path_, original);
  return static_cast<uint64_t>(it - id_map_.begin());
}

const format::SectionEntry* GraphFile::find(SectionKind kind) const {
  for (uint32_t i = 0; i < header_.section_count; ++i) {
    if (header_.sections[i].kind == static_cast<uint32_t>(kind)) return &header_.sections[i];
  }
  return nullptr;
}

const format::SectionEntry& GraphFile::section_entry(SectionKind kind) const {
  const auto* e = find(kind);
  if (e == nullptr) fail("'{}': section '{}' is missing", path_, format::section_name(kind));
  return *e;
}

std::span<const unsigned char> GraphFile::section_bytes(SectionKind kind) const {
  const auto& e = section_entry(kind);
  return {base_ + e.offset, e.bytes};
}

// Checks that the header's counts and the section table agree, so later code can index sections
// without bounds checks. Works from the header alone plus the small ranges and index sections.
void GraphFile::validate_table() const {
  const auto& h = header_;
  if (h.section_count > format::kMaxSections) fail("'{}': header lists {} sections", path_, h.section_count);
  for (uint32_t i = 0; i < h.section_count; ++i) {
    const auto& e = h.sections[i];
    const auto name = format::section_name(static_cast<SectionKind>(e.kind));
    if (e.offset % format::kAlignment != 0 || e.offset < format::kHeaderBytes) {
      fail("'{}': section '{}' is misplaced (offset {})", path_, name, e.offset);
    }
    if (e.offset > size_ || e.bytes > size_ - e.offset) {
      fail("'{}': section '{}' extends past the end of the file ({} bytes): the file is truncated",
           path_, name, size_);
    }
  }
}

void GraphFile::validate_layout() const {
  const auto& h = header_;
  if (h.id_bytes != 4 && h.id_bytes != 8) fail("'{}': header has id width {}", path_, h.id_bytes);
  if (h.weight_type > static_cast<uint8_t>(format::WeightType::kFloat64)) {
    fail("'{}': header has unknown weight type {}", path_, h.weight_type);
  }
  if (h.blocks_per_side == 0) fail("'{}': header has 0 blocks per side", path_);
  const uint64_t n = h.num_vertices;
  const uint64_t p = h.blocks_per_side;
  const uint32_t wbytes = format::weight_bytes(weight_type());
  auto expect = [&](SectionKind kind, uint64_t elements, uint32_t element_size) {
    const auto& e = section_entry(kind);
    if (e.element_size != element_size || e.bytes != elements * element_size) {
      fail("'{}': section '{}' has {} bytes of {}-byte elements, expected {} of {}", path_,
           format::section_name(kind), e.bytes, e.element_size, elements * element_size, element_size);
    }
  };
  expect(SectionKind::kRanges, p + 1, 8);
  // Structural checks below read only the small ranges and index sections.
  const auto r = ranges();
  if (r[0] != 0 || r[p] != n) fail("'{}': section 'ranges' does not cover the {} vertices", path_, n);
  for (uint64_t i = 0; i < p; ++i) {
    if (r[i] > r[i + 1]) fail("'{}': section 'ranges' is not increasing at {}", path_, i);
  }
  const uint32_t dbytes = section_entry(SectionKind::kOutDegrees).element_size;
  if (dbytes != 4 && dbytes != 8) fail("'{}': section 'out-degrees' has {}-byte elements", path_, dbytes);
  auto check_grid = [&](SectionKind index, SectionKind offsets, SectionKind neighbors,
                        SectionKind weights, SectionKind degrees) {
    expect(index, p * p, sizeof(format::BlockEntry));
    expect(offsets, p * n + p * p, 4);
    expect(neighbors, h.num_arcs, h.id_bytes);
    if (wbytes) expect(weights, h.num_arcs, wbytes);
    expect(degrees, n, dbytes);
    const auto blocks = section<format::BlockEntry>(index);
    uint64_t offsets_at = 0, edges_at = 0;
    for (uint64_t k = 0; k < p * p; ++k) {
      const auto& b = blocks[k];
      // Entries are in storage order: block k belongs to major range k / P (the source range for
      // out sections, the destination range for in sections), whose vertices its offsets cover.
      const uint64_t major = k / p, minor = k % p;
      if (b.offsets_begin != offsets_at || b.edges_begin != edges_at || b.edge_count >= (uint64_t{1} << 32)) {
        fail("'{}': section '{}' is inconsistent at entry ({}, {})", path_, format::section_name(index), major, minor);
      }
      offsets_at += r[major + 1] - r[major] + 1;
      edges_at += b.edge_count;
    }
    if (edges_at != h.num_arcs) {
      fail("'{}': section '{}' counts {} arcs, the header {}", path_, format::section_name(index), edges_at, h.num_arcs);
    }
  };
  check_grid(SectionKind::kOutIndex, SectionKind::kOutOffsets, SectionKind::kOutNeighbors,
             SectionKind::kOutWeights, SectionKind::kOutDegrees);
  if (directed()) {
    check_grid(SectionKind::kInIndex, SectionKind::kInOffsets, SectionKind::kInNeighbors,
               SectionKind::kInWeights, SectionKind::kInDegrees);
  }
  if (has_section(SectionKind::kIdMap)) expect(SectionKind::kIdMap, n, 8);
}

void GraphFile::verify_checksums() const {
  for (uint32_t i = 0; i < header_.section_count; ++i) {
    const auto& e = header_.sections[i];
    if (section_checksum(base_ + e.offset, e.bytes) != e.checksum) {
      fail("'{}': checksum mismatch in section '{}' (the file is corrupted)", path_,
           format::section_name(static_cast<SectionKind>(e.kind)));
    }
  }
}

}  // namespace tg
