// One grid of a graph's v2 blocks resident in device memory, each part copied as it lies in the
// file (directory, DCSR vertex list, neighbours, weights) and read on the device with the same
// BlockDecoder the CPU engines use. DCSR blocks find a vertex by binary search over their vertex
// list (the host engines' presence index is not copied).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "graph/block_decoder.h"
#include "graph/no_weight.h"

namespace tg::device {

// v's arcs [begin, end) in block d (empty if d does not list v).
TG_HOST_DEVICE inline void segment_of(const BlockDecoder& d, uint64_t v, uint64_t& begin,
                                      uint64_t& end) {
  begin = end = 0;
  if (v < d.major_first) return;
  const uint64_t local = v - d.major_first;
  uint64_t k = local;
  if (d.dcsr()) {
    uint64_t lo = 0, hi = d.vertex_count;
    while (lo < hi) {
      const uint64_t mid = (lo + hi) / 2;
      if (d.local_vertex(mid) < local)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == d.vertex_count || d.local_vertex(lo) != local) return;
    k = lo;
  } else if (k >= d.vertex_count) {
    return;
  }
  begin = d.offset(k);
  end = d.offset(k + 1);
}

// The directory entry whose arcs hold arc e (offset(k) <= e < offset(k + 1)).
TG_HOST_DEVICE inline uint64_t entry_of_arc(const BlockDecoder& d, uint64_t e) {
  uint64_t lo = 0, hi = d.vertex_count;  // the answer lies in [lo, hi)
  while (hi - lo > 1) {
    const uint64_t mid = (lo + hi) / 2;
    if (d.offset(mid) <= e)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// Arc e's weight (NoWeight on an unweighted view, which reads nothing).
template <typename W>
TG_HOST_DEVICE inline W arc_weight(const BlockDecoder& d, uint64_t e) {
  if constexpr (std::is_same_v<W, NoWeight>) {
    return NoWeight{};
  } else {
    return d.template weight<W>(e);
  }
}

template <typename W, typename Backend>
class DeviceGrid {
 public:
  template <typename T>
  using Vector = typename Backend::template Vector<T>;

  DeviceGrid() = default;
  // Copies the p x p blocks `host` (storage order) to the device.
  DeviceGrid(const BlockDecoder* host, uint32_t p) : p_(p) {
    const uint64_t count = uint64_t{p} * p;
    blocks_.reserve(count);
    for (uint64_t k = 0; k < count; ++k) {
      BlockDecoder d = host[k];
      const uint64_t directory = (d.vertex_count + 1) * d.offset_bytes;
      d.directory = copy(d.directory, directory);
      if (d.dcsr()) d.vertices = copy(d.vertices, d.vertex_count * d.vertex_bytes);
      d.neighbours = copy(d.neighbours, d.edge_count * d.id_bytes);
      if constexpr (!std::is_same_v<W, NoWeight>)
        d.weights = copy(d.weights, d.edge_count * sizeof(W));
      d.presence = nullptr;
      d.presence_rank = nullptr;
      arcs_ += d.edge_count;
      blocks_.push_back(d);
    }
    device_blocks_ = Vector<BlockDecoder>(blocks_.begin(), blocks_.end());
  }
  DeviceGrid(DeviceGrid&&) noexcept = default;
  DeviceGrid& operator=(DeviceGrid&&) noexcept = default;

  uint32_t side() const { return p_; }
  // Block k (storage order: major range * p + minor range), pointing into device memory.
  const BlockDecoder& block(uint64_t k) const { return blocks_[k]; }
  const BlockDecoder* device_blocks() const {
    return thrust::raw_pointer_cast(device_blocks_.data());
  }
  uint64_t bytes() const { return bytes_; }
  uint64_t arcs() const { return arcs_; }  // in all its blocks

 private:
  const unsigned char* copy(const unsigned char* host, uint64_t bytes) {
    // Never empty (a pointer to it is always valid); held by pointer, so the decoders' pointers
    // stay valid however parts_ grows.
    parts_.push_back(std::make_unique<Vector<uint64_t>>((bytes + 7) / 8 + 1));
    void* device = thrust::raw_pointer_cast(parts_.back()->data());
    if (bytes) Backend::to_device(device, host, bytes);
    bytes_ += bytes;
    return static_cast<const unsigned char*>(device);
  }

  uint32_t p_ = 0;
  std::vector<BlockDecoder> blocks_;
  Vector<BlockDecoder> device_blocks_;
  std::vector<std::unique_ptr<Vector<uint64_t>>> parts_;
  uint64_t bytes_ = 0, arcs_ = 0;
};

}  // namespace tg::device
