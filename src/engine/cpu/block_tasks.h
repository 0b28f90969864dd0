// What a block-major pass runs: tasks over the block grid and the store plan they read.
//
// A task is a 64-aligned slice of one major range (a source range when pushing, a destination
// range when pulling); it reads the blocks (major, minor) of its range, minor by minor, each as
// its lease arrives. The slices of one range share its blocks: the plan lists each block once,
// with as many uses as its range has slices, in the order tasks are taken, so the store fetches
// what the next tasks need. A fetching store gets at most `threads` slices per range: all of a
// range's tasks then run at once, so a block held for a slice not yet started can never fill
// the pool while started tasks wait (the pass cannot deadlock on any pool of at least one buffer).
//
// Blocks with no arcs are never planned, and neither are blocks whose source range has no
// active vertex (GridGraph's selective scheduling). A block that the store leases in pieces is
// planned as its pieces, each used by the slices whose vertices it holds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/cpu/frontier.h"
#include "graph/graph_view.h"
#include "store/block_store.h"
#include "util/parallel.h"

namespace tg {

// The slices of every major range, for one direction.
struct Slices {
  std::vector<uint32_t> range;        // task -> its major range
  std::vector<uint64_t> first, last;  // task -> its vertices [first, last)
  std::vector<uint64_t> of_range;     // range r's tasks are [of_range[r], of_range[r + 1])
  uint64_t bytes() const {
    return range.capacity() * sizeof(uint32_t) +
           (first.capacity() + last.capacity() + of_range.capacity()) * sizeof(uint64_t);
  }
};

// Cuts every range into 64-aligned slices of about equal cost (cost(v) + 1 per vertex): about
// 8 per thread over the vertices [first, end), at most `cap` per range. Vertices outside
// [first, end) (another MPI rank's masters; first and end are multiples of 64, or end is n)
// get no slice, so a block-major pass reads only the block rows of its own vertices.
template <typename Cost>
Slices make_slices(std::span<const uint64_t> ranges, uint64_t n, int threads, uint64_t cap,
                   Cost cost, uint64_t first = 0, uint64_t end = ~uint64_t{0}) {
  end = std::min(end, n);
  first = std::min(first, end);
  const uint64_t words = (n + 63) / 64, first_word = first / 64, end_word = (end + 63) / 64;
  std::vector<uint64_t> word_cost(words, 0);
#pragma omp parallel for schedule(static)
  for (uint64_t w = first_word; w < end_word; ++w) {
    uint64_t c = 0;
    for (uint64_t v = w * 64; v < std::min(n, w * 64 + 64); ++v) c += cost(v) + 1;
    word_cost[w] = c;
  }
  uint64_t total = 0;
  for (uint64_t c : word_cost) total += c;
  const uint64_t per_slice = std::max<uint64_t>(1, total / (static_cast<uint64_t>(threads) * 8));
  Slices s;
  const uint32_t p = static_cast<uint32_t>(ranges.size() - 1);
  for (uint32_t r = 0; r < p; ++r) {
    s.of_range.push_back(s.range.size());
    const uint64_t lo = std::clamp(ranges[r], first, end),
                   hi = std::clamp(ranges[r + 1], first, end);
    if (lo >= hi) continue;  // an empty range, or none of its vertices in [first, end): no tasks
    const uint64_t w0 = lo / 64, w1 = (hi + 63) / 64;
    uint64_t range_cost = 0;
    for (uint64_t w = w0; w < w1; ++w) range_cost += word_cost[w];
    const uint64_t count =
        std::clamp<uint64_t>((range_cost + per_slice - 1) / per_slice, 1, std::min(cap, w1 - w0));
    uint64_t at = w0, acc = 0;
    for (uint64_t k = 1; k <= count; ++k) {
      const uint64_t goal = range_cost * k / count;
      uint64_t stop = at;
      if (k == count) {
        stop = w1;
      } else {
        while (stop < w1 && acc + word_cost[stop] <= goal) acc += word_cost[stop++];
        if (stop == at) acc += word_cost[stop++];  // every slice holds at least one word
      }
      if (stop > at) {
        s.range.push_back(r);
        s.first.push_back(std::max(at * 64, lo));
        s.last.push_back(std::min(stop * 64, hi));
      }
      at = stop;
      if (at >= w1) break;
    }
  }
  s.of_range.push_back(s.range.size());
  return s;
}

// A pass's plan as the tasks see it: range r's entries are [of_range[r], of_range[r + 1]); when
// some blocks come in pieces, entry k holds only major vertices [vertex_first[k], vertex_last[k])
// and a task reads the entries that meet its slice.
struct PassPlan {
  std::vector<uint64_t> of_range;
  std::vector<uint64_t> vertex_first, vertex_last;  // empty when every entry is a whole block
  std::vector<EntryRun> selections;                 // what the plan's selections point into
  bool meets(uint64_t k, uint64_t first, uint64_t last) const {
    return vertex_first.empty() || (vertex_first[k] < last && first < vertex_last[k]);
  }
};

// Which ranges hold a member of the frontier (all of them for "every vertex").
template <typename Id, typename W>
std::vector<char> active_ranges(const Frontier<Id>& frontier, const GraphView<Id, W>& g) {
  const uint32_t p = g.blocks_per_side();
  std::vector<char> active(p, 0);
  if (frontier.kind() == Frontier<Id>::Kind::kAll) {
    std::fill(active.begin(), active.end(), 1);
  } else if (frontier.kind() == Frontier<Id>::Kind::kSparse) {
    for (Id v : frontier.list()) active[g.range_of(v)] = 1;
  } else {
    const Bitmap& bits = *frontier.membership();
    for (uint64_t w = 0; w < bits.words(); ++w)
      if (bits.word(w) != 0) active[g.range_of(w * 64)] = 1;
  }
  return active;
}

// A push selects entries only when at most 1/kSelectiveShare of the vertices are active: above
// that, nearly every block pays whole, and finding the entries would cost more than it saves.
inline constexpr uint64_t kSelectiveShare = 8;

// A sparse push's active sources, range by range, for selections (store/block_selection.h): a
// fetching store may then read only the directory entries of a block's active sources and their
// arcs, and a block holding none of them is not read at all.
struct ActiveSources {
  std::vector<uint64_t> vertices;  // sorted
  std::vector<uint64_t> of_range;  // range r's are [of_range[r], of_range[r + 1])
  std::span<const uint64_t> of(uint32_t r) const {
    return {vertices.data() + of_range[r], of_range[r + 1] - of_range[r]};
  }
};

// From the frontier's membership bitmap (prepare_dense first), in vertex order.
template <typename Id>
ActiveSources active_sources(const Frontier<Id>& frontier, std::span<const uint64_t> ranges) {
  ActiveSources a;
  a.vertices.reserve(frontier.size());
  const Bitmap& bits = *frontier.membership();
  for (uint64_t w = 0; w < bits.words(); ++w)
    for (uint64_t word = bits.word(w); word != 0; word &= word - 1)
      a.vertices.push_back(w * 64 + static_cast<uint64_t>(__builtin_ctzll(word)));
  a.of_range.resize(ranges.size());
  for (size_t r = 0; r < ranges.size(); ++r)
    a.of_range[r] = static_cast<uint64_t>(
        std::lower_bound(a.vertices.begin(), a.vertices.end(), ranges[r]) - a.vertices.begin());
  return a;
}

// f(v, k) for each vertex v of `active` (sorted vertices of d's major range) that has a
// directory entry k in block d, in order. DCSR finds a vertex's entry through the presence
// index, so d must have one.
template <typename F>
void for_each_entry_of(const BlockDecoder& d, std::span<const uint64_t> active, F&& f) {
  for (uint64_t v : active) {
    uint64_t k = v - d.major_first;
    if (d.dcsr()) {
      const uint64_t word = d.presence[k / 64];
      if (((word >> (k % 64)) & 1) == 0) continue;
      k = d.presence_rank[k / 64] +
          static_cast<uint64_t>(__builtin_popcountll(word & ((uint64_t{1} << (k % 64)) - 1)));
    } else if (k >= d.vertex_count) {
      continue;
    }
    f(v, k);
  }
}

inline void append_entry(std::vector<EntryRun>& runs, size_t first_run, uint64_t k) {
  if (runs.size() > first_run && runs.back().last == k)
    ++runs.back().last;
  else
    runs.push_back({k, k + 1});
}

// The runs of directory entries of block d that belong to `active`, appended to `runs`; returns
// a bound on their arcs in the block (their degrees).
template <typename Degree>
uint64_t select_entries(const BlockDecoder& d, std::span<const uint64_t> active, Degree degree,
                        std::vector<EntryRun>& runs) {
  uint64_t bound = 0;
  const size_t first_run = runs.size();
  for_each_entry_of(d, active, [&](uint64_t v, uint64_t k) {
    append_entry(runs, first_run, k);
    bound += degree(v);
  });
  return std::min(bound, d.edge_count);
}

// The same for a block leased in pieces (store/block_pieces.h), piece by piece: piece q's runs
// are runs[of_piece[q], of_piece[q + 1]) and bound[q] bounds their arcs. A piece without an
// active entry need not be read at all. A vertex cut between pieces (a hub with more arcs than a
// buffer holds) has one entry in each, and a selection reads an entry's arcs whole, so a piece
// holding an active cut vertex cannot be selected: it is marked `whole` and read as it is.
struct PieceSelections {
  std::vector<EntryRun> runs;
  std::vector<uint64_t> of_piece, bound;
  std::vector<char> whole;
  bool any(size_t q) const { return whole[q] || of_piece[q + 1] > of_piece[q]; }
  std::span<const EntryRun> of(size_t q) const {
    return {runs.data() + of_piece[q], of_piece[q + 1] - of_piece[q]};
  }
};

template <typename Degree>
void select_piece_entries(const BlockDecoder& d, std::span<const BlockPiece> pieces,
                          std::span<const uint64_t> active, Degree degree, PieceSelections& out) {
  const size_t n = pieces.size();
  out.runs.clear();
  out.of_piece.assign(n + 1, 0);
  out.bound.assign(n, 0);
  out.whole.assign(n, 0);
  size_t q = 0, first_run = 0;  // the piece being filled; its runs start at first_run
  for_each_entry_of(d, active, [&](uint64_t v, uint64_t k) {
    while (pieces[q].entry_last <= k) {  // pieces cover the entries in order, so k lies ahead
      out.of_piece[++q] = out.runs.size();
      first_run = out.runs.size();
    }
    if (q + 1 < n && pieces[q + 1].entry_first <= k) {  // cut: in pieces q, q + 1, ...
      for (size_t x = q; x < n && pieces[x].entry_first <= k; ++x) out.whole[x] = 1;
      return;
    }
    append_entry(out.runs, first_run, k);
    out.bound[q] += degree(v);
  });
  while (q < n) out.of_piece[++q] = out.runs.size();
  for (size_t x = 0; x < n; ++x)
    out.bound[x] = std::min(out.bound[x], pieces[x].arc_last - pieces[x].arc_first);
}

// The entries [k, k_end) of block d (or piece) whose vertices lie in [first, last), then
// f(v, begin, end) for each: CSR indexes directly, DCSR finds the slice's start by one binary
// search per block.
template <typename F>
inline void for_each_vertex_in(const BlockDecoder& d, uint64_t first, uint64_t last, F&& f) {
  uint64_t k, k_end;
  if (!d.dcsr()) {  // a CSR piece starts its entries at its first vertex, maybe inside the slice
    k = first > d.major_first ? first - d.major_first : 0;
    k_end = last > d.major_first ? std::min(last - d.major_first, d.vertex_count) : 0;
  } else {
    auto lower = [&](uint64_t local) {
      uint64_t lo = 0, hi = d.vertex_count;
      while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (d.local_vertex(mid) < local)
          lo = mid + 1;
        else
          hi = mid;
      }
      return lo;
    };
    k = first == d.major_first ? 0 : lower(first - d.major_first);
    k_end = lower(last - d.major_first);
  }
  if (k >= k_end) return;
  uint64_t begin = d.offset(k);
  for (; k < k_end; ++k) {
    const uint64_t end = d.offset(k + 1);
    f(d.vertex(k), begin, end);
    begin = end;
  }
}

