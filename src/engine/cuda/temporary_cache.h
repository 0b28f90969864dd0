// A cache of device allocations for the temporary storage of Thrust's algorithms (scans, copy_if,
// reductions). By default each call allocates and frees its own (cudaMalloc and cudaFree, which
// synchronizes): measured on an H100, a pass over a one-vertex frontier cost about 1 ms, most of
// SSSP's time. Freed blocks are kept, by size, and handed out again; all are released with the
// cache. Given to Thrust as the allocator of an execution policy (`policy(cache)`).
#pragma once

#include <cstddef>
#include <map>

namespace tg::device {

template <typename Backend>
class TemporaryCache {
 public:
  using value_type = char;

  TemporaryCache() = default;
  TemporaryCache(const TemporaryCache&) = delete;
  TemporaryCache& operator=(const TemporaryCache&) = delete;
  ~TemporaryCache() {
    for (auto& [size, p] : free_) Backend::release(p);
    for (auto& [p, size] : used_) Backend::release(p);
  }

  char* allocate(std::ptrdiff_t bytes) {
    const size_t want = static_cast<size_t>(bytes);
    auto it = free_.lower_bound(want);
    char* p = nullptr;
    size_t size = want;
    if (it != free_.end() && it->first <= 2 * want + 4096) {  // a cached block not far larger
      size = it->first;
      p = it->second;
      free_.erase(it);
    } else {
      p = static_cast<char*>(Backend::obtain(want));
    }
    used_.emplace(p, size);
    return p;
  }
  void deallocate(char* p, size_t) {
    auto it = used_.find(p);
    free_.emplace(it->second, p);
    used_.erase(it);
  }

 private:
  std::multimap<size_t, char*> free_;  // by size
  std::map<char*, size_t> used_;
};

}  // namespace tg::device
