// The triangle pass's graph: the undirected view with each edge kept once, at its end of lower
// rank, where ranks number the vertices by degree (then id) when degrees are skewed, and are
// the ids when not (degree_ranking.h). Lists are indexed by rank and hold
// ranks, sorted. Every triangle r < s < t is then found once: at r, for each s on r's list, as
// each t on both s's list and the part of r's list past s (the two merged). As in GAPBS's
// relabelled count: a hub's list holds only vertices of higher degree than its own, so no list is
// walked once per neighbour of a hub (O(m^1.5) in all, against O(sum of squared degrees) when
// ids order the corners); only r's entries past s are read (half the merge); and the hubs,
// ranked last, keep their short, often-read lists together at the end.
//
// Built from the stored arcs, which the engine streams twice (to count, to fill): per vertex,
// its out-arcs and (directed) its in-arcs, from the mapped file or block by block through the
// store. Without self-loops in the file every arc lands on exactly one list, so the lists hold
// num_arcs / 2 entries (undirected) or num_arcs before a directed graph's two arcs between one
// pair are merged into one entry with both arc bits: bytes_bound() is then what it holds.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/degree_ranking.h"
#include "engine/triangles.h"

namespace tg {

// Sorts each list [first[k], first[k + 1]) of entries and their ArcsBetween bits (a directed
// graph's out-entries, then its in-entries), the two entries of a pair joined by arcs both ways
// merged into one with both bits; end[k] gets where the list ends after (its first n entries).
template <typename Id>
void merge_arc_pairs(const std::vector<uint64_t>& first, std::vector<Id>& ids,
                     std::vector<uint8_t>& arcs, std::vector<uint64_t>& end) {
  const uint64_t n = end.size();
#pragma omp parallel
  {
    std::vector<std::pair<Id, uint8_t>> merged;
#pragma omp for schedule(dynamic, 1024)
    for (uint64_t k = 0; k < n; ++k) {
      merged.clear();
      for (uint64_t a = first[k]; a < first[k + 1]; ++a) merged.emplace_back(ids[a], arcs[a]);
      std::sort(merged.begin(), merged.end());
      uint64_t at = first[k];
      for (const auto& [s, bits] : merged) {
        if (at > first[k] && ids[at - 1] == s) {
          arcs[at - 1] |= bits;
        } else {
          ids[at] = s;
          arcs[at++] = bits;
        }
      }
      end[k] = at;
    }
  }
}

template <typename Id>
class OrientedAdjacency {
 public:
  // What the lists of a graph of n vertices and `arcs` stored arcs hold at most (exactly, when
  // the file kept no self-loops and the lists are ranked), with the sums by rank the pass adds
  // into: the ranks both ways,
  // offsets, entries, sums, and for a directed graph each entry's arc bits and each list's end
  // after merging.
  static uint64_t pass_bytes_bound(uint64_t n, uint64_t arcs, bool directed, unsigned id_bytes) {
    const uint64_t entries = directed ? arcs : arcs / 2;
    return 2 * n * id_bytes + (n + 1) * 8 + entries * id_bytes + n * 8 +
           (directed ? entries + n * 8 : 0);
  }

  // for_arcs(in, f) calls f(u, v) for every stored arc of every vertex u: its out-arcs, or with
  // `in` its in-arcs (a directed graph's), a vertex's arcs from one thread at a time;
  // degree(v) ranks the vertices.
  template <typename Degree, typename ForArcs>
  OrientedAdjacency(uint64_t n, bool directed, Degree degree, ForArcs for_arcs)
      : n_(n), directed_(directed), ranking_(n, degree), first_(n_ + 1, 0) {
    const auto kept = [&](uint64_t u, uint64_t v) { return rank(v) > rank(u); };
    // Each list's length (a directed graph's before merging), then its place.
    const auto count = [&](uint64_t u, uint64_t v) { first_[rank(u) + 1] += kept(u, v); };
    for_arcs(false, count);
    if (directed_) for_arcs(true, count);
    for (uint64_t r = 0; r < n_; ++r) first_[r + 1] += first_[r];
    ids_.resize(first_[n_]);
    if (directed_) arcs_.resize(first_[n_]);
    // Filled through first_[r] as r's cursor, which then holds r's end, r + 1's start: shifted
    // back after.
    const auto fill = [&](uint8_t bits) {
      return [&, bits](uint64_t u, uint64_t v) {
        if (!kept(u, v)) return;
        uint64_t& at = first_[rank(u)];
        if (directed_) arcs_[at] = bits;
        ids_[at++] = rank(v);
      };
    };
    for_arcs(false, fill(kArcForward));
    if (directed_) for_arcs(true, fill(kArcBackward));
    for (uint64_t r = n_; r > 0; --r) first_[r] = first_[r - 1];
    first_[0] = 0;
    if (directed_) {
      merge_lists();
      return;
    }
    // A vertex's arcs come in id order: unranked, its list is sorted already (unless a file's
    // blocks say otherwise).
#pragma omp parallel for schedule(dynamic, 1024)
    for (uint64_t r = 0; r < n_; ++r) {
      Id* list = ids_.data() + first_[r];
      const uint64_t length = first_[r + 1] - first_[r];
      if (ranked() || !std::is_sorted(list, list + length)) std::sort(list, list + length);
    }
  }

