#include "graph/builder.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "graph/format.h"
#include "util/error.h"
#include "util/log.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"

namespace tg {

using format::SectionKind;
using format::WeightType;

namespace {

// ---------------------------------------------------------------------------------------------
// Ids: map the input's ids to dense vertices 0..n-1 in increasing id order.

struct IdResolution {
  uint64_t n = 0;
  uint64_t base = 0;           // original = dense + base, when map is empty
  MappedVector<uint64_t> map;  // original id of each dense vertex (label mode, gaps in the ids)
};

template <typename Id, typename W>
std::pair<uint64_t, uint64_t> id_bounds(const EdgeArray<Id, W>& edges) {
  uint64_t lo = std::numeric_limits<uint64_t>::max(), hi = 0;
#pragma omp parallel for reduction(min : lo) reduction(max : hi)
  for (size_t i = 0; i < edges.size(); ++i) {
    lo = std::min<uint64_t>(lo, std::min<uint64_t>(edges[i].u, edges[i].v));
    hi = std::max<uint64_t>(hi, std::max<uint64_t>(edges[i].u, edges[i].v));
  }
  return {lo, hi};
}

template <typename Id, typename W, typename F>
void remap_ids(EdgeArray<Id, W>& edges, F to_dense) {
#pragma omp parallel for
  for (size_t i = 0; i < edges.size(); ++i) {
    edges[i].u = static_cast<Id>(to_dense(edges[i].u));
    edges[i].v = static_cast<Id>(to_dense(edges[i].v));
  }
}

template <typename Id, typename W>
IdResolution resolve_ids(EdgeArray<Id, W>& edges, const EdgeList& list) {
  IdResolution r;
  // Plain variables, not a structured binding: clang before 16 cannot capture bindings into the
  // OpenMP regions below (the ThreadSanitizer build uses clang 14).
  const std::pair<uint64_t, uint64_t> bounds = id_bounds(edges);
  const uint64_t lo = bounds.first, hi = bounds.second;
  const bool any = !edges.empty();
  if (list.declared_vertices || list.id_mode == IdMode::kIndex) {
    // The vertices are base .. base+n-1; parsers have bounds-checked ids against a declared count.
    r.base = list.id_base;
    r.n = list.declared_vertices ? *list.declared_vertices : (any ? hi - r.base + 1 : 0);
    if (any && (lo < r.base || hi - r.base >= r.n)) {
      fail("{}: vertex id {} is outside [{}, {}]", list.source_name, lo < r.base ? lo : hi, r.base,
           r.base + r.n - 1);
    }
    if (r.base != 0) remap_ids(edges, [base = r.base](uint64_t x) { return x - base; });
    return r;
  }
  if (!any) return r;
  const uint64_t width = hi - lo;  // span - 1: the span itself overflows for labels 0..2^64-1
  const uint64_t endpoints = 2 * edges.size();
  if (width < std::max<uint64_t>(4 * endpoints, uint64_t{1} << 24)) {
    const uint64_t span = width + 1;
    // Dense enough for a direct table: mark the ids present, number them in order.
    MappedVector<uint64_t> slot(span);  // 1 if present, then the dense id
#pragma omp parallel for
    for (size_t i = 0; i < edges.size(); ++i) {
      __atomic_store_n(&slot[edges[i].u - lo], 1, __ATOMIC_RELAXED);
      __atomic_store_n(&slot[edges[i].v - lo], 1, __ATOMIC_RELAXED);
    }
    r.n = exclusive_prefix_sum(slot.data(), slot.size());
    if (r.n == span) {
      r.base = lo;
    } else {
      r.map.resize(r.n);
#pragma omp parallel for
      for (uint64_t k = 0; k < span; ++k) {
        const uint64_t next = k + 1 < span ? slot[k + 1] : r.n;
        if (next != slot[k]) r.map[slot[k]] = lo + k;
      }
    }
    if (r.base != 0 || !r.map.empty()) {
      remap_ids(edges, [&slot, lo = lo](uint64_t x) { return slot[x - lo]; });
    }
    return r;
  }
  // Sparse ids: sort the distinct ids and find each by binary search.
  MappedVector<uint64_t> ids(endpoints);
#pragma omp parallel for
  for (size_t i = 0; i < edges.size(); ++i) {
    ids[2 * i] = edges[i].u;
    ids[2 * i + 1] = edges[i].v;
  }
  const int shift = std::max(0, static_cast<int>(std::bit_width(width)) - 12);
  parallel_bucket_sort(ids.data(), ids.size(), (width >> shift) + 1, std::less<uint64_t>(),
                       [lo = lo, shift](uint64_t x) { return (x - lo) >> shift; });
  ids.resize(static_cast<size_t>(std::unique(ids.begin(), ids.end()) - ids.begin()));
  ids.shrink_to_fit();
  r.n = ids.size();
  const uint64_t* first = ids.data();
  const uint64_t* last = ids.data() + ids.size();
  remap_ids(edges, [first, last](uint64_t x) { return std::lower_bound(first, last, x) - first; });
  r.map = std::move(ids);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Cleaning: orient undirected edges, drop self-loops, sort, drop duplicates.

template <typename Id, typename W>
bool edge_less(const Edge<Id, W>& a, const Edge<Id, W>& b) {
  if (a.u != b.u) return a.u < b.u;
  if (a.v != b.v) return a.v < b.v;
  if constexpr (std::is_same_v<W, double>) return a.w < b.w;  // duplicates keep the least weight
  return false;
}

template <typename Id, typename W>
void sort_edges(EdgeArray<Id, W>& edges, uint64_t n) {
  bool sorted = true;
#pragma omp parallel for reduction(&& : sorted)
  for (size_t i = 1; i < edges.size(); ++i) sorted = sorted && !edge_less(edges[i], edges[i - 1]);
  if (sorted) return;
  const uint64_t buckets_wanted = std::max<uint64_t>(1, static_cast<uint64_t>(max_threads()) * 64);
  const int shift = std::max(0, static_cast<int>(std::bit_width(n)) -
                                    static_cast<int>(std::bit_width(buckets_wanted)));
  parallel_bucket_sort(edges.data(), edges.size(), (n >> shift) + 1, edge_less<Id, W>,
                       [shift](const Edge<Id, W>& e) { return static_cast<size_t>(e.u) >> shift; });
}

// ---------------------------------------------------------------------------------------------
// The block grid.

enum class Orientation { kBySource, kByDestination, kSymmetric };

struct GridKinds {
  SectionKind index, offsets, neighbors, weights, degrees;
};

struct Grid {
  uint64_t n;
  uint32_t p;
  std::vector<uint64_t> ranges;  // P + 1 boundaries

  uint32_t range_of(uint64_t x) const {
    // Ranges are equal in size except for rounding, so a division finds the range; adjust for
    // the rounding by at most one step.
    uint32_t r = static_cast<uint32_t>(x * p / std::max<uint64_t>(n, 1));
    while (r + 1 < p && ranges[r + 1] <= x) ++r;
    while (r > 0 && ranges[r] > x) --r;
    return r;
  }
  // Index of vertex x's first offset in block (major range of x, minor column c).
  uint64_t offset_slot(uint64_t x, uint32_t r, uint32_t c) const {
    return p * (ranges[r] + r) + c * (ranges[r + 1] - ranges[r] + 1) + (x - ranges[r]);
  }
  uint64_t offsets_size() const { return uint64_t{p} * n + uint64_t{p} * p; }
};

template <typename Id, typename W, typename F>
void for_each_arc(const Edge<Id, W>& e, Orientation o, F emit) {
  switch (o) {
    case Orientation::kBySource: emit(e.u, e.v, e.w); break;
    case Orientation::kByDestination: emit(e.v, e.u, e.w); break;
    case Orientation::kSymmetric:
      emit(e.u, e.v, e.w);
      if (e.u != e.v) emit(e.v, e.u, e.w);
      break;
  }
}

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

template <typename WOut, typename W>
WOut narrow_weight(const W& w) {
  if constexpr (std::is_same_v<WOut, NoWeight>) {
    return {};
  } else {
    return static_cast<WOut>(w);
  }
}

// Writes one grid: index, offsets, neighbors, weights, degrees. Returns the arc count.
template <typename Id, typename W, typename WOut>
uint64_t write_grid(const EdgeArray<Id, W>& edges, Orientation orientation, const Grid& grid,
                    const GridKinds& kinds, GraphWriter& writer, bool progress) {
  const uint32_t p = grid.p;
  // 1. Count arcs per (major vertex, minor block column), in the offsets' own layout.
  MappedVector<uint32_t> offsets(grid.offsets_size());
  std::atomic<bool> overflow{false};
#pragma omp parallel for
  for (size_t i = 0; i < edges.size(); ++i) {
    for_each_arc(edges[i], orientation, [&](uint64_t major, uint64_t minor, const W&) {
      const uint32_t r = grid.range_of(major), c = grid.range_of(minor);
      if (__atomic_add_fetch(&offsets[grid.offset_slot(major, r, c)], 1u, __ATOMIC_RELAXED) == 0) {
        overflow = true;
      }
    });
  }
  // 2. Turn counts into local offsets per block, and fill the block index and the degrees.
  std::vector<format::BlockEntry> index(uint64_t{p} * p);
  MappedVector<uint64_t> degrees(grid.n);
  uint64_t edges_at = 0, offsets_at = 0;
  for (uint32_t r = 0; r < p; ++r) {
    const uint64_t size = grid.ranges[r + 1] - grid.ranges[r];
    for (uint32_t c = 0; c < p; ++c) {
      uint32_t* block = offsets.data() + offsets_at;
      uint64_t total = 0;
      for (uint64_t k = 0; k < size; ++k) {
        const uint64_t count = block[k];
        degrees[grid.ranges[r] + k] += count;
        block[k] = static_cast<uint32_t>(total);
        total += count;
        if (total >= (uint64_t{1} << 32)) overflow = true;
      }
      block[size] = static_cast<uint32_t>(total);
      index[uint64_t{r} * p + c] = {offsets_at, edges_at, total};
      offsets_at += size + 1;
      edges_at += total;
    }
  }
  if (overflow) {
    fail("a block of the {}x{} grid holds 2^32 or more arcs; use more blocks (--blocks)", p, p);
  }
  const uint64_t arcs = edges_at;
  const size_t s_index = writer.add_section(kinds.index, sizeof(format::BlockEntry),
                                            index.size() * sizeof(format::BlockEntry));
  const size_t s_offsets = writer.add_section(kinds.offsets, 4, offsets.size() * 4);
  const size_t s_neighbors = writer.add_section(kinds.neighbors, sizeof(Id), arcs * sizeof(Id));
  constexpr bool kWeighted = !std::is_same_v<WOut, NoWeight>;
  const size_t s_weights = kWeighted ? writer.add_section(kinds.weights, sizeof(WOut), arcs * sizeof(WOut)) : 0;
  writer.write_all(s_index, std::span<const format::BlockEntry>(index));
  writer.write_all(s_offsets, offsets.span());

  // 3. Fill the arcs by chunks of major vertices (never crossing a range), each chunk gathered
  // by one pass over the edges, its lists sorted so the file does not depend on thread timing.
  // About a sixth of the arcs per chunk bounds the extra memory; 32-bit cursors bound it too.
  const uint64_t chunk_arcs = std::min<uint64_t>(std::max<uint64_t>(uint64_t{1} << 23, arcs / 6 + 1), uint64_t{1} << 31);
  Progress bar(orientation == Orientation::kByDestination ? "writing in" : "writing", arcs, progress);
  uint64_t arcs_written = 0;
  MappedVector<Arc<Id, WOut>> buffer;
  std::vector<Id> neighbor_out;
  std::vector<WOut> weight_out;
  for (uint32_t r = 0; r < p; ++r) {
    uint64_t a = grid.ranges[r];
    while (a < grid.ranges[r + 1]) {
      // Grow the chunk [a, b) while it stays under the cap (at least one vertex).
      uint64_t b = a, in_chunk = 0;
      while (b < grid.ranges[r + 1] && (b == a || in_chunk + degrees[b] <= chunk_arcs)) in_chunk += degrees[b++];
      // Segment c of the buffer holds block (r, c)'s arcs of vertices a..b-1.
      std::vector<uint64_t> segment(p + 1, 0);
      for (uint32_t c = 0; c < p; ++c) {
        segment[c + 1] = segment[c] + offsets[grid.offset_slot(b, r, c)] - offsets[grid.offset_slot(a, r, c)];
      }
      buffer.resize(in_chunk);
      std::vector<uint32_t> cursor((b - a) * p);
      for (uint64_t x = a; x < b; ++x)
        for (uint32_t c = 0; c < p; ++c) {
          cursor[(x - a) * p + c] = static_cast<uint32_t>(
              segment[c] + offsets[grid.offset_slot(x, r, c)] - offsets[grid.offset_slot(a, r, c)]);
        }
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < edges.size(); ++i) {
        for_each_arc(edges[i], orientation, [&](uint64_t major, uint64_t minor, const W& w) {
          if (major < a || major >= b) return;
          const uint32_t c = grid.range_of(minor);
          const uint32_t at = __atomic_fetch_add(&cursor[(major - a) * p + c], 1u, __ATOMIC_RELAXED);
          buffer[at] = {static_cast<Id>(minor), narrow_weight<WOut>(w)};
        });
      }
#pragma omp parallel for schedule(dynamic, 256)
      for (uint64_t x = a; x < b; ++x)
        for (uint32_t c = 0; c < p; ++c) {
          const uint64_t from = segment[c] + offsets[grid.offset_slot(x, r, c)] - offsets[grid.offset_slot(a, r, c)];
          // x's offsets and the next one bound x's list in block (r, c).
          const uint64_t to = segment[c] + offsets[grid.offset_slot(x, r, c) + 1] - offsets[grid.offset_slot(a, r, c)];
          std::sort(buffer.data() + from, buffer.data() + to);
        }
      neighbor_out.resize(in_chunk);
      if constexpr (kWeighted) weight_out.resize(in_chunk);
#pragma omp parallel for
      for (uint64_t k = 0; k < in_chunk; ++k) {
        neighbor_out[k] = buffer[k].minor;
        if constexpr (kWeighted) weight_out[k] = buffer[k].w;
      }
      for (uint32_t c = 0; c < p; ++c) {
        const auto& block = index[uint64_t{r} * p + c];
        const uint64_t at = block.edges_begin + offsets[grid.offset_slot(a, r, c)];
        const uint64_t count = segment[c + 1] - segment[c];
        writer.write(s_neighbors, at * sizeof(Id), neighbor_out.data() + segment[c], count * sizeof(Id));
        if constexpr (kWeighted) {
          writer.write(s_weights, at * sizeof(WOut), weight_out.data() + segment[c], count * sizeof(WOut));
        }
      }
      arcs_written += in_chunk;
      bar.update(arcs_written);
      a = b;
    }
  }
  bar.finish();
  // 4. Degrees, 32-bit unless some vertex needs more.
  uint64_t max_degree = 0;
#pragma omp parallel for reduction(max : max_degree)
  for (uint64_t x = 0; x < grid.n; ++x) max_degree = std::max(max_degree, degrees[x]);
  if (max_degree < (uint64_t{1} << 32)) {
    MappedVector<uint32_t> narrow(grid.n);
#pragma omp parallel for
    for (uint64_t x = 0; x < grid.n; ++x) narrow[x] = static_cast<uint32_t>(degrees[x]);
    writer.write_all(writer.add_section(kinds.degrees, 4, grid.n * 4), narrow.span());
  } else {
    writer.write_all(writer.add_section(kinds.degrees, 8, grid.n * 8), degrees.span());
  }
  return arcs;
}

WeightType choose_weight_type(const EdgeList& list) {
  if (!list.weighted()) return WeightType::kNone;
  const auto& info = list.weight_info;
  if (!info.all_integral) return WeightType::kFloat64;
  if (info.min >= std::numeric_limits<int32_t>::min() && info.max <= std::numeric_limits<int32_t>::max()) {
    return WeightType::kInt32;
  }
  if (info.min >= -9.2e18 && info.max <= 9.2e18) return WeightType::kInt64;
  return WeightType::kFloat64;
}

template <typename Id, typename W>
BuildReport build_dense(EdgeArray<Id, W>& edges, const EdgeList& list, IdResolution& ids,
                        const BuildOptions& options, GraphWriter& writer, BuildReport report) {
  Timer timer;
  const bool undirected = options.undirected || list.undirected_input;
  const uint64_t n = ids.n;
  // Orient, drop self-loops, sort, drop duplicates.
  if (undirected) {
#pragma omp parallel for
    for (size_t i = 0; i < edges.size(); ++i) {
      if (edges[i].u > edges[i].v) std::swap(edges[i].u, edges[i].v);
    }
  }
  size_t size = edges.size();
  if (!options.keep_self_loops) {
    size = parallel_compact(edges.data(), size, [](const Edge<Id, W>& e) { return e.u != e.v; });
    report.self_loops_removed = edges.size() - size;
    edges.resize(size);
  }
  {
    Progress bar("sorting", 1, options.progress);
    bar.update(0);
    sort_edges(edges, n);
  }
  if (!options.keep_duplicates && size > 0) {
    // Keep an edge when it differs from its predecessor; the sort put the least weight first.
    MappedVector<uint8_t> keep(size);
    keep[0] = 1;
#pragma omp parallel for
    for (size_t i = 1; i < size; ++i) keep[i] = edges[i].u != edges[i - 1].u || edges[i].v != edges[i - 1].v;
    size_t kept = 0;
    for (size_t i = 0; i < size; ++i) {  // serial: order-preserving and bandwidth-bound
      if (keep[i]) edges[kept++] = edges[i];
    }
    report.duplicates_removed = size - kept;
    edges.resize(kept);
    edges.shrink_to_fit();
  }
  report.clean_seconds = timer.seconds();
  timer.restart();

  // The grid.
  Grid grid{n, 1, {}};
  if (options.blocks > 0) {
    grid.p = options.blocks;
  } else {
    const uint64_t arcs_bound = undirected ? 2 * edges.size() : edges.size();
    grid.p = static_cast<uint32_t>(std::max<uint64_t>(1, arcs_bound >> 31));
  }
  if (n > 0 && grid.p > n) grid.p = static_cast<uint32_t>(std::max<uint64_t>(1, n));
  grid.ranges.resize(grid.p + 1);
  for (uint32_t i = 0; i <= grid.p; ++i) grid.ranges[i] = n * i / grid.p;

  const auto& carried = options.provenance;
  const WeightType weight_type = carried ? static_cast<WeightType>(carried->header.weight_type) : choose_weight_type(list);
  format::Header header{};
  header.num_vertices = n;
  header.num_edges = edges.size();
  header.input_edges = report.input_edges;
  header.self_loops_removed = report.self_loops_removed;
  header.duplicates_removed = report.duplicates_removed;
  header.id_base = ids.base;
  header.flags = (undirected ? 0 : format::Flags::kDirected) |
                 (options.keep_self_loops ? format::Flags::kSelfLoopsKept : 0) |
                 (options.keep_duplicates ? format::Flags::kDuplicatesKept : 0) |
                 (options.generated_weights ? format::Flags::kGeneratedWeights : 0);
  header.blocks_per_side = grid.p;
  header.id_bytes = sizeof(Id);
  header.id_mode = static_cast<uint8_t>(list.id_mode);
  header.weight_type = static_cast<uint8_t>(weight_type);
  header.min_weight = list.weighted() ? list.weight_info.min : 0;
  header.max_weight = list.weighted() ? list.weight_info.max : 0;
  if (carried) {
    const auto& c = carried->header;
    header.input_edges = c.input_edges;
    header.self_loops_removed = c.self_loops_removed;
    header.duplicates_removed = c.duplicates_removed;
    header.id_base = c.id_base;
    header.flags = c.flags;
    header.id_mode = c.id_mode;
    header.min_weight = c.min_weight;
    header.max_weight = c.max_weight;
  }

  writer.write_all(writer.add_section(SectionKind::kRanges, 8, (grid.p + 1) * 8),
                   std::span<const uint64_t>(grid.ranges));
  auto write_both = [&]<typename WOut>() {
    const GridKinds out{SectionKind::kOutIndex, SectionKind::kOutOffsets, SectionKind::kOutNeighbors,
                        SectionKind::kOutWeights, SectionKind::kOutDegrees};
    const GridKinds in{SectionKind::kInIndex, SectionKind::kInOffsets, SectionKind::kInNeighbors,
                       SectionKind::kInWeights, SectionKind::kInDegrees};
    header.num_arcs = write_grid<Id, W, WOut>(
        edges, undirected ? Orientation::kSymmetric : Orientation::kBySource, grid, out, writer, options.progress);
    if (!undirected) write_grid<Id, W, WOut>(edges, Orientation::kByDestination, grid, in, writer, options.progress);
  };
  if constexpr (std::is_same_v<W, double>) {
    switch (weight_type) {
      case WeightType::kInt32: write_both.template operator()<int32_t>(); break;
      case WeightType::kInt64: write_both.template operator()<int64_t>(); break;
      default: write_both.template operator()<double>(); break;
    }
  } else {
    write_both.template operator()<NoWeight>();
  }
  if (carried && !carried->id_map.empty()) {
    writer.write_all(writer.add_section(SectionKind::kIdMap, 8, n * 8), carried->id_map);
  } else if (!ids.map.empty()) {
    writer.write_all(writer.add_section(SectionKind::kIdMap, 8, n * 8), ids.map.span());
  }
  writer.commit(header);
  report.vertices = n;
  report.arcs = header.num_arcs;
  report.edges = header.num_edges;
  report.blocks = grid.p;
  report.write_seconds = timer.seconds();
  return report;
}

}  // namespace

BuildReport build_graph(EdgeList list, const BuildOptions& options, GraphWriter& writer) {
  BuildReport report;
  report.input_edges = list.size();
  return std::visit(
      [&]<typename Id, typename W>(EdgeArray<Id, W>& edges) -> BuildReport {
        Timer timer;
        IdResolution ids = resolve_ids(edges, list);
        report.ids_seconds = timer.seconds();
        if constexpr (std::is_same_v<Id, uint64_t>) {
          if (ids.n <= (uint64_t{1} << 32)) {
            // Every dense id fits in 32 bits: halve the edge array before building.
            EdgeArray<uint32_t, W> narrow(edges.size());
#pragma omp parallel for
            for (size_t i = 0; i < edges.size(); ++i) {
              narrow[i] = {static_cast<uint32_t>(edges[i].u), static_cast<uint32_t>(edges[i].v), edges[i].w};
            }
            edges.clear();
            return build_dense(narrow, list, ids, options, writer, report);
          }
        }
        return build_dense(edges, list, ids, options, writer, report);
      },
      list.edges);
}

}  // namespace tg
