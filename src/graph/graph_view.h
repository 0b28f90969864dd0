// Typed, in-memory view of a graph file's block grid: what the engine iterates. Id is the
// vertex id type of the file (uint32_t or uint64_t); W the weight type (NoWeight when the
// algorithm ignores weights, so unweighted passes never touch a block's weights part).
//
// This is the seam where later tiers plug in: here every block decoder points into the mapped
// file; a disk or far-memory tier hands out decoders over blocks it has fetched.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "graph/block_decoder.h"
#include "graph/edge_list.h"
#include "graph/graph_file.h"
#include "graph/vertex_ranges.h"
#include "util/error.h"

namespace tg {

namespace detail {
// The loop of for_arcs for one local id width (a function template, not a lambda: clang must
// see kStops as a template parameter to discard the branch that does not apply).
template <typename Local, typename Id, typename W, bool kStops, typename F>
inline uint64_t arcs_loop(const BlockDecoder& d, uint64_t begin, uint64_t end, F& f,
                          bool& stopped) {
  const Local* ids = reinterpret_cast<const Local*>(d.neighbours);
  const Id base = static_cast<Id>(d.minor_first);
  for (uint64_t e = begin; e < end; ++e) {
    W w{};
    if constexpr (!std::is_same_v<W, NoWeight>) w = d.weight<W>(e);
    const Id v = static_cast<Id>(base + static_cast<Id>(ids[e]));
    if constexpr (kStops) {
      if (f(v, w)) {
        stopped = true;
        return e - begin + 1;
      }
    } else {
      f(v, w);
    }
  }
  return end - begin;
}
}  // namespace detail

// Calls f(neighbour, weight) for arcs [begin, end) of block d, the id width switched on once
// outside the loop. When f returns bool, stops as soon as it returns true and sets `stopped`.
// Returns how many arcs it read.
template <typename Id, typename W, typename F>
inline uint64_t for_arcs(const BlockDecoder& d, uint64_t begin, uint64_t end, F& f, bool& stopped) {
  constexpr bool kStops = std::is_same_v<std::invoke_result_t<F&, Id, W>, bool>;
  if (d.id_bytes == sizeof(Id))
    return detail::arcs_loop<Id, Id, W, kStops>(d, begin, end, f, stopped);
  if (d.id_bytes == 2) return detail::arcs_loop<uint16_t, Id, W, kStops>(d, begin, end, f, stopped);
  if constexpr (sizeof(Id) == 8)
    return detail::arcs_loop<uint32_t, Id, W, kStops>(d, begin, end, f, stopped);
  return 0;  // unreachable: a 32-bit file's columns fit 32-bit local ids
}

template <typename Id, typename W, typename F>
inline void for_arcs(const BlockDecoder& d, uint64_t begin, uint64_t end, F& f) {
  bool stopped = false;
  for_arcs<Id, W>(d, begin, end, f, stopped);
}

template <typename Id, typename W>
class GraphView {
 public:
  using IdType = Id;
  using WeightType = W;

  explicit GraphView(std::shared_ptr<const GraphFile> file) : file_(std::move(file)) {
    if (file_->id_bytes() != sizeof(Id))
      fail("internal: graph id width {} viewed as {}", file_->id_bytes(), sizeof(Id));
    if constexpr (!std::is_same_v<W, NoWeight>) {
      if (!file_->weighted()) fail("internal: weights requested from an unweighted graph");
      if (format::weight_bytes(file_->weight_type()) != sizeof(W))
        fail("internal: weights viewed with the wrong type");
    }
    n_ = file_->num_vertices();
    p_ = file_->blocks_per_side();
    ranges_ = file_->ranges();
    out_ = decoders(Grid::kOut);
    index_presence(Grid::kOut, out_, out_presence_);
    if (file_->directed()) {
      in_ = decoders(Grid::kIn);
      index_presence(Grid::kIn, in_, in_presence_);
    } else {
      in_ = out_;  // the symmetric grid serves both directions
    }
    range_of_word_ = range_of_words(ranges_, n_);
  }

  // Decoders point into this view's presence arrays: moving keeps them, copying would not.
  GraphView(const GraphView&) = delete;
  GraphView& operator=(const GraphView&) = delete;
  GraphView(GraphView&&) noexcept = default;
  GraphView& operator=(GraphView&&) noexcept = default;

  const GraphFile& file() const { return *file_; }
  uint64_t num_vertices() const { return n_; }
  uint64_t num_arcs() const { return file_->num_arcs(); }
  bool directed() const { return file_->directed(); }
  uint32_t blocks_per_side() const { return p_; }
  std::span<const uint64_t> ranges() const { return ranges_; }
  uint32_t range_of(uint64_t v) const { return range_of_word_[v / 64]; }
  uint64_t out_degree(uint64_t v) const { return file_->out_degree(v); }
  uint64_t in_degree(uint64_t v) const { return file_->in_degree(v); }

  // Block (i, j): sources in range i, destinations in range j, grouped by source.
  const BlockDecoder& out_block(uint32_t i, uint32_t j) const { return out_[uint64_t{i} * p_ + j]; }
  // The same block grouped by destination (stored destination-major).
  const BlockDecoder& in_block(uint32_t i, uint32_t j) const { return in_[uint64_t{j} * p_ + i]; }

