#include "store/file_calibration.h"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "store/uring_transfer.h"
#include "util/error.h"

namespace tg {
namespace {

using Clock = std::chrono::steady_clock;

struct ReaderResult {
  uint64_t requests = 0;
  double request_seconds = 0;
};

ReaderResult read_for(const std::string& path, uint64_t file_bytes, const FileReadTrial& t,
                      uint64_t seed) {
  constexpr uint64_t kAlign = UringTransfer::kAlignment;
  UringTransfer transfer(path, t.depth);
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<unsigned char, Free>> buffers;
  for (uint32_t d = 0; d < t.depth; ++d) {
    auto* p = static_cast<unsigned char*>(std::aligned_alloc(kAlign, t.chunk_bytes));
    if (p == nullptr) fail("calibrate: cannot allocate a buffer of {} bytes", t.chunk_bytes);
    buffers.emplace_back(p);
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> page(0, (file_bytes - t.chunk_bytes) / kAlign);
  std::vector<Clock::time_point> started(t.depth);
  auto start = [&](uint32_t id) {
    started[id] = Clock::now();
    transfer.start(id, {{page(rng) * kAlign, t.chunk_bytes, t.chunk_bytes, buffers[id].get()}});
  };
  for (uint32_t id = 0; id < t.depth; ++id) start(id);
  ReaderResult r;
  const auto end = Clock::now() + std::chrono::duration<double>(t.seconds);
  uint32_t outstanding = t.depth;
  while (outstanding > 0) {
    std::string error;
    const auto id = static_cast<uint32_t>(transfer.complete(error));
    if (!error.empty()) fail("calibrate: reading '{}': {}", path, error);
    const auto now = Clock::now();
    r.request_seconds += std::chrono::duration<double>(now - started[id]).count();
    ++r.requests;
    if (now < end)
      start(id);
    else
      --outstanding;
  }
  return r;
}

}  // namespace

FetchPoint measure_file_reads(const std::string& path, uint64_t file_bytes,
                              const FileReadTrial& t) {
  if (t.chunk_bytes == 0 || t.chunk_bytes % UringTransfer::kAlignment != 0) {
    fail("calibrate: a chunk must be a positive multiple of 4 KiB, not {} bytes", t.chunk_bytes);
  }
  if (file_bytes < t.chunk_bytes)
    fail("calibrate: '{}' holds {} bytes, less than one chunk of {}", path, file_bytes,
         t.chunk_bytes);
  if (t.depth == 0 || t.threads == 0) fail("calibrate: depth and threads must be at least 1");
  std::vector<ReaderResult> results(t.threads);
  std::vector<std::exception_ptr> errors(t.threads);
  const auto begin = Clock::now();
  std::vector<std::thread> readers;
  readers.reserve(t.threads);
  for (uint32_t k = 0; k < t.threads; ++k) {
    readers.emplace_back([&, k] {
      try {
        results[k] = read_for(path, file_bytes, t, t.seed * 7919 + k);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
  }
  for (auto& r : readers) r.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  FetchPoint p{.chunk_bytes = t.chunk_bytes, .depth = t.depth, .threads = t.threads};
  double request_seconds = 0;
  for (const auto& r : results) p.requests += r.requests, request_seconds += r.request_seconds;
  p.bytes_per_second = elapsed > 0 ? static_cast<double>(p.requests * t.chunk_bytes) / elapsed : 0;
  p.latency_seconds = p.requests > 0 ? request_seconds / static_cast<double>(p.requests) : 0;
  return p;
}

}  // namespace tg
