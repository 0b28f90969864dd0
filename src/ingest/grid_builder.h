// Writes one grid of a version-2 graph file (its index, its blocks, its degrees) from cleaned,
// sorted edges. Used by the builder only.
//
// Block rows are built in groups of consecutive rows: one pass over the edges counts each
// vertex's arcs per block column (which fixes every block's encoding and place), one pass
// gathers the group's arcs into a buffer in block order, and the group's bytes, contiguous in
// the file, are encoded into a staging buffer and written at once. A single row too large for
// the buffer is built in vertex chunks, each writing its piece of every block of the row. The
// memory held beyond the edges is bounded by the counts of one group and one buffer of arcs.
#pragma once

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "graph/edge_list.h"
#include "graph/format.h"
#include "graph/graph_writer.h"
#include "util/error.h"
#include "util/mapped_vector.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace tg::grid_build {

enum class Orientation { kBySource, kByDestination, kSymmetric };

template <typename Id, typename W, typename F>
void for_each_arc(const Edge<Id, W>& e, Orientation o, F&& emit) {
  switch (o) {
    case Orientation::kBySource:
      emit(e.u, e.v, e.w);
      break;
    case Orientation::kByDestination:
      emit(e.v, e.u, e.w);
      break;
    case Orientation::kSymmetric:
      emit(e.u, e.v, e.w);
      if (e.u != e.v) emit(e.v, e.u, e.w);
      break;
  }
}

// The arcs of an in-memory edge array in one orientation: for_arcs_of(a, b, f) calls
// f(major, minor, w) for every arc whose major vertex lies in [a, b), from all threads (one
// pass over the edges). The bounded-memory build has another source, merged from sorted runs.
template <typename Id, typename W>
class EdgeArraySource {
 public:
  using Weight = W;
  EdgeArraySource(const EdgeArray<Id, W>& edges, Orientation o) : edges_(edges), o_(o) {}
  template <typename F>
  void for_arcs_of(uint64_t a, uint64_t b, F&& f) const {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < edges_.size(); ++i) {
      for_each_arc(edges_[i], o_, [&](uint64_t major, uint64_t minor, const W& w) {
        if (major >= a && major < b) f(major, minor, w);
      });
    }
  }

 private:
  const EdgeArray<Id, W>& edges_;
  Orientation o_;
};

// Arcs per major vertex (the degrees section of the grid of that orientation).
template <typename Source>
MappedVector<uint64_t> major_degrees(const Source& arcs, uint64_t n) {
  MappedVector<uint64_t> degrees(n);
  arcs.for_arcs_of(0, n, [&](uint64_t major, uint64_t, const auto&) {
    __atomic_add_fetch(&degrees[major], uint64_t{1}, __ATOMIC_RELAXED);
  });
  return degrees;
}

struct Ranges {
  std::span<const uint64_t> bounds;  // P + 1
  std::span<const uint32_t> of_word;
  uint32_t p() const { return static_cast<uint32_t>(bounds.size() - 1); }
  uint32_t of(uint64_t x) const { return of_word[x >> 6]; }
  uint64_t first(uint32_t r) const { return bounds[r]; }
  uint64_t size(uint32_t r) const { return bounds[r + 1] - bounds[r]; }
};

struct GridSections {
  format::SectionKind index, blocks, degrees;
};

template <typename Id, typename WOut>
struct Arc {
  Id minor;
  [[no_unique_address]] WOut w;
  friend bool operator<(const Arc& a, const Arc& b) {
    if (a.minor != b.minor) return a.minor < b.minor;
    if constexpr (!std::is_same_v<WOut, NoWeight>) return a.w < b.w;
    return false;
  }
};

inline void store_width(unsigned char* p, uint64_t k, uint64_t value, uint8_t width) {
  switch (width) {
    case 2: {
      const auto x = static_cast<uint16_t>(value);
      std::memcpy(p + 2 * k, &x, 2);
      break;
    }
    case 4: {
      const auto x = static_cast<uint32_t>(value);
      std::memcpy(p + 4 * k, &x, 4);
      break;
    }
    default:
      std::memcpy(p + 8 * k, &value, 8);
      break;
  }
}

