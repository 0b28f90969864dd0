#include "ingest/bounded_build.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "ingest/build_steps.h"
#include "ingest/grid_builder.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/log.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"

namespace tg {

namespace {

// Dense vertices and the ids the input wrote: an offset (index ids, or labels without gaps) or
// the sorted distinct labels. Both are monotone, which is why the runs may stay in raw ids.
struct IdMap {
  uint64_t n = 0;
  uint64_t base = 0;
  MappedVector<uint64_t> labels;  // empty: raw = dense + base
  // Labels found by rank where they are not too sparse: one bit per id from labels[0] on, and
  // the labels before each 64-bit word. A binary search per arc was 4x slower.
  MappedVector<uint64_t> present, before;

  void index_labels() {
    if (labels.empty()) return;
    const uint64_t span = labels[labels.size() - 1] - labels[0];  // + 1 may overflow
    if (span / 64 > labels.size()) return;  // sparser than one label a word: search
    const uint64_t words = span / 64 + 1;
    present = MappedVector<uint64_t>(words);
    before = MappedVector<uint64_t>(words);
    for (uint64_t raw : labels)
      present[(raw - labels[0]) / 64] |= uint64_t{1} << ((raw - labels[0]) % 64);
    uint64_t count = 0;
    for (uint64_t w = 0; w < words; ++w) {
      before[w] = count;
      count += static_cast<uint64_t>(std::popcount(present[w]));
    }
  }
  uint64_t bytes() const { return (labels.size() + present.size() + before.size()) * 8; }

  uint64_t raw(uint64_t dense) const { return labels.empty() ? dense + base : labels[dense]; }
  uint64_t dense(uint64_t raw) const {
    if (labels.empty()) return raw - base;
    if (!present.empty()) {
      const uint64_t x = raw - labels[0], w = x / 64;
      return before[w] +
             static_cast<uint64_t>(std::popcount(present[w] & ((uint64_t{1} << (x % 64)) - 1)));
    }
    return static_cast<uint64_t>(std::lower_bound(labels.begin(), labels.end(), raw) -
                                 labels.begin());
  }
};

// Which merged arcs the grid keeps: self-loops and duplicates (the same major and minor as the
// last kept arc; the sort put the least weight first) go unless kept, as the in-memory build
// drops them. One per stretch of majors (duplicates are neighbours in one stretch).
class KeptArcs {
 public:
  explicit KeptArcs(const BuildOptions& options)
      : keep_loops_(options.keep_self_loops), keep_duplicates_(options.keep_duplicates) {}
  bool keep(const RunArc& arc) {
    if (!keep_loops_ && arc.major == arc.minor) return false;
    if (!keep_duplicates_ && any_ && arc.major == last_.major && arc.minor == last_.minor)
      return false;
    any_ = true;
    last_ = arc;
    return true;
  }

 private:
  bool keep_loops_, keep_duplicates_, any_ = false;
  RunArc last_{};
};

// The arcs of one grid, merged from its runs in dense ids, as KeptArcs keeps them: the source
// the GridWriter reads (grid_builder.h).
class RunSource {
 public:
  using Weight = double;
  RunSource(ArcRuns& runs, const IdMap& ids, const BuildOptions& options, size_t buffer_bytes)
      : runs_(runs), ids_(ids), options_(options), buffer_bytes_(buffer_bytes) {}

  // The grid is written below dense vertex `end`: its arcs' disk space goes back.
  void release_below(uint64_t end) const {
    runs_.release_below(end >= ids_.n ? UINT64_MAX : ids_.raw(end));
  }

