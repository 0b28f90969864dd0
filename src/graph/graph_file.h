// An opened graph file (version 2): memory-mapped, validated, and viewed as typed sections and
// blocks. Opening checks magic, version, the header checksum, that every section lies inside
// the file with the size the counts imply, every index row, every block's structure (offsets,
// vertex lists, neighbour ids, and the degrees they add up to), and that the grids hold one
// graph (the in grid is the out grid reversed; an undirected grid is symmetric); those checks
// always run. Hashes (the small sections' checksums and every block part's) are verified unless
// told not to. Any failure is a tg::Error that names the file, and the block when a block is at
// fault.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "graph/block_check.h"
#include "graph/block_decoder.h"
#include "graph/edge_list.h"
#include "graph/format.h"

namespace tg {

struct OpenOptions {
  bool verify_checksums = true;     // the small sections' checksums
  bool verify_block_hashes = true;  // every block part's hash (the bulk of the file)
  // Check every block when opening (structure, hashes, the grids' agreement). A run under a
  // memory budget opens without: reading every block would bring the whole file into memory.
  // Its blocks are then checked one by one before their first use (check_block when placed
  // locally, the store's validation when fetched), and the file's pages are dropped as the
  // open reads them.
  bool check_blocks = true;
  // How messages about the graph name it (name()); empty: the path, quoted. A graph the Python
  // package built in a scratch file it unlinked is "the graph built from edge arrays", not a
  // path the user never saw.
  std::string name{};  // a default member initializer: designated initializers may leave it out
};

enum class Grid { kOut, kIn };
inline const char* grid_name(Grid g) { return g == Grid::kOut ? "out" : "in"; }

class GraphFile {
 public:
  static std::shared_ptr<const GraphFile> open(const std::string& path,
                                               const OpenOptions& options = {});
  ~GraphFile();
  GraphFile(const GraphFile&) = delete;
  GraphFile& operator=(const GraphFile&) = delete;

  const std::string& path() const { return path_; }
  // The graph as a message names it: "'graph.tg'", or the name it was opened with.
  const std::string& name() const { return name_; }
  const format::Header& header() const { return header_; }
  uint64_t num_vertices() const { return header_.num_vertices; }
  uint64_t num_arcs() const { return header_.num_arcs; }
  uint64_t num_edges() const { return header_.num_edges; }
  bool directed() const { return (header_.flags & format::Flags::kDirected) != 0; }
  bool weighted() const { return weight_type() != format::WeightType::kNone; }
  format::WeightType weight_type() const {
    return static_cast<format::WeightType>(header_.weight_type);
  }
  unsigned id_bytes() const { return header_.id_bytes; }
  IdMode id_mode() const { return static_cast<IdMode>(header_.id_mode); }
  uint32_t blocks_per_side() const { return header_.blocks_per_side; }
  uint64_t file_bytes() const { return size_; }
  // The whole file as mapped (what Python's Graph.save writes out, its scratch file unlinked).
  std::span<const unsigned char> bytes() const { return {base_, size_}; }

  bool has_section(format::SectionKind kind) const { return find(kind) != nullptr; }
  const format::SectionEntry& section_entry(format::SectionKind kind) const;
  std::span<const unsigned char> section_bytes(format::SectionKind kind) const;
  template <typename T>
  std::span<const T> section(format::SectionKind kind) const {
    auto bytes = section_bytes(kind);
    return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
  }