// One group of consecutive block rows [r0, r1) and its per-(vertex, column) arc counts, laid out
// block by block: counts of block (r, c) are contiguous over the vertices of range r.
struct Group {
  uint32_t r0 = 0, r1 = 0;
  std::vector<uint64_t> row_base;  // first count of row r (relative), per row of the group
  MappedVector<uint32_t> counts;
  uint64_t at(const Ranges& g, uint32_t r, uint32_t c, uint64_t x) const {
    return row_base[r - r0] + c * g.size(r) + (x - g.first(r));
  }
};

// The limits on what a GridWriter holds beyond its source: arcs gathered at once, and per-(vertex,
// column) counters of a group of rows (each a count and a cursor: 12 bytes).
struct GridLimits {
  uint64_t chunk_arcs = 0;
  uint64_t counters = 0;
};

template <typename Source, typename Id, typename WOut>
class GridWriter {
  using W = typename Source::Weight;

 public:
  GridWriter(const Source& arcs, bool by_destination, const Ranges& ranges,
             std::span<const uint64_t> degrees, GraphWriter& writer, bool progress)
      : arcs_(arcs),
        by_destination_(by_destination),
        g_(ranges),
        degrees_(degrees),
        writer_(writer),
        progress_(progress) {}

  // Writes the grid's three sections; returns the arcs it holds.
  uint64_t write(const GridSections& kinds, const GridLimits& limits) {
    const uint64_t chunk_arcs = limits.chunk_arcs;
    const uint32_t p = g_.p();
    index_.assign(uint64_t{p} * p, format::BlockEntry{});
    done_.assign(uint64_t{p} * p, {0, 0});
    const size_t s_index = writer_.add_section(kinds.index, sizeof(format::BlockEntry),
                                               index_.size() * sizeof(format::BlockEntry));
    s_blocks_ = writer_.open_section(kinds.blocks, 1);
    base_ = writer_.section_offset(s_blocks_);
    uint64_t total = 0;
    for (uint64_t x = 0; x < degrees_.size(); ++x) total += degrees_[x];
    Progress bar(by_destination_ ? "writing in" : "writing", total, progress_);
    uint64_t written = 0;
    const uint64_t count_budget = limits.counters;
    uint32_t r = 0;
    while (r < p) {
      Group group;
      group.r0 = r;
      uint64_t counters = 0, arcs = 0;
      while (r < p) {
        const uint64_t row_counters = g_.size(r) * p;
        uint64_t row_arcs = 0;
        for (uint64_t x = g_.first(r); x < g_.first(r + 1); ++x) row_arcs += degrees_[x];
        if (r > group.r0 &&
            (counters + row_counters > count_budget || arcs + row_arcs > chunk_arcs))
          break;
        group.row_base.push_back(counters);
        counters += row_counters;
        arcs += row_arcs;
        ++r;
      }
      group.r1 = r;
      group.counts.resize(counters);
      count(group);
      lay_out(group);
      build(group, arcs, chunk_arcs);
      done_below(g_.first(group.r1));
      written += arcs;
      bar.update(written);
    }
    bar.finish();
    writer_.close_section(s_blocks_, end_);
    writer_.write_all(s_index, std::span<const format::BlockEntry>(index_));
    write_degrees(kinds.degrees);
    return total;
  }

 private:
  static constexpr bool kWeighted = !std::is_same_v<WOut, NoWeight>;

  struct Progressed {
    uint64_t arcs, listed;  // of a block, written before a piece of it
  };

  // Vertices [lo, hi) of block (r, c), encoded by one thread: `own` is what it holds, `before`
  // what the stretches of the same block before it in this chunk hold.
  struct Stretch {
    uint32_t r, c;
    uint64_t lo, hi;
    Progressed own{0, 0}, before{0, 0};
  };
  static constexpr uint64_t kMinStretch = 1 << 14;  // vertices: smaller pieces are not worth a task

  // The arcs of a stretch, and the vertices it lists when the block is DCSR (a CSR block's
  // directory places a vertex by its index, so its count of listed vertices stays 0).
  Progressed tally(const Group& group, const Stretch& st) const {
    const auto& e = index_[uint64_t{st.r} * g_.p() + st.c];
    const bool dcsr = e.layout == static_cast<uint8_t>(format::BlockLayout::kDcsr);
    const uint32_t* counts = group.counts.data() + group.at(g_, st.r, st.c, st.lo);
    Progressed t{0, 0};
    for (uint64_t x = 0; x < st.hi - st.lo; ++x) {
      t.arcs += counts[x];
      t.listed += dcsr && counts[x] != 0;
    }
    return t;
  }

