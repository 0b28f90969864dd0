// Small parallel building blocks over OpenMP.
#pragma once

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace tg {

inline int max_threads() { return omp_get_max_threads(); }

// Sets the team size of the calling thread's parallel regions for a scope, and restores it
// after (0: leave it). OpenMP keeps this setting per calling thread, so two engines driven from
// two threads each keep their own count; nothing global changes.
class TeamSize {
 public:
  explicit TeamSize(int threads)
      : saved_(threads > 0 ? omp_get_max_threads() : 0), set_(threads > 0) {
    if (set_) omp_set_num_threads(threads);
  }
  ~TeamSize() {
    if (set_) omp_set_num_threads(saved_);
  }
  TeamSize(const TeamSize&) = delete;
  TeamSize& operator=(const TeamSize&) = delete;

 private:
  int saved_;
  bool set_;
};

inline constexpr size_t kCacheLine = 64;

// One thread's list out of a per-thread set (std::vector<std::vector<T>>), held for the length
// of a parallel region (or a task) in a header with no other data on its cache lines, and put
// back after. Why: the set keeps its lists' headers 24 bytes apart, two or three to a cache
// line, and every push_back writes its list's end pointer; threads appending through the set's
// headers at once pass that line back and forth (false sharing). Whether two headers shared a
// line depended on where malloc had put the set, so the cost came and went with unrelated
// changes: Radii on road-pace-NE ran 1.07-1.09x slower than at 7209772, all of it in the
// vertex-major push passes, where each of ~1,500 passes appends ~33,000 activated vertices from
// two threads. A cache line's worth of padding on each side keeps the header alone wherever the
// thread's stack puts it (alignas would too, but makes every parallel region that holds one
// realign its stack, which takes a register from its loop).
template <typename T>
class OwnList {
 public:
  explicit OwnList(std::vector<T>& shared) : shared_(shared), list_(std::move(shared)) {}
  ~OwnList() { shared_ = std::move(list_); }
  OwnList(const OwnList&) = delete;
  OwnList& operator=(const OwnList&) = delete;

  std::vector<T>& list() { return list_; }

 private:
  std::vector<T>& shared_;
  [[maybe_unused]] char before_[kCacheLine - sizeof(std::vector<T>*)];
  std::vector<T> list_;
  [[maybe_unused]] char after_[kCacheLine];
};

// Exclusive prefix sum in place; returns the total.
template <typename T>
T exclusive_prefix_sum(T* a, size_t n) {
  T sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const T x = a[i];
    a[i] = sum;
    sum += x;
  }
  return sum;
}

// Keeps the elements for which keep(x) holds, in order, in place; returns the new size.
// Each thread compacts its own stretch, then the stretches are moved down in order.
template <typename T, typename Keep>
size_t parallel_compact(T* a, size_t n, Keep keep) {
  if (n == 0) return 0;  // a may be null then, and memmove(null, ...) is undefined even for 0 bytes
  const int threads = max_threads();
  std::vector<size_t> begin(threads + 1), kept(threads);
  for (int t = 0; t <= threads; ++t) begin[t] = n * t / threads;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    size_t out = begin[t];
    for (size_t i = begin[t]; i < begin[t + 1]; ++i) {
      if (keep(a[i])) a[out++] = a[i];
    }
    kept[t] = out - begin[t];
  }
  size_t size = kept[0];
  for (int t = 1; t < threads; ++t) {
    std::memmove(static_cast<void*>(a + size), a + begin[t], kept[t] * sizeof(T));
    size += kept[t];
  }
  return size;
}

// The parts one after another, copied in parallel when they are large.
template <typename T>
std::vector<T> concatenate(const std::vector<std::vector<T>>& parts) {
  std::vector<size_t> start(parts.size() + 1, 0);
  for (size_t k = 0; k < parts.size(); ++k) start[k + 1] = start[k] + parts[k].size();
  std::vector<T> all(start.back());
  if (all.size() <= 65536) {  // serially: even an if(false) region costs a road graph's levels
    for (size_t k = 0; k < parts.size(); ++k)
      std::copy(parts[k].begin(), parts[k].end(), all.begin() + static_cast<ptrdiff_t>(start[k]));
    return all;
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k].empty())
      std::memcpy(static_cast<void*>(all.data() + start[k]), parts[k].data(),
                  parts[k].size() * sizeof(T));
  }
  return all;
}

