#include "ingest/builder.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "graph/format.h"
#include "graph/vertex_ranges.h"
#include "ingest/build_steps.h"
#include "ingest/grid_builder.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_names.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"

namespace tg {

using format::SectionKind;
using format::WeightType;

namespace {

// The index holds one row per block of each grid, in memory while the file is written and
// opened: a grid whose index alone exceeds half this machine's memory is refused up front with
// the largest side that fits (a 100000x100000 grid asked for 745 GiB and died "out of memory").
void refuse_an_index_beyond_memory(uint32_t p, uint64_t grids) {
  const uint64_t row = sizeof(format::BlockEntry);
  const double index = static_cast<double>(p) * p * static_cast<double>(grids * row);
  const double memory =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (memory <= 0 || index <= memory / 2) return;
  const auto side = static_cast<uint64_t>(std::sqrt(memory / 2 / static_cast<double>(grids * row)));
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  fail(
      "{}: a {}x{} grid has {} blocks per grid, whose index rows ({} bytes each) alone take {:.1f} "
      "GiB, "
      "more than half this machine's memory ({:.1f} GiB); at most {} blocks per side fit",
      option_with("blocks", std::to_string(p), false), p, p, uint64_t{p} * p, row, index / kGiB,
      memory / kGiB, side);
}

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
    const build::IndexRange range = build::index_range(list, any, lo, hi);
    r.base = range.base;
    r.n = range.n;
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

// A function object, not a function: std::sort inlines it (through a function pointer the
// comparison was a call per step, a sixth of `generate -g 20`'s time).
struct EdgeLess {
  template <typename Id, typename W>
  bool operator()(const Edge<Id, W>& a, const Edge<Id, W>& b) const {
    if constexpr (sizeof(Id) == 4 && !std::is_same_v<W, double>) {  // one branch-free compare
      return (uint64_t{a.u} << 32 | a.v) < (uint64_t{b.u} << 32 | b.v);
    }
    if (a.u != b.u) return a.u < b.u;
    if (a.v != b.v) return a.v < b.v;
    if constexpr (std::is_same_v<W, double>) return a.w < b.w;  // duplicates keep the least weight
    return false;
  }
};

template <typename Id, typename W>
void sort_edges(EdgeArray<Id, W>& edges, uint64_t n) {
  bool sorted = true;
#pragma omp parallel for reduction(&& : sorted)
  for (size_t i = 1; i < edges.size(); ++i) sorted = sorted && !EdgeLess()(edges[i], edges[i - 1]);
  if (sorted) return;
  const uint64_t buckets_wanted = std::max<uint64_t>(1, static_cast<uint64_t>(max_threads()) * 64);
  const int shift = std::max(
      0, static_cast<int>(std::bit_width(n)) - static_cast<int>(std::bit_width(buckets_wanted)));
  auto bucket_of = [shift](const Edge<Id, W>& e) { return static_cast<size_t>(e.u) >> shift; };
  if constexpr (sizeof(Id) == 4 && std::is_same_v<W, NoWeight>) {  // the key is the whole edge
    parallel_bucket_radix_sort(
        edges.data(), edges.size(), (n >> shift) + 1,
        [](const Edge<Id, W>& e) { return uint64_t{e.u} << 32 | e.v; }, bucket_of);
  } else {
    parallel_bucket_sort(edges.data(), edges.size(), (n >> shift) + 1, EdgeLess(), bucket_of);
  }
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
    for (size_t i = 1; i < size; ++i)
      keep[i] = edges[i].u != edges[i - 1].u || edges[i].v != edges[i - 1].v;
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

  using grid_build::Orientation;
  const Orientation out_orientation = undirected ? Orientation::kSymmetric : Orientation::kBySource;
  const auto out_degrees =
      grid_build::major_degrees(grid_build::EdgeArraySource<Id, W>(edges, out_orientation), n);
  const build::GridPlan grid =
      build::plan_grid(out_degrees.span(), edges.size(), undirected, options.blocks);
  const uint32_t p = grid.p;
  const std::vector<uint64_t>& bounds = grid.bounds;
  const grid_build::Ranges ranges = grid.ranges();

  const auto& carried = options.provenance;
  build::GraphFacts facts;
  facts.vertices = n;
  facts.edges = edges.size();
  facts.input_edges = report.input_edges;
  facts.self_loops_removed = report.self_loops_removed;
  facts.duplicates_removed = report.duplicates_removed;
  facts.id_base = ids.base;
  facts.undirected = undirected;
  facts.id_mode = list.id_mode;
  facts.id_bytes = sizeof(Id);
  facts.weighted = list.weighted();
  facts.weights = list.weight_info;
  format::Header header = build::graph_header(facts, grid, options);
  const WeightType weight_type = static_cast<WeightType>(header.weight_type);

  writer.write_all(writer.add_section(SectionKind::kRanges, 8, (uint64_t{p} + 1) * 8),
                   std::span<const uint64_t>(bounds));
  // A sixth of the arcs per gathered chunk bounds the extra memory (at least 8 M arcs).
  const uint64_t arcs_bound = undirected ? 2 * edges.size() : edges.size();
  const uint64_t chunk_arcs = std::min<uint64_t>(
      std::max<uint64_t>(uint64_t{1} << 23, arcs_bound / 6 + 1), uint64_t{1} << 31);
  // Counts of a group stay near the vertex count (and at least 16 M), whatever P is.
  const grid_build::GridLimits limits{chunk_arcs, std::max<uint64_t>(n + p, uint64_t{1} << 24)};
  auto write_both = [&]<typename WOut>() {
    using Source = grid_build::EdgeArraySource<Id, W>;
    using Writer = grid_build::GridWriter<Source, Id, WOut>;
    const Source out_arcs(edges, out_orientation);
    header.num_arcs =
        Writer(out_arcs, false, ranges, out_degrees.span(), writer, options.progress)
            .write({SectionKind::kOutIndex, SectionKind::kOutBlocks, SectionKind::kOutDegrees},
                   limits);
    if (!undirected) {
      const Source in_arcs(edges, Orientation::kByDestination);
      const auto in_degrees = grid_build::major_degrees(in_arcs, n);
      Writer(in_arcs, true, ranges, in_degrees.span(), writer, options.progress)
          .write({SectionKind::kInIndex, SectionKind::kInBlocks, SectionKind::kInDegrees}, limits);
    }
  };
  if constexpr (std::is_same_v<W, double>) {
    switch (weight_type) {
      case WeightType::kInt32:
        write_both.template operator()<int32_t>();
        break;
      case WeightType::kInt64:
        write_both.template operator()<int64_t>();
        break;
      default:
        write_both.template operator()<double>();
        break;
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
  report.blocks = p;
  report.write_seconds = timer.seconds();
  return report;
}

}  // namespace

namespace build {

WeightType weight_type_for(bool weighted, const WeightInfo& info) {
  if (!weighted) return WeightType::kNone;
  if (!info.all_integral) return WeightType::kFloat64;
  if (info.min >= std::numeric_limits<int32_t>::min() &&
      info.max <= std::numeric_limits<int32_t>::max()) {
    return WeightType::kInt32;
  }
  if (info.min >= -9.2e18 && info.max <= 9.2e18) return WeightType::kInt64;
  return WeightType::kFloat64;
}

IndexRange index_range(const EdgeList& list, bool any, uint64_t lo, uint64_t hi) {
  // Parsers have bounds-checked ids against a declared count; this catches the rest.
  IndexRange r;
  r.base = list.id_base;
  r.n = list.declared_vertices ? *list.declared_vertices : (any ? hi - r.base + 1 : 0);
  if (any && (lo < r.base || hi - r.base >= r.n)) {
    fail("{}: vertex id {} is outside [{}, {}]", list.source_name, lo < r.base ? lo : hi, r.base,
         r.base + r.n - 1);
  }
  return r;
}

GridPlan plan_grid(std::span<const uint64_t> out_degrees, uint64_t edges, bool undirected,
                   uint32_t blocks) {
  const uint64_t n = out_degrees.size();
  GridPlan g;
  g.requested = blocks;
  if (g.requested == 0) {
    const uint64_t arcs_bound = undirected ? 2 * edges : edges;
    g.requested = static_cast<uint32_t>(std::max<uint64_t>(1, arcs_bound >> 31));
  }
  g.p = std::min(g.requested, most_ranges(n));
  if (g.p < g.requested) {
    log::info("note: {} vertices make at most {} ranges of 64; the grid is {}x{}, not {}x{}", n,
              g.p, g.p, g.p, g.requested, g.requested);
  }
  refuse_an_index_beyond_memory(g.p, undirected ? 1 : 2);
  g.bounds = balanced_ranges(out_degrees, g.p);
  g.of_word = range_of_words(g.bounds, n);
  return g;
}

format::Header graph_header(const GraphFacts& f, const GridPlan& grid,
                            const BuildOptions& options) {
  format::Header header{};
  header.num_vertices = f.vertices;
  header.num_edges = f.edges;
  header.input_edges = f.input_edges;
  header.self_loops_removed = f.self_loops_removed;
  header.duplicates_removed = f.duplicates_removed;
  header.id_base = f.id_base;
  header.flags = (f.undirected ? 0 : format::Flags::kDirected) |
                 (options.keep_self_loops ? format::Flags::kSelfLoopsKept : 0) |
                 (options.keep_duplicates ? format::Flags::kDuplicatesKept : 0) |
                 (options.generated_weights ? format::Flags::kGeneratedWeights : 0);
  header.blocks_per_side = grid.p;
  header.requested_blocks = grid.requested;
  header.id_bytes = f.id_bytes;
  header.id_mode = static_cast<uint8_t>(f.id_mode);
  header.weight_type = static_cast<uint8_t>(weight_type_for(f.weighted, f.weights));
  header.min_weight = f.weighted ? f.weights.min : 0;
  header.max_weight = f.weighted ? f.weights.max : 0;
  if (const auto& carried = options.provenance) {
    const auto& c = carried->header;
    header.weight_type = c.weight_type;
    header.input_edges = c.input_edges;
    header.self_loops_removed = c.self_loops_removed;
    header.duplicates_removed = c.duplicates_removed;
    header.id_base = c.id_base;
    header.flags = c.flags;
    header.id_mode = c.id_mode;
    header.min_weight = c.min_weight;
    header.max_weight = c.max_weight;
  }
  return header;
}

}  // namespace build

namespace {

// The edges with ids of type To (each id fits: the caller checked), the input's memory released.
template <typename To, typename From, typename W>
EdgeArray<To, W> with_id_width(EdgeArray<From, W>& edges) {
  EdgeArray<To, W> out(edges.size());
#pragma omp parallel for
  for (size_t i = 0; i < edges.size(); ++i)
    out[i] = {static_cast<To>(edges[i].u), static_cast<To>(edges[i].v), edges[i].w};
  edges.clear();
  return out;
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
        if constexpr (std::is_same_v<Id, uint32_t>) {
          if (options.wide_ids) {
            auto wide = with_id_width<uint64_t>(edges);
            return build_dense(wide, list, ids, options, writer, report);
          }
        }
        if constexpr (std::is_same_v<Id, uint64_t>) {
          if (ids.n <= (uint64_t{1} << 32) && !options.wide_ids) {
            // Every dense id fits in 32 bits: halve the edge array before building.
            auto narrow = with_id_width<uint32_t>(edges);
            return build_dense(narrow, list, ids, options, writer, report);
          }
        }
        return build_dense(edges, list, ids, options, writer, report);
      },
      list.edges);
}

}  // namespace tg