  // f(major, minor, w) for every arc whose major lies in [a, b), from several threads: each
  // merges a stretch of the majors (duplicates are neighbours in one stretch).
  template <typename F>
  void for_arcs_of(uint64_t a, uint64_t b, F&& f) const {
    b = std::min(b, ids_.n);
    if (a >= b) return;
    const uint64_t pieces = std::min<uint64_t>(b - a, static_cast<uint64_t>(max_threads()) * 2);
#pragma omp parallel for schedule(dynamic, 1)
    for (uint64_t k = 0; k < pieces; ++k) {
      const uint64_t first = a + (b - a) * k / pieces, end = a + (b - a) * (k + 1) / pieces;
      if (first == end) continue;
      KeptArcs kept(options_);
      uint64_t major_dense = first;  // majors come in order: each is found by walking on
      runs_.merge(ids_.raw(first), ids_.raw(end - 1), buffer_bytes_,
                  [&](std::span<const RunArc> batch) {
                    for (const RunArc& arc : batch) {
                      if (!kept.keep(arc)) continue;
                      while (ids_.raw(major_dense) < arc.major) ++major_dense;
                      f(major_dense, ids_.dense(arc.minor), arc.w);
                    }
                  });
    }
  }

 private:
  ArcRuns& runs_;
  const IdMap& ids_;
  const BuildOptions& options_;
  size_t buffer_bytes_;
};

// The distinct majors of the runs, in order (every vertex an input edge names is a major of the
// out-runs of an undirected graph, or of the out- or in-runs of a directed one): stretches of
// [lo, hi] merged on all threads, each into its own list, then joined. With `count`, also each
// major's arcs as the grid keeps them (self-loops and duplicates dropped as `count` says) and the
// self-loops kept: an undirected graph's out-degrees, found in the same pass as its labels.
struct Majors {
  MappedVector<uint64_t> labels, degrees;
  uint64_t loops = 0;
};

Majors distinct_majors(const ArcRuns& runs, uint64_t lo, uint64_t hi, size_t buffer_bytes,
                       const BuildOptions* count) {
  const uint64_t pieces = static_cast<uint64_t>(max_threads()) * 2;
  std::vector<std::vector<uint64_t>> found(pieces), degrees(pieces);
  uint64_t loops = 0;
  const uint64_t width = hi - lo;  // + 1 may overflow
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : loops)
  for (uint64_t k = 0; k < pieces; ++k) {
    // Stretch k: [lo + width * k / pieces, the next one's first - 1], the last one up to hi.
    __extension__ using u128 = unsigned __int128;
    const auto at = [&](uint64_t j) {
      return lo + static_cast<uint64_t>(static_cast<u128>(width) * j / pieces);
    };
    const uint64_t first = k == 0 ? lo : at(k) + 1, last = k + 1 == pieces ? hi : at(k + 1);
    if (first > last) continue;
    auto& mine = found[k];
    auto& degree = degrees[k];
    KeptArcs kept(count ? *count : BuildOptions{});
    runs.merge(first, last, buffer_bytes, [&](std::span<const RunArc> batch) {
      for (const RunArc& arc : batch) {
        if (mine.empty() || mine.back() != arc.major) {
          mine.push_back(arc.major);
          if (count) degree.push_back(0);
        }
        if (!count || !kept.keep(arc)) continue;
        ++degree.back();
        loops += arc.major == arc.minor;
      }
    });
  }
  auto join = [](std::vector<std::vector<uint64_t>>& parts) {
    size_t total = 0;
    for (const auto& f : parts) total += f.size();
    MappedVector<uint64_t> out(total);
    size_t at = 0;
    for (auto& f : parts) {
      std::copy(f.begin(), f.end(), out.begin() + at);
      at += f.size();
      std::vector<uint64_t>().swap(f);
    }
    return out;
  };
  Majors m;
  m.labels = join(found);
  if (count) m.degrees = join(degrees);
  m.loops = loops;
  return m;
}

std::string bytes_text(uint64_t bytes) { return format_byte_size(bytes); }

}  // namespace

