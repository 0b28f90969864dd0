// The vertex arrays a CPU engine hands out: their storage, freed by scopes or moved out by
// collect, and the bytes they hold now and at their peak, together with the results collect
// handed out since the last reset (the peak a kernel's state_bytes promises).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/vertex_array.h"

namespace tg {

class VertexState {
 public:
  explicit VertexState(uint64_t vertices) : n_(vertices) {}

  // A fresh array of n values, every one `init`.
  template <typename T>
  VertexArray<T> allocate(T init) {
    storage_.push_back(VertexStorage::of<T>(n_, init));
    bytes_ += storage_.back().bytes();
    peak_bytes_ = std::max(peak_bytes_, bytes_);
    note_held();
    return VertexArray<T>::over(static_cast<T*>(storage_.back().data()), 0, n_);
  }
  // Moves an array's values out (collect consumes the array): its bytes become the result's.
  template <typename T>
  std::vector<T> take(VertexArray<T> a) {
    VertexStorage& s = storage_of(a.data());
    bytes_ -= s.bytes();
    results_out_bytes_ += s.bytes();
    return s.template take<T>();
  }
  // A result of `bytes` made beside the arrays still held (collect with a map).
  void add_result(uint64_t bytes) {
    results_out_bytes_ += bytes;
    note_held();
  }
  // Frees an array whose values are no longer needed.
  template <typename T>
  void free(VertexArray<T> a) {
    VertexStorage& s = storage_of(a.data());
    bytes_ -= s.bytes();
    s.template take<T>();
  }

  // Working memory a pass holds beside the arrays (the triangle pass's lists), counted as
  // vertex state while held.
  void hold(uint64_t bytes) {
    bytes_ += bytes;
    peak_bytes_ = std::max(peak_bytes_, bytes_);
    note_held();
  }
  void release(uint64_t bytes) { bytes_ -= bytes; }

  // Scopes: every array made after mark() is freed by free_to(mark).
  size_t mark() const { return storage_.size(); }
  void free_to(size_t mark) {
    while (storage_.size() > mark) {
      bytes_ -= storage_.back().bytes();
      storage_.pop_back();
    }
  }

  // Starts counting results anew (a trial's start).
  void reset_held() {
    results_out_bytes_ = 0;
    peak_held_bytes_ = bytes_;
  }
  uint64_t bytes() const { return bytes_; }  // held now
  uint64_t peak_bytes() const { return peak_bytes_; }
  uint64_t peak_held_bytes() const { return peak_held_bytes_; }

 private:
  VertexStorage& storage_of(const void* data) {
    for (auto& s : storage_)
      if (s.data() != nullptr && s.data() == data) return s;
    throw std::logic_error("collect: the array is not this engine's (or was collected already)");
  }
  void note_held() { peak_held_bytes_ = std::max(peak_held_bytes_, bytes_ + results_out_bytes_); }

  uint64_t n_;
  std::vector<VertexStorage> storage_;
  uint64_t bytes_ = 0, peak_bytes_ = 0;
  uint64_t results_out_bytes_ = 0, peak_held_bytes_ = 0;  // since reset_held
};

}  // namespace tg
