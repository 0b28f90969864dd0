#include "graph/graph_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "graph/checksum.h"
#include "util/error.h"

namespace tg {

using format::BlockEntry;
using format::SectionKind;

std::string_view format::section_name(SectionKind kind) {
  switch (kind) {
    case SectionKind::kRanges:
      return "ranges";
    case SectionKind::kOutIndex:
      return "out-index";
    case SectionKind::kOutBlocks:
      return "out-blocks";
    case SectionKind::kInIndex:
      return "in-index";
    case SectionKind::kInBlocks:
      return "in-blocks";
    case SectionKind::kIdMap:
      return "id-map";
    case SectionKind::kOutDegrees:
      return "out-degrees";
    case SectionKind::kInDegrees:
      return "in-degrees";
  }
  return "unknown";
}

std::string_view format::weight_type_name(WeightType type) {
  switch (type) {
    case WeightType::kNone:
      return "none";
    case WeightType::kInt32:
      return "int32";
    case WeightType::kInt64:
      return "int64";
    case WeightType::kFloat64:
      return "float64";
  }
  return "unknown";
}

namespace {

SectionKind index_kind(Grid g) {
  return g == Grid::kOut ? SectionKind::kOutIndex : SectionKind::kInIndex;
}
SectionKind blocks_kind(Grid g) {
  return g == Grid::kOut ? SectionKind::kOutBlocks : SectionKind::kInBlocks;
}
SectionKind degrees_kind(Grid g) {
  return g == Grid::kOut ? SectionKind::kOutDegrees : SectionKind::kInDegrees;
}

// a * b, or fails with `what` when the product does not fit in 64 bits.
uint64_t checked_product(uint64_t a, uint64_t b, const std::string& path, std::string_view what) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail("'{}': {} overflows (the header is corrupted)", path, what);
  return r;
}

// A 64-bit hash of an arc, for order-independent sums over a grid's arcs (a grid's sum of
// mix(u, v) over its arcs equals another's when both hold the same arcs, whatever the order).
uint64_t mix(uint64_t u, uint64_t v) {
  uint64_t x = u * 0x9E3779B97F4A7C15ull ^ (v + 0x632BE59BD9B4E019ull);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 32);
}

// The first failure among work items checked in parallel, by item order, so the error a user
// sees does not depend on thread timing.
class FirstFailure {
 public:
  void record(uint64_t item, std::string problem) {
    std::lock_guard lock(mutex_);
    if (item < item_) {
      item_ = item;
      problem_ = std::move(problem);
    }
    failed_.store(true, std::memory_order_relaxed);
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  uint64_t item() const { return item_; }
  const std::string& problem() const { return problem_; }

 private:
  std::mutex mutex_;
  std::atomic<bool> failed_{false};
  uint64_t item_ = UINT64_MAX;
  std::string problem_;
};

}  // namespace

GraphFile::~GraphFile() {
  if (base_ != nullptr) munmap(const_cast<unsigned char*>(base_), size_);
}