  std::span<const uint64_t> ranges() const {
    return section<uint64_t>(format::SectionKind::kRanges);
  }
  // A grid's index rows in storage order (major range, then minor range); the in grid of an
  // undirected graph is its out grid.
  std::span<const format::BlockEntry> index(Grid grid) const;
  // Block (major, minor) of a grid: its decoder over the mapped bytes, its index row, its shape.
  BlockDecoder decoder(Grid grid, uint32_t major, uint32_t minor) const;
  const format::BlockEntry& entry(Grid grid, uint32_t major, uint32_t minor) const {
    return index(grid)[uint64_t{major} * blocks_per_side() + minor];
  }
  // Block (major, minor) as every message names it: "out-grid block (row 2, column 0) at byte N",
  // the grid and index row the file holds it in (an undirected file's in grid is its out grid).
  std::string block_name(Grid grid, uint32_t major, uint32_t minor) const;
  BlockShape shape(uint32_t major, uint32_t minor) const;
  // The bytes of block (major, minor) a pass reads: its whole extent, or without weights (or in
  // an unweighted file) the prefix before its weights part. What a tier fetches and holds.
  uint64_t block_bytes(Grid grid, uint32_t major, uint32_t minor, bool weights) const {
    const auto positions = format::part_positions(entry(grid, major, minor).part_bytes);
    return weights && this->weighted() ? positions.end : positions.at[format::kWeights];
  }
  // The block's one extent (its three parts and their padding), as a tier would fetch it.
  std::span<const unsigned char> block_extent(Grid grid, uint32_t major, uint32_t minor) const {
    const auto& e = entry(grid, major, minor);
    return {base_ + e.offset, format::part_positions(e.part_bytes).end};
  }

  // The original (input) id of dense vertex v.
  uint64_t original_id(uint64_t v) const {
    return id_map_.empty() ? v + header_.id_base : id_map_[v];
  }
  // The dense vertex of an original id; throws tg::Error if no vertex has it.
  uint64_t dense_id(uint64_t original) const;
  // Out-degree (in-degree) of v; for undirected graphs both are the degree.
  uint64_t out_degree(uint64_t v) const { return degree(out_degrees_, v); }
  uint64_t in_degree(uint64_t v) const { return degree(in_degrees_, v); }

  // Verifies every block part's hash; throws naming the first bad block (row, column, byte
  // offset) in file order. Opening does this unless verify_block_hashes is off.
  void verify_block_hashes() const;

  // Whether opening checked every block (see OpenOptions::check_blocks).
  bool blocks_checked() const { return blocks_checked_; }
  // One block's structure and, when `hashes`, the hashes of the parts a pass reads (without
  // `weights`, the prefix before the weights part); throws naming the block.
  void check_block(Grid grid, uint32_t major, uint32_t minor, bool hashes, bool weights) const;
  // Drops this process's mapping of the whole pages inside `bytes` (they are read again from
  // the page cache or the disk if touched): what keeps an open under a budget from holding the
  // blocks it glanced at.
  void drop_pages(std::span<const unsigned char> bytes) const;
  // Tells the kernel the mapping is read at random (no read-ahead): the kernel-paging baseline.
  void advise_random() const;

 private:
  GraphFile() = default;
  const format::SectionEntry* find(format::SectionKind kind) const;
  void validate_table() const;
  void validate_counts() const;
  void verify_checksums() const;
  void validate_ranges() const;
  void validate_index(Grid grid) const;
  // Order-independent sums of a hash of every arc (major, minor) and of its reverse.
  struct ArcSums {
    uint64_t forward = 0, reversed = 0;
  };
  ArcSums validate_blocks(Grid grid) const;
  void check_all_blocks(bool hashes) const;
  [[noreturn]] void fail_block(Grid grid, uint64_t k, const std::string& problem) const;
  uint64_t degree(std::span<const unsigned char> section, uint64_t v) const {
    if (degree_bytes_ == 4) return reinterpret_cast<const uint32_t*>(section.data())[v];
    return reinterpret_cast<const uint64_t*>(section.data())[v];
  }

  std::string path_;
  std::string name_;
  format::Header header_{};
  const unsigned char* base_ = nullptr;
  uint64_t size_ = 0;
  std::span<const uint64_t> id_map_;
  std::span<const unsigned char> out_degrees_, in_degrees_;
  uint32_t degree_bytes_ = 4;
  bool blocks_checked_ = true;
};

}  // namespace tg