  // Bytes of the in-memory block index: the decoders and the DCSR presence bitmaps and ranks
  // (the symmetric grid of an undirected graph is a second copy of the decoders only).
  uint64_t index_bytes() const {
    auto presence = [](const Presence& x) {
      return x.words.size() * sizeof(uint64_t) + x.ranks.size() * sizeof(uint32_t);
    };
    return (out_.size() + in_.size()) * sizeof(BlockDecoder) + presence(out_presence_) +
           presence(in_presence_);
  }

  // A grid's decoders in storage order (major * p + minor): what the mapped store hands out.
  const BlockDecoder* grid(Grid g) const { return g == Grid::kOut ? out_.data() : in_.data(); }

  // Calls f(u, v, w) for every stored arc, serially (verifiers, reblocking).
  template <typename F>
  void for_each_arc(F f) const {
    for (const auto& d : out_) {
      d.for_each_vertex([&](uint64_t u, uint64_t begin, uint64_t end) {
        auto emit = [&](Id v, W w) { f(u, static_cast<uint64_t>(v), w); };
        for_arcs<Id, W>(d, begin, end, emit);
      });
    }
  }

 private:
  std::vector<BlockDecoder> decoders(Grid grid) const {
    std::vector<BlockDecoder> all(uint64_t{p_} * p_);
    for (uint32_t i = 0; i < p_; ++i)
      for (uint32_t j = 0; j < p_; ++j) all[uint64_t{i} * p_ + j] = file_->decoder(grid, i, j);
    return all;
  }

  // The presence bitmaps and ranks of a grid's DCSR blocks (see BlockDecoder::presence).
  struct Presence {
    std::vector<uint64_t> words;
    std::vector<uint32_t> ranks;
  };
  void index_presence(Grid grid, std::vector<BlockDecoder>& blocks, Presence& presence) const {
    std::vector<uint64_t> first_word(blocks.size() + 1, 0);
    for (size_t k = 0; k < blocks.size(); ++k) {
      const uint64_t major_size = ranges_[k / p_ + 1] - ranges_[k / p_];
      first_word[k + 1] = first_word[k] + (blocks[k].dcsr() ? (major_size + 63) / 64 : 0);
    }
    if (first_word.back() == 0) return;
    presence.words.assign(first_word.back(), 0);
    presence.ranks.assign(first_word.back(), 0);
    // A file opened without its blocks checked (under a memory budget) has had only its index
    // checked: the vertex lists are bounded here, and their pages dropped once read, so the
    // index does not hold the blocks it glanced at.
    const bool unchecked = !file_->blocks_checked();
    std::atomic<uint64_t> bad{~uint64_t{0}};
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t k = 0; k < blocks.size(); ++k) {
      auto& b = blocks[k];
      if (!b.dcsr()) continue;
      uint64_t* words = presence.words.data() + first_word[k];
      uint32_t* ranks = presence.ranks.data() + first_word[k];
      const uint64_t major_size = ranges_[k / p_ + 1] - ranges_[k / p_];
      for (uint64_t i = 0; i < b.vertex_count; ++i) {
        const uint64_t local = b.local_vertex(i);
        if (unchecked && local >= major_size) {
          uint64_t seen = bad.load();
          while (k < seen && !bad.compare_exchange_weak(seen, k)) {
          }
          break;
        }
        words[local / 64] |= uint64_t{1} << (local % 64);
      }
      if (unchecked) file_->drop_pages({b.vertices, b.vertex_count * b.vertex_bytes});
      uint32_t listed = 0;
      for (uint64_t w = 0; w < first_word[k + 1] - first_word[k]; ++w) {
        ranks[w] = listed;
        listed += static_cast<uint32_t>(__builtin_popcountll(words[w]));
      }
      b.presence = words;
      b.presence_rank = ranks;
    }
    if (const uint64_t k = bad.load(); k != ~uint64_t{0}) {
      fail("'{}': {} lists a vertex outside its range (the file is corrupted)", file_->path(),
           file_->block_name(grid, static_cast<uint32_t>(k / p_), static_cast<uint32_t>(k % p_)));
    }
  }

  std::shared_ptr<const GraphFile> file_;
  uint64_t n_ = 0;
  uint32_t p_ = 1;
  std::span<const uint64_t> ranges_;
  std::vector<BlockDecoder> out_, in_;
  Presence out_presence_, in_presence_;
  std::vector<uint32_t> range_of_word_;
};

// Calls f(view) with the GraphView<Id, NoWeight> of the file's id width.
template <typename F>
decltype(auto) with_unweighted_view(std::shared_ptr<const GraphFile> file, F f) {
  if (file->id_bytes() == 4) return f(GraphView<uint32_t, NoWeight>(std::move(file)));
  return f(GraphView<uint64_t, NoWeight>(std::move(file)));
}

// Calls f(view) with the GraphView of the file's id width and stored weight type.
template <typename F>
decltype(auto) with_weighted_view(std::shared_ptr<const GraphFile> file, F f) {
  const auto wt = file->weight_type();
  auto by_weight = [&]<typename Id>() -> decltype(auto) {
    if (wt == format::WeightType::kInt32) return f(GraphView<Id, int32_t>(file));
    if (wt == format::WeightType::kInt64) return f(GraphView<Id, int64_t>(file));
    if (wt == format::WeightType::kFloat64) return f(GraphView<Id, double>(file));
    fail("{} has no weights", file->name());
  };
  if (file->id_bytes() == 4) return by_weight.template operator()<uint32_t>();
  return by_weight.template operator()<uint64_t>();
}

}  // namespace tg