  template <typename F>
  void for_arcs_of(uint64_t a, uint64_t b, F&& f) const {
    arcs_.for_arcs_of(a, b, std::forward<F>(f));
  }
  // No pass reads the arcs of majors below `end` again: a source merged from sorted runs frees
  // their disk space, so the runs shrink as the file grows.
  void done_below(uint64_t end) const {
    if constexpr (requires { arcs_.release_below(end); }) arcs_.release_below(end);
  }

  void count(Group& group) {
    if (g_.p() == 1) {  // one block: a vertex's count is its degree, so skip a pass over the arcs
#pragma omp parallel for schedule(static)
      for (uint64_t x = g_.first(group.r0); x < g_.first(group.r1); ++x) {
        group.counts[group.at(g_, 0, 0, x)] = static_cast<uint32_t>(degrees_[x]);
      }
      return;
    }
    for_arcs_of(g_.first(group.r0), g_.first(group.r1),
                [&](uint64_t major, uint64_t minor, const W&) {
                  const uint32_t r = g_.of(major);
                  __atomic_add_fetch(&group.counts[group.at(g_, r, g_.of(minor), major)], 1u,
                                     __ATOMIC_RELAXED);
                });
  }

  // Every block of the group: arcs, listed vertices, encoding, part sizes, place in the file.
  void lay_out(const Group& group) {
    const uint32_t p = g_.p();
    for (uint32_t r = group.r0; r < group.r1; ++r) {
#pragma omp parallel for schedule(dynamic, 16)
      for (uint32_t c = 0; c < p; ++c) {
        const uint32_t* counts = group.counts.data() + group.at(g_, r, c, g_.first(r));
        uint64_t arcs = 0, listed = 0;
        for (uint64_t k = 0; k < g_.size(r); ++k) {
          arcs += counts[k];
          listed += counts[k] != 0;
        }
        auto& e = index_[uint64_t{r} * p + c];
        e.edge_count = arcs;
        e.vertex_count = listed;  // until the layout is chosen below
      }
      end_ = format::align_up(end_);  // each block row starts on a 4 KiB boundary
      for (uint32_t c = 0; c < p; ++c) {
        auto& e = index_[uint64_t{r} * p + c];
        if (e.edge_count >= (uint64_t{1} << 32)) {
          fail("a block of the {}x{} grid holds 2^32 or more arcs; use more blocks (--blocks)", p,
               p);
        }
        const uint64_t listed = e.vertex_count, major = g_.size(r);
        e.offset_bytes = format::offset_bytes_for(e.edge_count);
        e.id_bytes = format::local_id_bytes(g_.size(c));
        const uint64_t csr = (major + 1) * e.offset_bytes;
        const uint8_t vertex_bytes = format::local_id_bytes(major);
        const uint64_t dcsr =
            format::dcsr_vertices_at(listed, e.offset_bytes) + listed * vertex_bytes;
        if (p > 1 && dcsr < csr) {
          e.layout = static_cast<uint8_t>(format::BlockLayout::kDcsr);
          e.vertex_bytes = vertex_bytes;
          e.part_bytes[format::kDirectory] = dcsr;
        } else {
          e.layout = static_cast<uint8_t>(format::BlockLayout::kCsr);
          e.vertex_count = major;
          e.part_bytes[format::kDirectory] = csr;
        }
        e.part_bytes[format::kNeighbors] = e.edge_count * e.id_bytes;
        e.part_bytes[format::kWeights] = e.edge_count * sizeof(WOut) * kWeighted;
        e.offset = base_ + end_;
        end_ += format::part_positions(e.part_bytes).end;
      }
    }
  }

