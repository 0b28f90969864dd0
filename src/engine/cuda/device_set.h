// The device engine's vertex sets: every vertex, or a list of vertices in device memory, with the
// counts the direction rule reads (size, out-edges, and what came before).
#pragma once

#include <cstdint>
#include <utility>

namespace tg::device {

template <typename Id, typename Backend>
class DeviceSet {
 public:
  using List = typename Backend::template Vector<Id>;

  static DeviceSet all(uint64_t n, uint64_t arcs) {
    DeviceSet s;
    s.all_ = true;
    s.size_ = n;
    s.out_edges_ = arcs;
    return s;
  }
  static DeviceSet of(List list, uint64_t out_edges) {
    DeviceSet s;
    s.size_ = list.size();
    s.list_ = std::move(list);
    s.out_edges_ = out_edges;
    return s;
  }

  bool is_all() const { return all_; }
  bool empty() const { return size_ == 0; }
  uint64_t size() const { return size_; }
  uint64_t out_edges() const { return out_edges_; }
  const List& list() const { return list_; }
  const Id* data() const { return thrust::raw_pointer_cast(list_.data()); }

  // What the direction rule reads of the passes before: out-edges of every frontier so far (for
  // programs whose vertices activate once), the previous frontier's size, whether it was pulled.
  uint64_t explored_edges() const { return explored_; }
  uint64_t previous_size() const { return previous_size_; }
  bool came_from_pull() const { return came_from_pull_; }
  void set_history(uint64_t explored, uint64_t previous_size, bool came_from_pull) {
    explored_ = explored;
    previous_size_ = previous_size;
    came_from_pull_ = came_from_pull;
  }

 private:
  bool all_ = false;
  List list_;
  uint64_t size_ = 0, out_edges_ = 0;
  uint64_t explored_ = 0, previous_size_ = 0;
  bool came_from_pull_ = false;
};

}  // namespace tg::device