std::shared_ptr<const GraphFile> GraphFile::open(const std::string& path,
                                                 const OpenOptions& options) {
  std::shared_ptr<GraphFile> g(new GraphFile());
  g->path_ = path;
  g->name_ = options.name.empty() ? "'" + path + "'" : options.name;
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
  if (h.version == 1) {
    fail(
        "'{}' is a version 1 graph file; this build reads version 2. Convert it with: tiergraph "
        "reblock {} -o NEW.tg --blocks 1",
        path, path);
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
  g->validate_counts();
  // Checksums before structure, so a corrupted section is named as itself and not as the first
  // structure that disagrees with it.
  if (options.verify_checksums) g->verify_checksums();
  g->degree_bytes_ = g->section_entry(SectionKind::kOutDegrees).element_size;
  g->out_degrees_ = g->section_bytes(SectionKind::kOutDegrees);
  g->in_degrees_ = g->directed() ? g->section_bytes(SectionKind::kInDegrees) : g->out_degrees_;
  g->validate_ranges();
  g->validate_index(Grid::kOut);
  if (g->directed()) g->validate_index(Grid::kIn);
  g->blocks_checked_ = options.check_blocks;
  if (options.check_blocks) g->check_all_blocks(options.verify_block_hashes);
  if (g->has_section(SectionKind::kIdMap)) {
    g->id_map_ = g->section<uint64_t>(SectionKind::kIdMap);
    for (uint64_t v = 1; v < g->id_map_.size(); ++v) {
      if (g->id_map_[v - 1] >= g->id_map_[v])
        fail("'{}': section 'id-map' is not increasing at vertex {}", path, v);
    }
  }
  return g;
}

void GraphFile::check_all_blocks(bool hashes) const {
  const auto& path = path_;
  // Hashes before structure, as above: a flipped byte is reported as corruption.
  if (hashes) verify_block_hashes();
  // Each grid alone is sound now; then they must hold the same graph: the in grid the out
  // grid's arcs reversed, or an undirected graph's one grid its own reverse. Otherwise pull and
  // push passes (and verifiers) would each see a different graph.
  const auto out = validate_blocks(Grid::kOut);
  if (directed()) {
    const auto in = validate_blocks(Grid::kIn);
    if (in.reversed != out.forward)
      fail("'{}': the in grid does not hold the out grid's arcs (the file is corrupted)", path);
  } else if (out.forward != out.reversed) {
    fail(
        "'{}': the graph is marked undirected but its arcs are not symmetric (the file is "
        "corrupted)",
        path);
  }
}

void GraphFile::check_block(Grid grid, uint32_t major, uint32_t minor, bool hashes,
                            bool weights) const {
  const auto& e = entry(grid, major, minor);
  const bool with_weights = weights && this->weighted();
  const uint64_t bytes = block_bytes(grid, major, minor, with_weights);
  const auto r = ranges();
  const std::string problem = validate_block(base_ + e.offset, bytes, e, shape(major, minor),
                                             r[major], r[minor], hashes, with_weights);
  if (!problem.empty()) fail_block(grid, uint64_t{major} * blocks_per_side() + minor, problem);
}

void GraphFile::advise_random() const {
  madvise(const_cast<unsigned char*>(base_), size_, MADV_RANDOM);
}

void GraphFile::drop_pages(std::span<const unsigned char> bytes) const {
  constexpr uintptr_t kPage = 4096;
  const auto first = (reinterpret_cast<uintptr_t>(bytes.data()) + kPage - 1) & ~(kPage - 1);
  const auto last = (reinterpret_cast<uintptr_t>(bytes.data()) + bytes.size()) & ~(kPage - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
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
  if (it == id_map_.end() || *it != original)
    fail("'{}' has no vertex with id {}", path_, original);
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

std::span<const BlockEntry> GraphFile::index(Grid grid) const {
  return section<BlockEntry>(index_kind(directed() ? grid : Grid::kOut));
}

BlockShape GraphFile::shape(uint32_t major, uint32_t minor) const {
  const auto r = ranges();
  return {r[major + 1] - r[major], r[minor + 1] - r[minor], format::weight_bytes(weight_type()),
          blocks_per_side() == 1};
}

BlockDecoder GraphFile::decoder(Grid grid, uint32_t major, uint32_t minor) const {
  const auto& e = entry(grid, major, minor);
  const auto r = ranges();
  return BlockDecoder::at(base_ + e.offset, e, r[major], r[minor]);
}

// Every section lies inside the file, on a 4 KiB boundary, once.
void GraphFile::validate_table() const {
  const auto& h = header_;
  if (h.section_count > format::kMaxSections)
    fail("'{}': header lists {} sections", path_, h.section_count);
  uint32_t seen = 0;
  for (uint32_t i = 0; i < h.section_count; ++i) {
    const auto& e = h.sections[i];
    if (e.kind < 1 || e.kind > static_cast<uint32_t>(SectionKind::kInDegrees)) {
      fail("'{}': header lists a section of unknown kind {}", path_, e.kind);
    }
    const auto name = format::section_name(static_cast<SectionKind>(e.kind));
    if (seen & (1u << e.kind)) fail("'{}': section '{}' is listed twice", path_, name);
    seen |= 1u << e.kind;
    if (e.offset % format::kAlignment != 0 || e.offset < format::kHeaderBytes) {
      fail("'{}': section '{}' is misplaced (offset {})", path_, name, e.offset);
    }
    if (e.offset > size_ || e.bytes > size_ - e.offset) {
      fail("'{}': section '{}' extends past the end of the file ({} bytes): the file is truncated",
           path_, name, size_);
    }
  }
}

// The header's counts against the sections' sizes, with every product overflow-checked.
void GraphFile::validate_counts() const {
  const auto& h = header_;
  if (h.id_bytes != 4 && h.id_bytes != 8) fail("'{}': header has id width {}", path_, h.id_bytes);
  if (h.weight_type > static_cast<uint8_t>(format::WeightType::kFloat64)) {
    fail("'{}': header has unknown weight type {}", path_, h.weight_type);
  }
  const uint64_t n = h.num_vertices, p = h.blocks_per_side;
  if (p == 0) fail("'{}': header has 0 blocks per side", path_);
  const uint64_t most =
      std::max<uint64_t>(1, (n + format::kRangeQuantum - 1) / format::kRangeQuantum);
  if (p > most) fail("'{}': {} blocks per side for {} vertices (at most {})", path_, p, n, most);
  if (h.id_bytes == 4 && n > (uint64_t{1} << 32))
    fail("'{}': {} vertices with 32-bit ids", path_, n);
  auto expect = [&](SectionKind kind, uint64_t bytes, uint32_t element_size) {
    const auto& e = section_entry(kind);
    if (e.element_size != element_size || e.bytes != bytes) {
      fail("'{}': section '{}' has {} bytes of {}-byte elements, expected {} of {}", path_,
           format::section_name(kind), e.bytes, e.element_size, bytes, element_size);
    }
  };
  // Each section lies inside the file (validate_table), so a size it must have that exceeds the
  // file is caught by the overflow check or the comparison, never computed wrapped.
  expect(SectionKind::kRanges, (p + 1) * 8, 8);
  const uint32_t dbytes = section_entry(SectionKind::kOutDegrees).element_size;
  if (dbytes != 4 && dbytes != 8)
    fail("'{}': section 'out-degrees' has {}-byte elements", path_, dbytes);
  const uint64_t degrees = checked_product(n, dbytes, path_, "the degrees' size");
  for (Grid grid : {Grid::kOut, Grid::kIn}) {
    if (grid == Grid::kIn && !directed()) break;
    expect(index_kind(grid),
           checked_product(p * p, sizeof(BlockEntry), path_, "the block index's size"),
           sizeof(BlockEntry));
    if (section_entry(blocks_kind(grid)).element_size != 1)
      fail("'{}': a blocks section has wide elements", path_);
    expect(degrees_kind(grid), degrees, dbytes);
  }
  if (has_section(SectionKind::kIdMap))
    expect(SectionKind::kIdMap, checked_product(n, 8, path_, "the id map's size"), 8);
}

void GraphFile::verify_checksums() const {
  for (uint32_t i = 0; i < header_.section_count; ++i) {
    const auto& e = header_.sections[i];
    const auto kind = static_cast<SectionKind>(e.kind);
    if (kind == SectionKind::kOutBlocks || kind == SectionKind::kInBlocks)
      continue;  // hashed per part
    if (section_checksum(base_ + e.offset, e.bytes) != e.checksum) {
      fail("'{}': checksum mismatch in section '{}' (the file is corrupted)", path_,
           format::section_name(kind));
    }
  }
}

void GraphFile::validate_ranges() const {
  const auto r = ranges();
  const uint64_t n = num_vertices(), p = blocks_per_side();
  if (r[0] != 0 || r[p] != n)
    fail("'{}': section 'ranges' does not cover the {} vertices", path_, n);
  for (uint64_t i = 0; i < p; ++i) {
    if (r[i] >= r[i + 1] && n > 0)
      fail("'{}': section 'ranges' is not increasing at range {}", path_, i);
    if (r[i] % format::kRangeQuantum != 0)
      fail("'{}': range {} starts at {}, not a multiple of 64", path_, i, r[i]);
  }
}

std::string GraphFile::block_name(Grid grid, uint32_t major, uint32_t minor) const {
  return fmt::format("{}-grid block (row {}, column {}) at byte {}",
                     grid_name(directed() ? grid : Grid::kOut), major, minor,
                     entry(grid, major, minor).offset);
}

void GraphFile::fail_block(Grid grid, uint64_t k, const std::string& problem) const {
  const uint64_t p = blocks_per_side();
  fail("'{}': {}: {}", path_,
       block_name(grid, static_cast<uint32_t>(k / p), static_cast<uint32_t>(k % p)), problem);
}

// Index rows alone: each consistent with its ranges, blocks in storage order inside their
// section, each block row starting on a 4 KiB boundary, arc counts adding up to the header's.
void GraphFile::validate_index(Grid grid) const {
  const auto rows = index(grid);
  const auto& section = section_entry(blocks_kind(grid));
  const uint32_t p = blocks_per_side();
  uint64_t at = section.offset, arcs = 0;
  const uint64_t end = section.offset + section.bytes;
  for (uint64_t k = 0; k < rows.size(); ++k) {
    const auto& e = rows[k];
    const uint32_t major = static_cast<uint32_t>(k / p), minor = static_cast<uint32_t>(k % p);
    if (auto problem = check_entry(e, shape(major, minor)); !problem.empty())
      fail_block(grid, k, problem);
    if (minor == 0 && e.offset % format::kAlignment != 0) {
      fail_block(grid, k, "it starts a block row but is not 4096-byte aligned");
    }
    const uint64_t extent = format::part_positions(e.part_bytes).end;
    if (e.offset < at || e.offset > end || extent > end - e.offset) {
      fail_block(grid, k,
                 fmt::format("it lies outside its section's free bytes [{}, {})", at, end));
    }
    at = e.offset + extent;
    arcs += e.edge_count;
  }
  if (arcs != num_arcs()) {
    fail("'{}': the {} grid's blocks hold {} arcs, the header says {}", path_, grid_name(grid),
         arcs, num_arcs());
  }
}

// Every block's directory and neighbours, in parallel over pieces of bounded size, and the
// degrees the directories add up to against the degrees section. Returns the grid's arc sums.
GraphFile::ArcSums GraphFile::validate_blocks(Grid grid) const {
  struct Piece {
    uint64_t block;
    bool directory;
    uint64_t first, last;
  };
  constexpr uint64_t kDirectoryPiece = uint64_t{1} << 16, kNeighbourPiece = uint64_t{1} << 20;
  const auto rows = index(grid);
  const uint32_t p = blocks_per_side();
  std::vector<Piece> pieces;
  for (uint64_t k = 0; k < rows.size(); ++k) {
    for (uint64_t a = 0; a < rows[k].vertex_count; a += kDirectoryPiece) {
      pieces.push_back({k, true, a, std::min(rows[k].vertex_count, a + kDirectoryPiece)});
    }
    if (rows[k].vertex_count == 0) pieces.push_back({k, true, 0, 0});  // still checks offset 0
    for (uint64_t a = 0; a < rows[k].edge_count; a += kNeighbourPiece) {
      pieces.push_back({k, false, a, std::min(rows[k].edge_count, a + kNeighbourPiece)});
    }
  }
  std::vector<std::atomic<uint64_t>> degrees(num_vertices());
  FirstFailure failure;
#pragma omp parallel for schedule(dynamic, 16)
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (failure.failed()) continue;
    const auto& piece = pieces[i];
    const uint32_t major = static_cast<uint32_t>(piece.block / p),
                   minor = static_cast<uint32_t>(piece.block % p);
    const auto d = decoder(grid, major, minor);
    const auto s = shape(major, minor);
    const std::string problem =
        piece.directory ? check_directory(d, s, piece.first, piece.last,
                                          [&](uint64_t v, uint64_t arcs) {
                                            degrees[v].fetch_add(arcs, std::memory_order_relaxed);
                                          })
                        : check_neighbours(d, s, piece.first, piece.last);
    if (!problem.empty()) failure.record(i, problem);
  }
  if (failure.failed()) fail_block(grid, pieces[failure.item()].block, failure.problem());
  const auto section = degrees_kind(directed() ? grid : Grid::kOut);
  for (uint64_t v = 0; v < num_vertices(); ++v) {
    const uint64_t stored = grid == Grid::kOut ? out_degree(v) : in_degree(v);
    const uint64_t held = degrees[v].load(std::memory_order_relaxed);
    if (stored != held) {
      fail("'{}': section '{}' gives vertex {} degree {}, its blocks hold {} arcs", path_,
           format::section_name(section), v, stored, held);
    }
  }
  // Only now, with every directory known sound, are the arcs walked by vertex.
  uint64_t forward = 0, reversed = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : forward, reversed)
  for (size_t i = 0; i < pieces.size(); ++i) {
    const auto& piece = pieces[i];
    if (!piece.directory) continue;
    const auto d = decoder(grid, static_cast<uint32_t>(piece.block / p),
                           static_cast<uint32_t>(piece.block % p));
    for (uint64_t k = piece.first; k < piece.last; ++k) {
      const uint64_t major = d.vertex(k);
      for (uint64_t e = d.offset(k); e < d.offset(k + 1); ++e) {
        const uint64_t minor = d.neighbour(e);
        forward += mix(major, minor);
        reversed += mix(minor, major);
      }
    }
  }
  return {forward, reversed};
}

void GraphFile::verify_block_hashes() const {
  static constexpr const char* kNames[format::kParts] = {"directory", "neighbours", "weights"};
  for (Grid grid : {Grid::kOut, Grid::kIn}) {
    if (grid == Grid::kIn && !directed()) break;
    const auto rows = index(grid);
    FirstFailure failure;
    const int64_t items = static_cast<int64_t>(rows.size()) * format::kParts;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < items; ++i) {
      const auto& e = rows[static_cast<uint64_t>(i) / format::kParts];
      const int part = static_cast<int>(i % format::kParts);
      if (!part_hash_matches(base_ + e.offset, e, part))
        failure.record(static_cast<uint64_t>(i), kNames[part]);
    }
    if (failure.failed()) {
      fail_block(
          grid, failure.item() / format::kParts,
          fmt::format("its {} fail their checksum (the file is corrupted)", failure.problem()));
    }
  }
}

}  // namespace tg