  // Gathers, sorts, encodes and writes the group's arcs: at once when they fit the buffer,
  // otherwise (a single large row) in vertex chunks.
  void build(const Group& group, uint64_t arcs, uint64_t chunk_arcs) {
    const uint64_t group_begin = index_[uint64_t{group.r0} * g_.p()].offset;
    const uint64_t group_end = base_ + end_;
    if (arcs <= chunk_arcs || group.r1 - group.r0 > 1) {
      // Fresh anonymous pages are zero (the padding between rows), and are first touched by the
      // encoding threads, not zeroed here by one.
      MappedVector<unsigned char> staging(group_end - group_begin);
      build_chunk(group, group.r0, group.r1, g_.first(group.r0), g_.first(group.r1),
                  [&](uint64_t at, const void* data, size_t bytes) {
                    std::memcpy(staging.data() + (at - group_begin), data, bytes);
                  });
      hash_group(group, [&](uint64_t at, uint64_t bytes) {
        return XXH3_64bits(staging.data() + (at - group_begin), bytes);
      });
      writer_.write(s_blocks_, group_begin - base_, staging.data(), staging.size());
      return;
    }
    const uint32_t r = group.r0;
    uint64_t a = g_.first(r);
    while (a < g_.first(r + 1)) {
      uint64_t b = a, in_chunk = 0;
      while (b < g_.first(r + 1) && (b == a || in_chunk + degrees_[b] <= chunk_arcs))
        in_chunk += degrees_[b++];
      build_chunk(group, r, r + 1, a, b, [&](uint64_t at, const void* data, size_t bytes) {
        writer_.write(s_blocks_, at - base_, data, bytes);
      });
      done_below(b);
      a = b;
    }
    hash_group(group, [&](uint64_t at, uint64_t bytes) { return writer_.hash_written(at, bytes); });
  }

  // Vertices [a, b) of rows [ra, rb) of the group: whole rows, or a stretch of one row.
  template <typename Put>
  void build_chunk(const Group& group, uint32_t ra, uint32_t rb, uint64_t a, uint64_t b,
                   Put&& put) {
    const uint32_t p = g_.p();
    // Each (vertex, column) list's place in the buffer: blocks in order, vertices in order.
    std::vector<uint64_t> block_start;
    uint64_t in_chunk = 0;
    for (uint32_t r = ra; r < rb; ++r) {
      const uint64_t lo = std::max(a, g_.first(r)), hi = std::min(b, g_.first(r + 1));
      for (uint32_t c = 0; c < p; ++c) {
        block_start.push_back(in_chunk);
        const uint32_t* counts = group.counts.data() + group.at(g_, r, c, lo);
        for (uint64_t x = 0; x < hi - lo; ++x) in_chunk += counts[x];
      }
    }
    block_start.push_back(in_chunk);
    MappedVector<Arc<Id, WOut>> buffer(in_chunk);
    if (in_chunk > 0) gather(group, ra, rb, a, b, block_start, buffer);
    // Encode every block, also blocks without arcs here: a chunk that ends a row writes its
    // blocks' last offsets. Blocks are cut into stretches of vertices so that a grid of fewer
    // blocks than threads (a 1x1 grid is one) still keeps every thread encoding.
    const uint64_t blocks = uint64_t{rb - ra} * p;
    const uint64_t threads = static_cast<uint64_t>(max_threads());
    const uint64_t cuts = blocks >= 4 * threads ? 1 : (4 * threads + blocks - 1) / blocks;
    std::vector<Stretch> stretches;
    for (uint64_t k = 0; k < blocks; ++k) {
      const uint32_t r = ra + static_cast<uint32_t>(k / p), c = static_cast<uint32_t>(k % p);
      const uint64_t lo = std::max(a, g_.first(r)), hi = std::min(b, g_.first(r + 1));
      const uint64_t pieces = std::clamp<uint64_t>((hi - lo) / kMinStretch, 1, cuts);
      for (uint64_t s = 0; s < pieces; ++s) {
        stretches.push_back({r, c, lo + (hi - lo) * s / pieces, lo + (hi - lo) * (s + 1) / pieces});
      }
    }
#pragma omp parallel for schedule(dynamic, 4)
    for (size_t s = 0; s < stretches.size(); ++s) stretches[s].own = tally(group, stretches[s]);
    // Each stretch's place in its block: what the block's stretches before it hold.
    for (size_t s = 1; s < stretches.size(); ++s) {
      const Stretch& prev = stretches[s - 1];
      if (prev.r == stretches[s].r && prev.c == stretches[s].c) {
        stretches[s].before = {prev.before.arcs + prev.own.arcs,
                               prev.before.listed + prev.own.listed};
      }
    }
#pragma omp parallel
    {
      std::vector<unsigned char> piece;
#pragma omp for schedule(dynamic, 1)
      for (size_t s = 0; s < stretches.size(); ++s) {
        const Stretch& st = stretches[s];
        const uint64_t k = uint64_t{st.r - ra} * p + st.c;
        const auto& done = done_[uint64_t{st.r} * p + st.c];
        const Progressed at{done.arcs + st.before.arcs, done.listed + st.before.listed};
        encode(group, st.r, st.c, st.lo, st.hi, at, buffer.data() + block_start[k] + st.before.arcs,
               piece, put);
      }
    }
    for (const Stretch& st : stretches) {
      auto& done = done_[uint64_t{st.r} * p + st.c];
      done.arcs += st.own.arcs;
      done.listed += st.own.listed;
    }
  }

