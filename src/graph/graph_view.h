// Typed, in-memory view of a graph file's block grid: what the engine iterates. Id is the
// vertex id type the file stores (uint32_t or uint64_t); W the weight type (NoWeight when the
// algorithm ignores weights, so unweighted passes never touch the weights section).
//
// This is the seam where later tiers plug in: here every block points into the mapped file; a
// disk or far-memory tier hands out the same BlockView for a block it has fetched.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "graph/edge_list.h"
#include "graph/graph_file.h"
#include "util/error.h"

namespace tg {

// One block: a CSR over the vertices of its major range (sources for out-blocks, destinations
// for in-blocks) restricted to the minor range.
template <typename Id, typename W>
struct BlockView {
  const uint32_t* offsets = nullptr;  // |range| + 1 local offsets
  const Id* neighbors = nullptr;
  const W* weights = nullptr;         // parallel to neighbors; unused when W is NoWeight
  uint64_t first = 0;                 // first vertex of the major range
  uint64_t edge_count = 0;

  std::span<const Id> neighbors_of(uint64_t v) const {
    const uint64_t k = v - first;
    return {neighbors + offsets[k], neighbors + offsets[k + 1]};
  }
  uint32_t begin(uint64_t v) const { return offsets[v - first]; }
  uint32_t end(uint64_t v) const { return offsets[v - first + 1]; }
  W weight(uint32_t k) const {
    if constexpr (std::is_same_v<W, NoWeight>) {
      return {};
    } else {
      return weights[k];
    }
  }
};

template <typename Id, typename W>
class GraphView {
 public:
  using IdType = Id;
  using WeightType = W;

  explicit GraphView(std::shared_ptr<const GraphFile> file) : file_(std::move(file)) {
    using format::SectionKind;
    if (file_->id_bytes() != sizeof(Id)) fail("internal: graph id width {} viewed as {}", file_->id_bytes(), sizeof(Id));
    n_ = file_->num_vertices();
    p_ = file_->blocks_per_side();
    ranges_ = file_->ranges();
    out_ = make_blocks(SectionKind::kOutIndex, SectionKind::kOutOffsets, SectionKind::kOutNeighbors, SectionKind::kOutWeights);
    in_ = file_->directed() ? make_blocks(SectionKind::kInIndex, SectionKind::kInOffsets, SectionKind::kInNeighbors, SectionKind::kInWeights)
                            : out_;
  }

  const GraphFile& file() const { return *file_; }
  uint64_t num_vertices() const { return n_; }
  uint64_t num_arcs() const { return file_->num_arcs(); }
  bool directed() const { return file_->directed(); }
  uint32_t blocks_per_side() const { return p_; }
  std::span<const uint64_t> ranges() const { return ranges_; }
  uint64_t out_degree(uint64_t v) const { return file_->out_degree(v); }
  uint64_t in_degree(uint64_t v) const { return file_->in_degree(v); }

  // Block (i, j): sources in range i, destinations in range j.
  const BlockView<Id, W>& out_block(uint32_t i, uint32_t j) const { return out_[uint64_t{i} * p_ + j]; }
  // The same block grouped by destination (stored destination-major).
  const BlockView<Id, W>& in_block(uint32_t i, uint32_t j) const { return in_[uint64_t{j} * p_ + i]; }

  // Calls f(u, v, w) for every stored arc, serially (verifiers, reblocking).
  template <typename F>
  void for_each_arc(F f) const {
    for (uint32_t i = 0; i < p_; ++i)
      for (uint32_t j = 0; j < p_; ++j) {
        const auto& b = out_block(i, j);
        for (uint64_t u = ranges_[i]; u < ranges_[i + 1]; ++u)
          for (uint32_t k = b.begin(u); k < b.end(u); ++k) f(u, static_cast<uint64_t>(b.neighbors[k]), b.weight(k));
      }
  }

 private:
  std::vector<BlockView<Id, W>> make_blocks(format::SectionKind index, format::SectionKind offsets,
                                            format::SectionKind neighbors, format::SectionKind weights) const {
    const auto entries = file_->section<format::BlockEntry>(index);
    const auto offs = file_->section<uint32_t>(offsets);
    const auto nbrs = file_->section<Id>(neighbors);
    const W* wts = nullptr;
    if constexpr (!std::is_same_v<W, NoWeight>) {
      if (!file_->weighted()) fail("internal: weights requested from an unweighted graph");
      if (format::weight_bytes(file_->weight_type()) != sizeof(W)) fail("internal: weights viewed with the wrong type");
      wts = file_->section<W>(weights).data();
    }
    std::vector<BlockView<Id, W>> blocks(entries.size());
    for (size_t k = 0; k < entries.size(); ++k) {
      const auto& e = entries[k];
      auto& b = blocks[k];
      b.offsets = offs.data() + e.offsets_begin;
      b.neighbors = nbrs.data() + e.edges_begin;
      if constexpr (!std::is_same_v<W, NoWeight>) b.weights = wts + e.edges_begin;
      b.first = ranges_[k / p_];
      b.edge_count = e.edge_count;
    }
    return blocks;
  }

  std::shared_ptr<const GraphFile> file_;
  uint64_t n_ = 0;
  uint32_t p_ = 1;
  std::span<const uint64_t> ranges_;
  std::vector<BlockView<Id, W>> out_, in_;
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
    fail("'{}' has no weights", file->path());
  };
  if (file->id_bytes() == 4) return by_weight.template operator()<uint32_t>();
  return by_weight.template operator()<uint64_t>();
}

}  // namespace tg
