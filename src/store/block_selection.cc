#include "store/block_selection.h"

#include <fmt/format.h>

#include <cstring>

namespace tg {
namespace {

using format::align_up;
using format::kPartAlignment;

uint64_t load(const unsigned char* p, uint64_t k, uint8_t width) {
  switch (width) {
    case 2:
      return load_element<uint16_t>(p, k);
    case 4:
      return load_element<uint32_t>(p, k);
    default:
      return load_element<uint64_t>(p, k);
  }
}

void store(unsigned char* p, uint64_t k, uint8_t width, uint64_t value) {
  switch (width) {
    case 2:
      reinterpret_cast<uint16_t*>(p)[k] = static_cast<uint16_t>(value);
      break;
    case 4:
      reinterpret_cast<uint32_t*>(p)[k] = static_cast<uint32_t>(value);
      break;
    default:
      reinterpret_cast<uint64_t*>(p)[k] = value;
      break;
  }
}

}  // namespace

std::vector<RunGroup> group_runs(std::span<const EntryRun> runs, uint64_t gap) {
  std::vector<RunGroup> groups;
  for (size_t r = 0; r < runs.size(); ++r) {
    if (!groups.empty() && runs[r].first <= groups.back().last + gap) {
      groups.back().last = std::max(groups.back().last, runs[r].last);
      groups.back().run_last = r + 1;
    } else {
      groups.push_back({runs[r].first, runs[r].last, r, r + 1});
    }
  }
  return groups;
}

SelectionWidths selection_widths(const format::BlockEntry& e, uint64_t major_size,
                                 uint32_t weight_bytes) {
  SelectionWidths w;
  w.offset_bytes = e.offset_bytes;  // a selection holds no more arcs than its block
  w.vertex_bytes = e.vertex_bytes != 0 ? e.vertex_bytes : format::local_id_bytes(major_size);
  w.id_bytes = e.id_bytes;
  w.weight_bytes = weight_bytes;
  return w;
}

uint64_t selection_header_bytes(uint64_t entries, const SelectionWidths& w) {
  return align_up((entries + 1) * w.offset_bytes, kPartAlignment) +
         align_up(entries * w.vertex_bytes, kPartAlignment);
}

uint64_t selected_entries(std::span<const EntryRun> runs) {
  uint64_t entries = 0;
  for (const EntryRun& r : runs) entries += r.last - r.first;
  return entries;
}

std::string read_selected_directory(std::span<const EntryRun> runs,
                                    std::span<const RunGroup> groups,
                                    std::span<const unsigned char* const> group_offsets,
                                    std::span<const unsigned char* const> group_vertices,
                                    const format::BlockEntry& e, uint64_t major_size,
                                    const SelectionWidths& w, unsigned char* header,
                                    std::vector<EntryRun>& arcs) {
  arcs.clear();
  const bool dcsr = e.layout == static_cast<uint8_t>(format::BlockLayout::kDcsr);
  unsigned char* vertices =
      header + align_up((selected_entries(runs) + 1) * w.offset_bytes, kPartAlignment);
  uint64_t at = 0, gathered = 0, previous_vertex = 0;
  store(header, 0, w.offset_bytes, 0);
  for (size_t g = 0; g < groups.size(); ++g) {
    const RunGroup& group = groups[g];
    for (size_t r = group.run_first; r < group.run_last; ++r) {
      const EntryRun& run = runs[r];
      if (run.first >= run.last || run.last > e.vertex_count) {
        return fmt::format("a selection of entries {} to {} lies outside the block's {} entries",
                           run.first, run.last, e.vertex_count);
      }
      const uint64_t first_arc = load(group_offsets[g], run.first - group.first, e.offset_bytes);
      uint64_t before = first_arc;
      for (uint64_t k = run.first; k < run.last; ++k, ++at) {
        const uint64_t end = load(group_offsets[g], k + 1 - group.first, e.offset_bytes);
        if (end < before || end > e.edge_count) {
          return fmt::format(
              "directory entry {} has arcs {} to {}, outside the block's {} arcs or not in order",
              k, before, end, e.edge_count);
        }
        const uint64_t v = dcsr ? load(group_vertices[g], k - group.first, e.vertex_bytes) : k;
        if (v >= major_size || (at > 0 && v <= previous_vertex)) {
          return fmt::format(
              "directory entry {} names vertex {}, outside the range of {} or not increasing", k, v,
              major_size);
        }
        previous_vertex = v;
        gathered += end - before;
        store(vertices, at, w.vertex_bytes, v);
        store(header, at + 1, w.offset_bytes, gathered);
        before = end;
      }
      arcs.push_back({first_arc, before});
    }
  }
  return {};
}

std::string gather_selection(std::span<const EntryRun> arcs_of_runs, uint64_t entries,
                             std::span<const RunGroup> arc_groups,
                             std::span<const unsigned char* const> group_neighbours,
                             std::span<const unsigned char* const> group_weights,
                             const SelectionWidths& w, unsigned char* buffer, uint64_t major_first,
                             uint64_t minor_first, uint64_t minor_size, BlockDecoder& out) {
  uint64_t arcs = 0;
  for (const EntryRun& run : arcs_of_runs) arcs += run.last - run.first;
  const uint64_t vertices_at = align_up((entries + 1) * w.offset_bytes, kPartAlignment);
  const uint64_t neighbours_at = selection_header_bytes(entries, w);
  const uint64_t weights_at = neighbours_at + align_up(arcs * w.id_bytes, kPartAlignment);
  // Each run moves down to its place (memmove: a run may overlap where it goes); every group's
  // neighbours lie below its weights, so neither overwrites what is still unread.
  auto move_part = [&](std::span<const unsigned char* const> from, uint64_t at, uint32_t width) {
    unsigned char* to = buffer + at;
    for (size_t g = 0; g < arc_groups.size(); ++g) {
      const RunGroup& group = arc_groups[g];
      for (size_t r = group.run_first; r < group.run_last; ++r) {
        const EntryRun& run = arcs_of_runs[r];
        const unsigned char* source = from[g] + (run.first - group.first) * width;
        const uint64_t bytes = (run.last - run.first) * width;
        if (to > source) return false;
        std::memmove(to, source, bytes);
        to += bytes;
      }
    }
    return true;
  };
  if (!move_part(group_neighbours, neighbours_at, w.id_bytes))
    return "internal: a selection's arcs lie below their place";
  if (w.weight_bytes > 0 && !move_part(group_weights, weights_at, w.weight_bytes)) {
    return "internal: a selection's weights lie below their place";
  }
  for (uint64_t a = 0; a < arcs; ++a) {
    const uint64_t id = load(buffer + neighbours_at, a, w.id_bytes);
    if (id >= minor_size)
      return fmt::format("arc {} of the selection names neighbour {}, outside the range of {}", a,
                         id, minor_size);
  }
  out =
      BlockDecoder{.directory = buffer,
                   .neighbours = buffer + neighbours_at,
                   .weights = buffer + weights_at,
                   .vertices = buffer + vertices_at,  // always DCSR: a selection lists its vertices
                   .major_first = major_first,
                   .minor_first = minor_first,
                   .vertex_count = entries,
                   .edge_count = arcs,
                   .offset_bytes = w.offset_bytes,
                   .id_bytes = w.id_bytes,
                   .vertex_bytes = w.vertex_bytes};
  return {};
}

}  // namespace tg