// Runs f(decoder) on the plan entries [first, last) of the store for which wanted(k) holds,
// each once, the earliest arrived first: a block is processed while later ones are in flight.
// A task may have many entries (a large block in small pieces), so it looks for arrivals among
// its next kWindow entries in plan order, where a store that fetches in plan order delivers
// them, and scans the rest only when the window has waited kStall seconds in vain (a tier that
// does not fetch in plan order, or several fetching tiers, can deliver any entry first): the
// cost per block stays constant however many entries the task has.
template <typename Wanted, typename F>
inline void for_each_arrived(BlockStore& store, uint64_t first, uint64_t last, Wanted&& wanted,
                             F&& f) {
  if (store.zero_copy()) {
    for (uint64_t k = first; k < last; ++k) {
      if (!wanted(k)) continue;
      f(store.acquire(k));
      store.release(k);
    }
    return;
  }
  constexpr size_t kWindow = 64;
  constexpr double kStall = 0.005;
  std::vector<uint64_t> pending;  // in plan order; taken ones are marked, the front skips them
  for (uint64_t k = first; k < last; ++k)
    if (wanted(k)) pending.push_back(k);
  std::vector<char> taken(pending.size(), 0);
  size_t front = 0, left = pending.size();
  std::vector<uint64_t> window;  // the next kWindow entries not taken, and their positions
  std::vector<size_t> at;
  while (left > 0) {
    while (taken[front]) ++front;
    window.clear();
    at.clear();
    for (size_t x = front; x < pending.size() && window.size() < kWindow; ++x)
      if (!taken[x]) window.push_back(pending[x]), at.push_back(x);
    auto earliest =
        [&](auto positions) {  // the position of the earliest arrived, or pending.size()
          size_t best = pending.size();
          uint64_t best_arrival = BlockStore::kNotArrived;
          positions([&](size_t x) {
            const uint64_t a = store.arrival(pending[x]);
            if (a < best_arrival) best_arrival = a, best = x;
          });
          return best;
        };
    size_t x = earliest([&](auto visit) {
      for (size_t y : at) visit(y);
    });
    if (x == pending.size()) {
      const bool everything = window.size() == left;
      if (store.wait_any(window, everything ? BlockStore::kForever : kStall)) continue;
      x = earliest([&](auto visit) {
        for (size_t y = front; y < pending.size(); ++y)
          if (!taken[y]) visit(y);
      });
      if (x == pending.size()) continue;
    }
    taken[x] = 1;
    --left;
    const uint64_t k = pending[x];
    const BlockDecoder& block = store.acquire(k);  // throws for a failed block: nothing to release
    struct Release {                               // the lease ends even when f throws
      BlockStore& store;
      uint64_t k;
      ~Release() { store.release(k); }
    } release{store, k};
    f(block);
  }
}

}  // namespace tg