  uint64_t bytes() const {
    return ranking_.bytes() + ids_.size() * sizeof(Id) + first_.size() * 8 + arcs_.size() +
           end_.size() * 8;
  }
  uint64_t entries() const { return ids_.size(); }

  // f(Triangle) for every triangle, once, from the team's threads, its CornerShares added into
  // by_rank (n sums, by rank); returns the entries merged, the pass's work. A triangle's first
  // corner is the same for a list and its second for a merge, so their shares are summed in
  // registers; the third corner's is added per triangle. Third corners are mostly hubs, which
  // rank last: each thread keeps the sums of the last kHotRanks ranks to itself (adding them in
  // at the end), so the threads do not pass the hubs' cache lines back and forth; the rest are
  // atomic adds (kron-22, 2 threads: the pass took 58 s with atomics for all, 46 s with none).
  static constexpr uint64_t kHotRanks = 1 << 15;  // 256 KiB of sums a thread
  template <typename F>
  uint64_t add_triangles(const F& f, int64_t* by_rank) const {
    uint64_t merged = 0;
    const uint64_t hot_first = n_ > kHotRanks ? n_ - kHotRanks : 0;
    const auto add = [by_rank](uint64_t r, int64_t x) {
      if (x != 0) std::atomic_ref<int64_t>(by_rank[r]).fetch_add(x, std::memory_order_relaxed);
    };
#pragma omp parallel reduction(+ : merged)
    {
      std::vector<int64_t> hot(n_ - hot_first, 0);
#pragma omp for schedule(dynamic, 256)
      for (uint64_t r = 0; r < n_; ++r) {
        F call = f;  // a thread's own copy: its captures stay in registers
        const uint64_t r_end = end(r);
        int64_t at_r = 0;
        for (uint64_t a = first_[r]; a < r_end; ++a) {
          const Id s = ids_[a];
          const uint64_t s_end = end(s);
          uint64_t i = a + 1, j = first_[s];
          merged += (r_end - i) + (s_end - j);
          int64_t at_s = 0;
          while (i < r_end && j < s_end) {
            const Id x = ids_[i], y = ids_[j];
            if (x < y) {
              ++i;
            } else if (y < x) {
              ++j;
            } else {
              const CornerShares c = call(Triangle<Id>{vertex_of(r), vertex_of(s), vertex_of(x),
                                                       bits(a), bits(i), bits(j)});
              at_r += c.u;
              at_s += c.v;
              if (x >= hot_first) {
                hot[x - hot_first] += c.w;
              } else {
                add(x, c.w);
              }
              ++i;
              ++j;
            }
          }
          add(s, at_s);
        }
        add(r, at_r);
      }
      for (uint64_t k = 0; k < hot.size(); ++k) add(hot_first + k, hot[k]);
    }
    return merged;
  }
  // Adds into by_vertex each vertex's entries, its own list's and those naming it: its
  // neighbours in the undirected view.
  void add_neighbour_counts(int64_t* by_vertex) const {
    const auto add = [by_vertex](uint64_t v, int64_t x) {
      if (x != 0) std::atomic_ref<int64_t>(by_vertex[v]).fetch_add(x, std::memory_order_relaxed);
    };
#pragma omp parallel for schedule(dynamic, 1024)
    for (uint64_t r = 0; r < n_; ++r) {
      add(vertex_of(r), static_cast<int64_t>(end(r) - first_[r]));
      for (uint64_t a = first_[r]; a < end(r); ++a) add(vertex_of(ids_[a]), 1);
    }
  }

  // Whether the lists are by degree rank (else by id: rank and vertex are one).
  bool ranked() const { return ranking_.ranked(); }
  Id rank(uint64_t v) const { return ranking_.rank(v); }
  Id vertex_of(uint64_t r) const { return ranking_.vertex_of(r); }

 private:
  // A directed vertex's list holds its out-entries, then its in-entries: one sorted list.
  void merge_lists() {
    end_.resize(n_);
    merge_arc_pairs(first_, ids_, arcs_, end_);
  }

  uint64_t end(uint64_t r) const { return directed_ ? end_[r] : first_[r + 1]; }
  uint8_t bits(uint64_t k) const { return directed_ ? arcs_[k] : uint8_t{kArcsBoth}; }

  uint64_t n_;
  bool directed_;
  DegreeRanking<Id> ranking_;
  std::vector<uint64_t> first_;  // by rank: where its list starts
  std::vector<Id> ids_;          // the lists' entries: ranks
  std::vector<uint8_t> arcs_;    // directed: ArcsBetween the list's owner and each entry
  std::vector<uint64_t> end_;    // directed: by rank, where its list ends after merging
};

}  // namespace tg