  // Scatters the arcs of vertices [a, b) into `buffer`: each (vertex, column) list at its place.
  void gather(const Group& group, uint32_t ra, uint32_t rb, uint64_t a, uint64_t b,
              const std::vector<uint64_t>& block_start, MappedVector<Arc<Id, WOut>>& buffer) const {
    const uint32_t p = g_.p();
    const uint64_t row_base = group.at(g_, ra, 0, std::max(a, g_.first(ra)));
    auto cursor_index = [&](uint32_t r, uint32_t c, uint64_t x) {
      return group.at(g_, r, c, x) - row_base;
    };
    const uint64_t cursors_size =
        group.at(g_, rb - 1, p - 1, std::min(b, g_.first(rb)) - 1) + 1 - row_base;
    MappedVector<uint64_t> cursor(cursors_size);
    for (uint32_t r = ra; r < rb; ++r) {
      const uint64_t lo = std::max(a, g_.first(r)), hi = std::min(b, g_.first(r + 1));
      for (uint32_t c = 0; c < p; ++c) {
        uint64_t at = block_start[(r - ra) * p + c];
        for (uint64_t x = lo; x < hi; ++x) {
          cursor[cursor_index(r, c, x)] = at;
          at += group.counts[group.at(g_, r, c, x)];
        }
      }
    }
    for_arcs_of(a, b, [&](uint64_t major, uint64_t minor, const W& w) {
      const uint64_t at = __atomic_fetch_add(
          &cursor[cursor_index(g_.of(major), g_.of(minor), major)], uint64_t{1}, __ATOMIC_RELAXED);
      if constexpr (kWeighted) {
        buffer[at] = {static_cast<Id>(minor), static_cast<WOut>(w)};
      } else {
        buffer[at] = {static_cast<Id>(minor), {}};
      }
    });
    // Each cursor now ends its list. Sort every list, so the file does not depend on thread
    // timing, in parallel over vertices (a 1x1 grid is one block).
    const uint64_t rows_first = std::max(a, g_.first(ra));
#pragma omp parallel for schedule(dynamic, 256)
    for (uint64_t x = rows_first; x < b; ++x) {
      const uint32_t r = g_.of(x);
      for (uint32_t c = 0; c < p; ++c) {
        const uint64_t end = cursor[cursor_index(r, c, x)];
        std::sort(buffer.data() + (end - group.counts[group.at(g_, r, c, x)]), buffer.data() + end);
      }
    }
  }