// American flag placement: moves each element of a[0, start[buckets]) into its bucket
// [start[b], start[b + 1]) by following swap cycles (bucket_of(x) < buckets), in place. `next`
// holds a cursor per bucket, starting at start[b] (the caller's, so a recursion allocates none).
template <typename T, typename BucketOf>
void place_in_buckets(T* a, const size_t* start, size_t* next, size_t buckets, BucketOf bucket_of) {
  for (size_t b = 0; b < buckets; ++b) {
    while (next[b] < start[b + 1]) {
      T x = a[next[b]];
      size_t target = bucket_of(x);
      while (target != b) {
        std::swap(x, a[next[target]++]);
        target = bucket_of(x);
      }
      a[next[b]++] = x;
    }
  }
}

// Moves each element of a[0, n) into its bucket in place (bucket_of(x) < buckets, counted in
// parallel, placed by following swap cycles); returns the buckets' starts (buckets + 1 of them).
template <typename T, typename BucketOf>
std::vector<size_t> distribute_into_buckets(T* a, size_t n, size_t buckets, BucketOf bucket_of) {
  std::vector<size_t> count(buckets + 1, 0);
  {
    const int threads = max_threads();
    std::vector<std::vector<size_t>> local(threads, std::vector<size_t>(buckets, 0));
#pragma omp parallel num_threads(threads)
    {
      auto& mine = local[omp_get_thread_num()];
#pragma omp for schedule(static)
      for (size_t i = 0; i < n; ++i) ++mine[bucket_of(a[i])];
    }
    for (const auto& l : local)
      for (size_t b = 0; b < buckets; ++b) count[b] += l[b];
  }
  std::vector<size_t> start(buckets + 1);
  start[0] = 0;
  for (size_t b = 0; b < buckets; ++b) start[b + 1] = start[b] + count[b];
  std::vector<size_t> next(start.begin(), start.end() - 1);
  place_in_buckets(a, start.data(), next.data(), buckets, bucket_of);
  return start;
}

// Sorts in place with bounded extra memory: one in-place pass distributes the elements into
// buckets by bucket_of(x) (which must be monotone in the order), then the buckets are sorted in
// parallel. bucket_of must return values below `buckets`.
template <typename T, typename Less, typename BucketOf>
void parallel_bucket_sort(T* a, size_t n, size_t buckets, Less less, BucketOf bucket_of) {
  const std::vector<size_t> start = distribute_into_buckets(a, n, buckets, bucket_of);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t b = 0; b < buckets; ++b) std::sort(a + start[b], a + start[b + 1], less);
}

// Sorts a[0, n) in place by key_of(x), a 64-bit key that orders the elements completely (equal
// keys only for equal elements): a byte of the key at a time from the highest byte in which
// the keys differ (an in-place MSD radix sort), insertion sort for small stretches. For keys such
// as an arc's (major << 32 | minor) it is about twice as fast as std::sort, in no extra memory.
template <typename T, typename KeyOf>
void radix_sort_in_place(T* a, size_t n, KeyOf key_of) {
  if (n <= 32) {
    for (size_t i = 1; i < n; ++i) {
      T x = a[i];
      const uint64_t key = key_of(x);
      size_t j = i;
      for (; j > 0 && key_of(a[j - 1]) > key; --j) a[j] = a[j - 1];
      a[j] = x;
    }
    return;
  }
  const uint64_t first = key_of(a[0]);
  uint64_t differ = 0;
  for (size_t i = 1; i < n; ++i) differ |= key_of(a[i]) ^ first;
  if (differ == 0) return;
  // Every key agrees above the highest differing bit: sort on the 8 bits that end there.
  const int shift = std::max(0, static_cast<int>(std::bit_width(differ)) - 8);
  auto digit = [&](const T& x) { return static_cast<size_t>((key_of(x) >> shift) & 255); };
  size_t start[257] = {};
  for (size_t i = 0; i < n; ++i) ++start[digit(a[i]) + 1];
  for (size_t b = 0; b < 256; ++b) start[b + 1] += start[b];
  size_t next[256];
  std::copy(start, start + 256, next);
  place_in_buckets(a, start, next, 256, digit);
  if (shift == 0) return;  // the last byte: each bucket's keys are equal
  for (size_t b = 0; b < 256; ++b)
    radix_sort_in_place(a + start[b], start[b + 1] - start[b], key_of);
}

// parallel_bucket_sort with each bucket radix-sorted by key_of (see radix_sort_in_place).
template <typename T, typename KeyOf, typename BucketOf>
void parallel_bucket_radix_sort(T* a, size_t n, size_t buckets, KeyOf key_of, BucketOf bucket_of) {
  const std::vector<size_t> start = distribute_into_buckets(a, n, buckets, bucket_of);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t b = 0; b < buckets; ++b)
    radix_sort_in_place(a + start[b], start[b + 1] - start[b], key_of);
}

}  // namespace tg
