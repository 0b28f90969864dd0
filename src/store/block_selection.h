// A block read in part (issue 11, item 4): a sparse push needs the arcs of a few vertices of a
// block, so a fetching store reads only those, in two steps. First the directory entries of the
// selected runs (their offsets, and for DCSR their vertex ids); then the arcs those offsets point
// to. What arrived is then gathered, inside the buffer, into a small DCSR block of its own:
//
//   [offsets (E + 1) | vertices (E) | neighbours (A) | weights (A)]
//
// each part 8-byte aligned, offsets rebased to the selection's first arc, vertices local to the
// major range, so a BlockDecoder reads it like any block and the engine never knows.
//
// Reads close together are merged (a gap of a few hundred bytes costs less than a request), so
// both steps read groups of runs. Step 1's bytes are the selection's index; step 2's move the
// arcs. A selection is checked for structure as it arrives (offsets monotone and inside the
// block, vertices increasing and in range, neighbours in range); its hashes cover whole parts
// and cannot be checked on part of one.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph/block_decoder.h"
#include "graph/format.h"
#include "store/block_store.h"

namespace tg {

// Consecutive runs [run_first, run_last) read as one range [first, last) (in entries or arcs).
struct RunGroup {
  uint64_t first = 0, last = 0;
  size_t run_first = 0, run_last = 0;
};

// Merges sorted, disjoint runs into groups, joining two when at most `gap` units lie between.
std::vector<RunGroup> group_runs(std::span<const EntryRun> runs, uint64_t gap);

// The widths of a gathered selection's parts.
struct SelectionWidths {
  uint8_t offset_bytes = 4, vertex_bytes = 4, id_bytes = 4;
  uint32_t weight_bytes = 0;  // 0: the pass reads no weights
};
SelectionWidths selection_widths(const format::BlockEntry& e, uint64_t major_size,
                                 uint32_t weight_bytes);

// Bytes of the gathered header (offsets and vertices) of `entries` entries, 8-byte aligned.
uint64_t selection_header_bytes(uint64_t entries, const SelectionWidths& w);

// The entries a selection holds.
uint64_t selected_entries(std::span<const EntryRun> runs);

// Step 1 arrived: for each entry group, where its offsets (entries first..last, inclusive of the
// end) and DCSR vertices (null for CSR) landed. Reads them for the runs, checks them, writes the
// gathered header (offsets rebased, vertices local: selection_header_bytes of the selection's
// entries) at `header`, which must lie apart from step 1's bytes, and each run's arcs in the
// block into `arcs`. Returns what is wrong, or an empty string.
std::string read_selected_directory(std::span<const EntryRun> runs,
                                    std::span<const RunGroup> groups,
                                    std::span<const unsigned char* const> group_offsets,
                                    std::span<const unsigned char* const> group_vertices,
                                    const format::BlockEntry& e, uint64_t major_size,
                                    const SelectionWidths& w, unsigned char* header,
                                    std::vector<EntryRun>& arcs);

// Step 2 arrived: arc group g's neighbours start at group_neighbours[g] (its first arc) and its
// weights at group_weights[g]. Moves the arcs down to follow the header at the buffer's start
// (the groups must lie at or above where they go), checks the neighbours, and points `out` at
// the gathered block. Returns what is wrong, or an empty string.
std::string gather_selection(std::span<const EntryRun> arcs, uint64_t entries,
                             std::span<const RunGroup> arc_groups,
                             std::span<const unsigned char* const> group_neighbours,
                             std::span<const unsigned char* const> group_weights,
                             const SelectionWidths& w, unsigned char* buffer, uint64_t major_first,
                             uint64_t minor_first, uint64_t minor_size, BlockDecoder& out);

}  // namespace tg
