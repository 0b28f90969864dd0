// The copying store's read planning: which byte ranges of the file one lease reads into its
// buffer (a whole block or piece; or, for a sparse pass, the entries of its selected sources and
// their arcs, merged where a gap is cheaper to read than a second request), each range aligned
// for the transfer (O_DIRECT) and laid out at an aligned place in the buffer.
#include <algorithm>

#include "graph/block_check.h"
#include "store/block_pieces.h"
#include "store/copying_store.h"
#include "util/error.h"

namespace tg {
namespace {

// Lays a request's ranges out in a buffer from position `at`: each range rounded out to the
// transfer's alignment and placed at an aligned position, the part's own bytes at their offset
// inside it. Nothing is written here; `at` past the buffer's end says the request does not fit.
struct Placer {
  unsigned char* buffer;
  uint64_t align, step, at = 0;
  std::vector<ReadRange> reads;
  Placer(unsigned char* b, uint64_t alignment, uint64_t from = 0)
      : buffer(b),
        align(alignment),
        step(std::max<uint64_t>(alignment, format::kPartAlignment)),
        at(from) {}
  unsigned char* place(uint64_t file_offset, uint64_t bytes) {
    if (bytes == 0) return buffer + at;
    const uint64_t start = file_offset / align * align, skew = file_offset - start;
    const uint64_t length = format::align_up(skew + bytes, align);
    reads.push_back({start, length, skew + bytes, buffer + at});
    unsigned char* part = buffer + at + skew;
    at = format::align_up(at + length, step);
    return part;
  }
  // What placing `bytes` at an unknown offset takes at most.
  uint64_t bound(uint64_t bytes) const {
    return bytes == 0 ? 0 : format::align_up(bytes + 2 * align, step);
  }
};

}  // namespace

uint64_t CopyingStore::merge_gap_bytes() const {
  // Below this many bytes between two reads, one read over both costs less than two requests.
  return std::max<uint64_t>(transfer_->alignment(), 512);
}

SelectionWidths CopyingStore::selection_widths_of(const BlockId& b) const {
  const auto ranges = file_->ranges();
  const uint32_t weight_bytes =
      options_.with_weights ? format::weight_bytes(file_->weight_type()) : 0;
  return selection_widths(file_->entry(b.grid, b.major, b.minor),
                          ranges[b.major + 1] - ranges[b.major], weight_bytes);
}

uint64_t CopyingStore::header_place(uint64_t header) const {
  return format::align_up(header,
                          std::max<uint64_t>(transfer_->alignment(), format::kPartAlignment));
}

uint64_t CopyingStore::selection_runs_per_lease() const {
  return std::max<uint64_t>(1,
                            std::min<uint64_t>(max_selection_runs(), transfer_->max_ranges() / 2));
}

uint64_t CopyingStore::selection_leases(const BlockId& b, std::span<const EntryRun> runs,
                                        uint64_t arcs_bound, uint32_t piece) const {
  if (runs.empty() || max_selection_runs() == 0) return 0;
  const auto cut = pieces(b);
  if ((piece == PlannedBlock::kWhole) != cut.empty() || (!cut.empty() && piece >= cut.size()))
    return 0;
  const auto& entry = file_->entry(b.grid, b.major, b.minor);
  const SelectionWidths w = selection_widths_of(b);
  const uint64_t align = transfer_->alignment();
  Placer bound(nullptr, align);
  // Bounded over all the runs together: each lease's share is less.
  uint64_t step1 = 0;
  const uint64_t entry_width = std::max<uint64_t>(entry.offset_bytes, entry.vertex_bytes);
  for (const RunGroup& g : group_runs(runs, merge_gap_bytes() / entry_width)) {
    step1 += bound.bound((g.last - g.first + 1) * entry.offset_bytes) +
             bound.bound((g.last - g.first) * entry.vertex_bytes);
  }
  const uint64_t entries = selected_entries(runs);
  arcs_bound = std::min<uint64_t>(arcs_bound, entry.edge_count);
  const uint64_t reads = w.weight_bytes > 0 ? 2 : 1;
  const uint64_t step2 = arcs_bound * (w.id_bytes + w.weight_bytes) +
                         runs.size() * reads * 2 * std::max<uint64_t>(align, 8);
  const uint64_t header = header_place(selection_header_bytes(entries, w));
  if (header + std::max(step1, step2) > piece_bytes_ ||
      2 * (step1 + step2) > unselected_bytes(b, piece))
    return 0;
  const uint64_t per = selection_runs_per_lease();
  return (runs.size() + per - 1) / per;
}

uint64_t CopyingStore::unselected_bytes(const BlockId& b, uint32_t piece) const {
  if (piece == PlannedBlock::kWhole) return fetch_bytes(b);
  const BlockPiece& q = pieces(b)[piece];
  const uint32_t weight_bytes =
      options_.with_weights ? format::weight_bytes(file_->weight_type()) : 0;
  return piece_layout(file_->entry(b.grid, b.major, b.minor), q.entry_last - q.entry_first,
                      q.arc_last - q.arc_first, weight_bytes)
      .end;
}

// Where each part of entry e lands in its buffer: one range for a whole block, up to four for a
// piece, and for a selection's first step two per group of entries.
std::vector<ReadRange> CopyingStore::plan_reads(Entry& e, unsigned char* buffer) {
  e.step = 0;
  e.partial = false;
  e.moved = 0;
  e.header = 0;
  if (e.planned.selection.empty()) return plan_unselected(e, buffer);
  const BlockId& b = e.planned.block;
  // A selection's entries land past the header they will be gathered into.
  e.header = selection_header_bytes(selected_entries(e.planned.selection), selection_widths_of(b));
  Placer placer(buffer, transfer_->alignment(), header_place(e.header));
  const auto& entry = file_->entry(b.grid, b.major, b.minor);
  const uint64_t directory =
      entry.offset + format::part_positions(entry.part_bytes).at[format::kDirectory];
  const uint64_t vertices_at = format::dcsr_vertices_at(entry.vertex_count, entry.offset_bytes);
  e.step = 1;
  const uint64_t entry_width = std::max<uint64_t>(entry.offset_bytes, entry.vertex_bytes);
  e.groups = group_runs(e.planned.selection, merge_gap_bytes() / entry_width);
  e.at_first.clear();
  e.at_second.clear();
  for (const RunGroup& g : e.groups) {
    e.at_first.push_back(placer.place(directory + g.first * entry.offset_bytes,
                                      (g.last - g.first + 1) * entry.offset_bytes));
    e.at_second.push_back(placer.place(directory + vertices_at + g.first * entry.vertex_bytes,
                                       (g.last - g.first) * entry.vertex_bytes));
  }
  if (placer.at <= buffer_bytes_ && placer.reads.size() <= transfer_->max_ranges())
    return std::move(placer.reads);
  // Past the buffer, or too many reads (a selection the store was not asked about): the block
  // (or piece) whole instead.
  e.step = 0;
  read_whole_instead(e);
  return plan_unselected(e, buffer);
}

void CopyingStore::read_whole_instead(const Entry& e) const {
  // selection_leases sized each lease of a split selection to fit: reaching here is a bug, and
  // reading the whole would hand the other leases' vertices to the pass a second time.
  if (e.planned.split)
    fail("internal: {} store: a lease of a split selection would be read whole", name());
}

// Where the parts of entry e's block, or of its piece, land in its buffer: one range for a whole
// block, up to four for a piece.
std::vector<ReadRange> CopyingStore::plan_unselected(Entry& e, unsigned char* buffer) {
  const BlockId& b = e.planned.block;
  Placer placer(buffer, transfer_->alignment());
  const auto& entry = file_->entry(b.grid, b.major, b.minor);
  const auto& part_at = format::part_positions(entry.part_bytes).at;
  const uint64_t base = entry.offset;
  const uint64_t vertices_at = format::dcsr_vertices_at(entry.vertex_count, entry.offset_bytes);
  if (e.planned.piece == PlannedBlock::kWhole) {
    e.bytes = fetch_bytes(b);
    e.data = placer.place(entry.offset, e.bytes);
  } else {
    const auto all = pieces(b);
    if (e.planned.piece >= all.size())
      fail("internal: piece {} of a block cut in {}", e.planned.piece, all.size());
    const BlockPiece& piece = all[e.planned.piece];
    const uint32_t weight_bytes =
        options_.with_weights ? format::weight_bytes(file_->weight_type()) : 0;
    const uint64_t entries = piece.entry_last - piece.entry_first,
                   arcs = piece.arc_last - piece.arc_first;
    const PieceLayout l = piece_layout(entry, entries, arcs, weight_bytes);
    e.parts.offsets =
        placer.place(base + part_at[format::kDirectory] + piece.entry_first * entry.offset_bytes,
                     l.offsets_bytes);
    e.parts.vertices = placer.place(
        base + part_at[format::kDirectory] + vertices_at + piece.entry_first * entry.vertex_bytes,
        l.vertices_bytes);
    e.parts.neighbours = placer.place(
        base + part_at[format::kNeighbors] + piece.arc_first * entry.id_bytes, l.neighbours_bytes);
    e.parts.weights = placer.place(
        base + part_at[format::kWeights] + piece.arc_first * weight_bytes, l.weights_bytes);
  }
  if (placer.at > buffer_bytes_)
    fail("internal: {} store: a fetch of {} bytes overflows its buffer", name(), placer.at);
  return std::move(placer.reads);
}

// A selection's step 1 arrived: reads its directory entries, and places its arcs (each group's
// neighbours, then each group's weights) above where the gathered header will lie. When the
// arcs would not fit, or reading them moves more than the whole block, reads the whole block.
std::vector<ReadRange> CopyingStore::plan_selection_arcs(Entry& e, unsigned char* buffer) {
  const BlockId& b = e.planned.block;
  const auto& entry = file_->entry(b.grid, b.major, b.minor);
  const auto ranges = file_->ranges();
  const SelectionWidths w = selection_widths_of(b);
  const std::string problem =
      read_selected_directory(e.planned.selection, e.groups, e.at_first, e.at_second, entry,
                              ranges[b.major + 1] - ranges[b.major], w, buffer, e.arcs);
  if (!problem.empty()) fail("{}", problem);
  const uint64_t arc_width = w.id_bytes + w.weight_bytes;
  e.groups = group_runs(e.arcs, merge_gap_bytes() / arc_width);
  Placer placer(buffer, transfer_->alignment(), header_place(e.header));
  const format::PartPositions positions = format::part_positions(entry.part_bytes);
  e.at_first.clear();
  e.at_second.clear();
  for (const RunGroup& g : e.groups)
    e.at_first.push_back(
        placer.place(entry.offset + positions.at[format::kNeighbors] + g.first * w.id_bytes,
                     (g.last - g.first) * w.id_bytes));
  for (const RunGroup& g : e.groups)
    e.at_second.push_back(
        placer.place(entry.offset + positions.at[format::kWeights] + g.first * w.weight_bytes,
                     (g.last - g.first) * w.weight_bytes));
  uint64_t bytes = 0;
  for (const ReadRange& r : placer.reads) bytes += r.bytes;
  e.step = 2;
  if (placer.at <= buffer_bytes_ && placer.reads.size() <= transfer_->max_ranges() &&
      bytes < unselected_bytes(b, e.planned.piece)) {
    e.partial = true;
    return std::move(placer.reads);
  }
  read_whole_instead(e);
  std::vector<EntryRun>().swap(e.arcs);  // read whole: no bookkeeping needed
  std::vector<RunGroup>().swap(e.groups);
  return plan_unselected(e, buffer);
}

}  // namespace tg