std::string scratch_folder_for(const std::string& scratch, const std::string& output) {
  if (!scratch.empty()) {
    if (!std::filesystem::is_directory(scratch)) fail("--scratch '{}' is not a folder", scratch);
    return scratch;
  }
  const auto parent = std::filesystem::absolute(output).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

size_t BoundedBuilder::read_chunk_bytes(uint64_t budget) {
  // The reader holds two chunks of text and the parsed edges of one (24 bytes per edge, a line
  // of about 8 bytes or more): about 5 chunks. A quarter of the budget to them: chunks of a
  // megabyte or more keep the reader reading ahead on its own thread (parse.cc).
  return static_cast<size_t>(
      std::clamp<uint64_t>(budget / 20, uint64_t{64} << 10, uint64_t{32} << 20));
}

BoundedBuilder::BoundedBuilder(const BuildOptions& build, const BoundedOptions& bounded)
    : build_(build), bounded_(bounded) {
  if (bounded_.memory_budget < kSmallestBuildBudget) {
    fail("--memory-budget {} is below the smallest the build takes ({})",
         bytes_text(bounded_.memory_budget), bytes_text(kSmallestBuildBudget));
  }
  // The spill buffer must hold enough arcs that the runs stay few (a merge reads every run).
  const uint64_t smallest_buffer = kSmallestBuildBudget / 2;
  if (bounded_.producer_bytes > bounded_.memory_budget - smallest_buffer) {
    fail(
        "--memory-budget {}: {} take {}, which leaves too little to sort the edges in; give at "
        "least {}",
        bytes_text(bounded_.memory_budget), bounded_.producer, bytes_text(bounded_.producer_bytes),
        bytes_text(bounded_.producer_bytes + smallest_buffer));
  }
}

BoundedBuilder::~BoundedBuilder() = default;

void BoundedBuilder::start(bool weighted, bool undirected_input) {
  started_ = true;
  weighted_ = weighted || bounded_.weights != GeneratedWeights::kNone;
  symmetric_ = build_.undirected || undirected_input;
  out_ = std::make_unique<ArcRuns>(bounded_.scratch, weighted_);
  if (!symmetric_) in_ = std::make_unique<ArcRuns>(bounded_.scratch, weighted_);
  // The buffer takes what the reader or generator leaves; it is sorted in place.
  report_.buffer_bytes = bounded_.memory_budget - bounded_.producer_bytes;
}

void BoundedBuilder::add(std::span<const EdgeBatch> batches, uint64_t max_id) {
  if (buffer_.size() < report_.buffer_bytes)
    buffer_.resize(report_.buffer_bytes);  // mapped: pages come as arcs do
  if (max_id > UINT32_MAX && !wide_) {
    spill();
    wide_ = true;
  }
  if (wide_) {
    weighted_ ? add_as<uint64_t, double>(batches) : add_as<uint64_t, NoWeight>(batches);
  } else {
    weighted_ ? add_as<uint32_t, double>(batches) : add_as<uint32_t, NoWeight>(batches);
  }
}

template <typename Id, typename W>
void BoundedBuilder::add_as(std::span<const EdgeBatch> batches) {
  using Arc = SpillArc<Id, W>;
  const size_t capacity = buffer_.size() / sizeof(Arc);
  const bool generated = bounded_.weights != GeneratedWeights::kNone;
  const size_t count = batches.size();
  // Each batch's arcs (two per undirected edge, one per self-loop) and first input edge.
  std::vector<uint64_t> arcs(count), first(count + 1, input_edges_);
  for (size_t k = 0; k < count; ++k) first[k + 1] = first[k] + batches[k].size();
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t k = 0; k < count; ++k) {
    uint64_t a = 0;
    for (const auto& e : batches[k]) a += symmetric_ && e.u != e.v ? 2 : 1;
    arcs[k] = a;
  }
  // Batches in stretches that fit what the buffer has left (a spill between stretches); the
  // arcs' order in the buffer does not matter, the run is sorted.
  size_t k0 = 0;
  while (k0 < count) {
    if (held_ + arcs[k0] > capacity) spill_as<Id, W>();
    if (arcs[k0] > capacity)
      fail("a batch of {} arcs exceeds the build's buffer of {}; give a larger --memory-budget",
           arcs[k0], capacity);
    size_t k1 = k0;
    std::vector<uint64_t> at;
    uint64_t filled = held_;
    while (k1 < count && filled + arcs[k1] <= capacity) {
      at.push_back(filled);
      filled += arcs[k1++];
    }
    Arc* buffer = reinterpret_cast<Arc*>(buffer_.data());
    uint64_t lo = lo_, hi = hi_, loops = 0;
    WeightInfo info;
#pragma omp parallel for schedule(dynamic, 1) reduction(min : lo) reduction(max : hi) reduction(+ : loops)
    for (size_t k = k0; k < k1; ++k) {
      Arc* out = buffer + at[k - k0];
      uint64_t index = first[k];
      WeightInfo local;
      for (const auto& e : batches[k]) {
        Arc arc{static_cast<Id>(e.u), static_cast<Id>(e.v), {}};
        if constexpr (std::is_same_v<W, double>) {
          arc.w = generated ? generated_weight(bounded_.weights, bounded_.weight_seed, index) : e.w;
          if (generated) local.add(arc.w);
        }
        ++index;
        lo = std::min(lo, std::min(e.u, e.v));
        hi = std::max(hi, std::max(e.u, e.v));
        // Self-loops are spilled even when dropped: their ids are vertices all the same.
        loops += e.u == e.v;
        *out++ = arc;
        if (symmetric_ && e.u != e.v) *out++ = Arc{arc.minor, arc.major, arc.w};
      }
      if (generated) {
#pragma omp critical(tg_bounded_weights)
        info.merge(local);
      }
    }
    lo_ = lo;
    hi_ = hi;
    self_loops_ += loops;
    generated_.merge(info);
    input_edges_ = first[k1];
    held_ = filled;
    k0 = k1;
  }
}

