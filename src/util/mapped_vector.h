// A growable array of trivially copyable elements backed by an anonymous mapping.
//
// Why not std::vector: building a graph appends hundreds of millions of edges, and vector's
// growth by copying holds the old and the new buffer at once (up to 3x the data). mremap moves
// the pages instead of copying them, so the resident size is only what is used. This is what lets
// conversion keep its peak memory close to the size of the graph.
#pragma once

#include <sys/mman.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>
#include <utility>

#include "util/error.h"

namespace tg {

template <typename T>
class MappedVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  MappedVector() = default;
  explicit MappedVector(size_t n) { resize(n); }
  MappedVector(const MappedVector&) = delete;
  MappedVector& operator=(const MappedVector&) = delete;
  MappedVector(MappedVector&& other) noexcept { swap(other); }
  MappedVector& operator=(MappedVector&& other) noexcept {
    MappedVector(std::move(other)).swap(*this);
    return *this;
  }
  ~MappedVector() { release(); }

  void swap(MappedVector& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_bytes_, other.capacity_bytes_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

  // New elements are zero (fresh anonymous pages), which callers may rely on.
  void resize(size_t n) {
    reserve(n);
    if (n < size_) std::memset(static_cast<void*>(data_ + n), 0, (size_ - n) * sizeof(T));
    size_ = n;
  }

  void reserve(size_t n) {
    const size_t need = round_up(n * sizeof(T));
    if (need <= capacity_bytes_) return;
    const size_t grown = std::max(need, capacity_bytes_ + capacity_bytes_ / 2);
    void* p;
    if (data_ == nullptr) {
      p = mmap(nullptr, grown, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
      p = mremap(data_, capacity_bytes_, grown, MREMAP_MAYMOVE);
    }
    if (p == MAP_FAILED)
      fail("out of memory: cannot map {} bytes ({})", grown, std::strerror(errno));
    data_ = static_cast<T*>(p);
    capacity_bytes_ = grown;
  }

  void append(std::span<const T> items) {
    reserve(size_ + items.size());
    if (!items.empty())
      std::memcpy(static_cast<void*>(data_ + size_), items.data(), items.size_bytes());
    size_ += items.size();
  }

  void push_back(const T& item) { append({&item, 1}); }

  // Gives unused capacity back to the kernel.
  void shrink_to_fit() {
    const size_t need = round_up(size_ * sizeof(T));
    if (need == capacity_bytes_) return;
    if (need == 0) {
      release();
      return;
    }
    void* p = mremap(data_, capacity_bytes_, need, 0);
    if (p == MAP_FAILED) return;  // keeping the larger mapping is harmless
    capacity_bytes_ = need;
  }

  void clear() { release(); }

 private:
  static size_t round_up(size_t bytes) {
    constexpr size_t kPage = 4096;
    return (bytes + kPage - 1) / kPage * kPage;
  }
  void release() {
    if (data_ != nullptr) munmap(data_, capacity_bytes_);
    data_ = nullptr;
    size_ = 0;
    capacity_bytes_ = 0;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_bytes_ = 0;
};

}  // namespace tg