  // Encodes the arcs of vertices [lo, hi) of block (r, c) (sorted, in `arcs`) as pieces of the
  // block's directory, neighbours and weights, after the `progressed` arcs and listed vertices
  // that other pieces of the block hold.
  template <typename Put>
  void encode(const Group& group, uint32_t r, uint32_t c, uint64_t lo, uint64_t hi,
              Progressed progressed, const Arc<Id, WOut>* arcs, std::vector<unsigned char>& piece,
              Put& put) const {
    const auto& e = index_[uint64_t{r} * g_.p() + c];
    const auto positions = format::part_positions(e.part_bytes);
    const bool dcsr = e.layout == static_cast<uint8_t>(format::BlockLayout::kDcsr);
    const bool last = hi == g_.first(r + 1);
    const uint32_t* counts = group.counts.data() + group.at(g_, r, c, lo);
    // Directory: offsets (and DCSR vertices) of the listed entries of this chunk.
    uint64_t listed = 0, arcs_here = 0;
    for (uint64_t x = 0; x < hi - lo; ++x) {
      listed += !dcsr || counts[x] != 0;
      arcs_here += counts[x];
    }
    const uint64_t first_entry = dcsr ? progressed.listed : lo - g_.first(r);
    piece.assign((listed + last) * e.offset_bytes, 0);
    uint64_t j = 0, running = progressed.arcs;
    for (uint64_t x = 0; x < hi - lo; ++x) {
      if (dcsr && counts[x] == 0) continue;
      store_width(piece.data(), j++, running, e.offset_bytes);
      running += counts[x];
    }
    if (last) store_width(piece.data(), j, running, e.offset_bytes);
    put(e.offset + first_entry * e.offset_bytes, piece.data(), piece.size());
    if (dcsr && listed > 0) {
      piece.assign(listed * e.vertex_bytes, 0);
      j = 0;
      for (uint64_t x = 0; x < hi - lo; ++x)
        if (counts[x] != 0) store_width(piece.data(), j++, lo + x - g_.first(r), e.vertex_bytes);
      put(e.offset + format::dcsr_vertices_at(e.vertex_count, e.offset_bytes) +
              progressed.listed * e.vertex_bytes,
          piece.data(), piece.size());
    }
    if (arcs_here > 0) {
      piece.assign(arcs_here * e.id_bytes, 0);
      const uint64_t column = g_.first(c);
      for (uint64_t i = 0; i < arcs_here; ++i)
        store_width(piece.data(), i, arcs[i].minor - column, e.id_bytes);
      put(e.offset + positions.at[format::kNeighbors] + progressed.arcs * e.id_bytes, piece.data(),
          piece.size());
      if constexpr (kWeighted) {
        piece.resize(arcs_here * sizeof(WOut));
        for (uint64_t i = 0; i < arcs_here; ++i)
          std::memcpy(piece.data() + i * sizeof(WOut), &arcs[i].w, sizeof(WOut));
        put(e.offset + positions.at[format::kWeights] + progressed.arcs * sizeof(WOut),
            piece.data(), piece.size());
      }
    }
  }

  template <typename Hash>
  void hash_group(const Group& group, Hash&& hash) {
    const uint32_t p = g_.p();
    const uint64_t first = uint64_t{group.r0} * p, last = uint64_t{group.r1} * p;
#pragma omp parallel for schedule(dynamic, 16)
    for (uint64_t k = first; k < last; ++k) {
      auto& e = index_[k];
      const auto positions = format::part_positions(e.part_bytes);
      for (int part = 0; part < format::kParts; ++part)
        e.hash[part] = hash(e.offset + positions.at[part], e.part_bytes[part]);
    }
  }

  void write_degrees(format::SectionKind kind) {
    const uint64_t n = degrees_.size();
    uint64_t max_degree = 0;
#pragma omp parallel for reduction(max : max_degree)
    for (uint64_t x = 0; x < n; ++x) max_degree = std::max(max_degree, degrees_[x]);
    if (max_degree < (uint64_t{1} << 32)) {
      MappedVector<uint32_t> narrow(n);
#pragma omp parallel for
      for (uint64_t x = 0; x < n; ++x) narrow[x] = static_cast<uint32_t>(degrees_[x]);
      writer_.write_all(writer_.add_section(kind, 4, n * 4), narrow.span());
    } else {
      writer_.write_all(writer_.add_section(kind, 8, n * 8), degrees_);
    }
  }

  const Source& arcs_;
  bool by_destination_;
  Ranges g_;
  std::span<const uint64_t> degrees_;
  GraphWriter& writer_;
  bool progress_;
  std::vector<format::BlockEntry> index_;
  std::vector<Progressed> done_;
  size_t s_blocks_ = 0;
  uint64_t base_ = 0;  // the blocks section's first byte in the file
  uint64_t end_ = 0;   // bytes of the blocks section laid out so far
};

}  // namespace tg::grid_build