void BoundedBuilder::refuse_a_full_disk(uint64_t bytes) const {
  struct statvfs s {};
  if (::statvfs(bounded_.scratch.c_str(), &s) != 0) return;
  const uint64_t free = static_cast<uint64_t>(s.f_bavail) * s.f_frsize;
  if (free < bytes) {
    fail(
        "scratch folder '{}': the next sorted run needs {} but its disk has {} free (runs so far: "
        "{}); "
        "give --scratch a folder on a disk with more room",
        bounded_.scratch, bytes_text(bytes), bytes_text(free),
        bytes_text(out_->bytes() + (in_ ? in_->bytes() : 0)));
  }
}

template <typename Id, typename W>
void BoundedBuilder::spill_as() {
  using Arc = SpillArc<Id, W>;
  if (held_ == 0) return;
  const std::span<Arc> arcs(reinterpret_cast<Arc*>(buffer_.data()), held_);
  refuse_a_full_disk(held_ * out_->record_bytes(hi_) * (in_ ? 2 : 1));
  out_->add_run(arcs);
  if (in_) {
#pragma omp parallel for
    for (size_t i = 0; i < held_; ++i) std::swap(arcs[i].major, arcs[i].minor);
    in_->add_run(arcs);
  }
  held_ = 0;
  report_.runs = out_->runs();
  report_.scratch_bytes = out_->bytes() + (in_ ? in_->bytes() : 0);
}

void BoundedBuilder::spill() {
  if (wide_) {
    weighted_ ? spill_as<uint64_t, double>() : spill_as<uint64_t, NoWeight>();
  } else {
    weighted_ ? spill_as<uint32_t, double>() : spill_as<uint32_t, NoWeight>();
  }
}

BuildReport BoundedBuilder::finish(const EdgeList& list, GraphWriter& writer) {
  if (!started_) start(false, list.undirected_input);
  Timer timer;
  BuildReport report;
  report.input_edges = input_edges_;
  spill();
  buffer_ = MappedVector<unsigned char>();  // the budget now goes to the merge
  const uint64_t budget = bounded_.memory_budget;
  const uint64_t threads = static_cast<uint64_t>(max_threads());
  const uint64_t run_count = std::max<uint64_t>(1, out_->runs() + (in_ ? in_->runs() : 0));
  // Each merge reader holds its bytes and their decoded arcs (up to 3x): an eighth of the budget
  // over every reader of every thread.
  const size_t read_bytes = static_cast<size_t>(
      std::clamp<uint64_t>(budget / 8 / (4 * run_count * threads * 2), 4096, 4 << 20));

  // Ids, as resolve_ids in the in-memory builder.
  IdMap ids;
  MappedVector<uint64_t> counted_degrees;
  uint64_t counted_loops = 0;
  bool degrees_counted = false;
  const bool any = input_edges_ > 0;
  if (list.declared_vertices || list.id_mode == IdMode::kIndex) {
    const build::IndexRange range = build::index_range(list, any, lo_, hi_);
    ids.base = range.base;
    ids.n = range.n;
  } else if (any) {
    // An undirected graph's labels come with its degrees; a directed one's are the union of
    // its sources and its destinations.
    Majors majors = distinct_majors(*out_, lo_, hi_, read_bytes, in_ ? nullptr : &build_);
    ids.labels = std::move(majors.labels);
    if (in_) {
      MappedVector<uint64_t> heads = distinct_majors(*in_, lo_, hi_, read_bytes, nullptr).labels;
      MappedVector<uint64_t> all(ids.labels.size() + heads.size());
      const auto end = std::set_union(ids.labels.begin(), ids.labels.end(), heads.begin(),
                                      heads.end(), all.begin());
      all.resize(static_cast<size_t>(end - all.begin()));
      all.shrink_to_fit();
      ids.labels = std::move(all);
    } else {
      counted_degrees = std::move(majors.degrees);
      counted_loops = majors.loops;
      degrees_counted = true;
    }
    ids.n = ids.labels.size();
    if (ids.n - 1 == hi_ - lo_) {  // no gaps: an offset, as the in-memory build finds
      ids.base = lo_;
      ids.labels = MappedVector<uint64_t>();
    }
    ids.index_labels();
  }
  const uint64_t n = ids.n;
  report.ids_seconds = timer.seconds();
  timer.restart();
  // What the build holds per vertex from here: the degrees of a grid (8 bytes), the label map (8)
  // and the counters of one block row (a count and a cursor per vertex and column: 12).
  const uint64_t per_vertex = n * (8 + 12) + ids.bytes();
  if (per_vertex > budget) {
    fail(
        "{} vertices need {} for the build's per-vertex arrays (degrees, {}one block row's "
        "counters), more than "
        "--memory-budget {}; give --memory-budget {} or more",
        n, bytes_text(per_vertex), ids.labels.empty() ? "" : "the label map, ", bytes_text(budget),
        bytes_text(per_vertex + budget / 4));
  }

  // Degrees of the out grid (both arcs of an undirected edge), the cleaned edge count.
  const RunSource out_arcs(*out_, ids, build_, read_bytes);
  MappedVector<uint64_t> out_degrees;
  std::atomic<uint64_t> loops{0};
  if (degrees_counted) {  // with the labels
    out_degrees = std::move(counted_degrees);
    loops = counted_loops;
  } else {
    out_degrees = MappedVector<uint64_t>(n);
    out_arcs.for_arcs_of(0, n, [&](uint64_t major, uint64_t minor, double) {
      __atomic_add_fetch(&out_degrees[major], uint64_t{1}, __ATOMIC_RELAXED);
      if (major == minor) loops.fetch_add(1, std::memory_order_relaxed);
    });
  }
  uint64_t arc_total = 0;
#pragma omp parallel for reduction(+ : arc_total)
  for (uint64_t v = 0; v < n; ++v) arc_total += out_degrees[v];
  // An undirected edge is two arcs, a self-loop one.
  const uint64_t edges = symmetric_ ? (arc_total + loops.load()) / 2 : arc_total;
  report.self_loops_removed = build_.keep_self_loops ? 0 : self_loops_;
  report.duplicates_removed = input_edges_ - report.self_loops_removed - edges;
  report.clean_seconds = timer.seconds();
  timer.restart();

  const build::GridPlan grid =
      build::plan_grid(out_degrees.span(), edges, symmetric_, build_.blocks);
  build::GraphFacts facts;
  facts.vertices = n;
  facts.edges = edges;
  facts.input_edges = input_edges_;
  facts.self_loops_removed = report.self_loops_removed;
  facts.duplicates_removed = report.duplicates_removed;
  facts.id_base = ids.base;
  facts.undirected = symmetric_;
  facts.id_mode = list.id_mode;
  facts.id_bytes = (hi_ <= UINT32_MAX || n <= (uint64_t{1} << 32)) ? 4 : 8;
  facts.weighted = weighted_;
  facts.weights = bounded_.weights != GeneratedWeights::kNone ? generated_ : list.weight_info;
  format::Header header =
      build::graph_header(facts, grid, build_);  // reblock: the file's own facts carry over

  // What a group of block rows may hold: the budget less the per-vertex arrays, the index and
  // the merge's buffers, a third to counters (16 bytes each with the directory they become)
  // and half to gathered arcs (with their encoded bytes).
  const uint64_t index_bytes = uint64_t{grid.p} * grid.p * (sizeof(format::BlockEntry) + 16);
  const uint64_t held = n * 8 + ids.bytes() + index_bytes + budget / 8;
  const uint64_t room = budget > held ? budget - held : 0;
  writer.write_all(writer.add_section(format::SectionKind::kRanges, 8, (uint64_t{grid.p} + 1) * 8),
                   std::span<const uint64_t>(grid.bounds));
  auto write_grids = [&]<typename Id, typename WOut>() {
    using Writer = grid_build::GridWriter<RunSource, Id, WOut>;
    const uint64_t arc_bytes = sizeof(grid_build::Arc<Id, WOut>) + sizeof(Id) +
                               (std::is_same_v<WOut, NoWeight> ? 0 : sizeof(WOut));
    const grid_build::GridLimits limits{std::max<uint64_t>(room / 2 / arc_bytes, 1 << 16),
                                        std::max<uint64_t>(room / 3 / 16, 1 << 16)};
    header.num_arcs =
        Writer(out_arcs, false, grid.ranges(), out_degrees.span(), writer, build_.progress)
            .write({format::SectionKind::kOutIndex, format::SectionKind::kOutBlocks,
                    format::SectionKind::kOutDegrees},
                   limits);
    if (in_) {
      out_degrees = MappedVector<uint64_t>();  // the in grid's degrees take their place
      const RunSource in_arcs(*in_, ids, build_, read_bytes);
      MappedVector<uint64_t> in_degrees(n);
      in_arcs.for_arcs_of(0, n, [&](uint64_t major, uint64_t, double) {
        __atomic_add_fetch(&in_degrees[major], uint64_t{1}, __ATOMIC_RELAXED);
      });
      Writer(in_arcs, true, grid.ranges(), in_degrees.span(), writer, build_.progress)
          .write({format::SectionKind::kInIndex, format::SectionKind::kInBlocks,
                  format::SectionKind::kInDegrees},
                 limits);
    }
  };
  auto with_weights = [&]<typename Id>() {
    switch (static_cast<format::WeightType>(header.weight_type)) {
      case format::WeightType::kInt32:
        write_grids.template operator()<Id, int32_t>();
        break;
      case format::WeightType::kInt64:
        write_grids.template operator()<Id, int64_t>();
        break;
      case format::WeightType::kFloat64:
        write_grids.template operator()<Id, double>();
        break;
      default:
        write_grids.template operator()<Id, NoWeight>();
        break;
    }
  };
  if (n <= (uint64_t{1} << 32)) {
    with_weights.template operator()<uint32_t>();
  } else {
    with_weights.template operator()<uint64_t>();
  }
  if (build_.provenance && !build_.provenance->id_map.empty()) {
    writer.write_all(writer.add_section(format::SectionKind::kIdMap, 8, n * 8),
                     build_.provenance->id_map);
  } else if (!ids.labels.empty()) {
    writer.write_all(writer.add_section(format::SectionKind::kIdMap, 8, n * 8), ids.labels.span());
  }
  writer.commit(header);
  report.vertices = n;
  report.arcs = header.num_arcs;
  report.edges = edges;
  report.blocks = grid.p;
  report.write_seconds = timer.seconds();
  return report;
}

}  // namespace tg
