#include "store/copying_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "graph/block_check.h"
#include "util/error.h"

namespace tg {
namespace {

using Clock = std::chrono::steady_clock;
double now_seconds() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

constexpr uint64_t kPage = 4096;

}  // namespace

CopyingStore::CopyingStore(std::shared_ptr<const GraphFile> file, CopyingStoreOptions options)
    : file_(std::move(file)), options_(options), rng_(options.seed) {
  if (options_.buffers == 0) fail("copying store: the pool needs at least one buffer");
  if (options_.depth == 0) fail("copying store: the depth must be at least 1");
  if (options_.io_threads == 0 || options_.io_threads > 64) fail("copying store: I/O threads must be 1 to 64, not {}", options_.io_threads);
  if (options_.with_weights && !file_->weighted()) options_.with_weights = false;
  fd_ = ::open(file_->path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail("'{}': cannot open for the copying store: {}", file_->path(), std::strerror(errno));
  // One buffer holds the largest block of either grid (whole blocks are leased).
  const uint32_t p = file_->blocks_per_side();
  for (Grid g : {Grid::kOut, Grid::kIn})
    for (uint32_t i = 0; i < p; ++i)
      for (uint32_t j = 0; j < p; ++j) buffer_bytes_ = std::max(buffer_bytes_, fetch_bytes({g, i, j}));
  buffer_bytes_ = std::max<uint64_t>(kPage, (buffer_bytes_ + kPage - 1) / kPage * kPage);
  for (uint32_t b = 0; b < options_.buffers; ++b) {
    void* m = ::mmap(nullptr, buffer_bytes_, options_.protect ? PROT_NONE : PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      for (auto* x : buffers_) ::munmap(x, buffer_bytes_);
      ::close(fd_);
      fail("copying store: cannot map a pool of {} buffers of {} bytes: {}", options_.buffers, buffer_bytes_,
           std::strerror(errno));
    }
    buffers_.push_back(static_cast<unsigned char*>(m));
    free_buffers_.push_back(static_cast<int>(b));
  }
  for (uint32_t t = 0; t < options_.io_threads; ++t) io_.emplace_back([this] { io_loop(); });
}

CopyingStore::~CopyingStore() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  io_wake_.notify_all();
  for (auto& t : io_) t.join();
  for (auto* b : buffers_) ::munmap(b, buffer_bytes_);
  if (fd_ >= 0) ::close(fd_);
}

// The bytes a pass reads of a block: its whole extent, or the prefix before the weights part.
uint64_t CopyingStore::fetch_bytes(const BlockId& b) const {
  const auto& e = file_->entry(b.grid, b.major, b.minor);
  const auto positions = format::part_positions(e.part_bytes);
  return options_.with_weights ? positions.end : positions.at[format::kWeights];
}

void CopyingStore::protect(int buffer, int prot) const {
  if (!options_.protect) return;
  if (::mprotect(buffers_[static_cast<size_t>(buffer)], buffer_bytes_, prot) != 0) {
    fail("copying store: mprotect failed: {}", std::strerror(errno));
  }
}

void CopyingStore::begin_pass(std::vector<PlannedBlock> plan) {
  std::lock_guard lock(mutex_);
  if (!in_flight_.empty() || free_buffers_.size() != buffers_.size()) {
    fail("internal: copying store: a pass began before the last one ended");
  }
  entries_ = std::make_unique<Entry[]>(plan.size());
  entry_count_ = plan.size();
  for (size_t k = 0; k < plan.size(); ++k) {
    entries_[k].planned = plan[k];
    entries_[k].remaining.store(plan[k].uses, std::memory_order_relaxed);
  }
  next_ = 0;
  started_ = 0;
  arrivals_ = 0;
  cancelled_ = false;
  arrival_log_.clear();
  acquire_log_.clear();
  io_wake_.notify_all();
}

void CopyingStore::io_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    io_wake_.wait(lock, [&] {
      const bool can_start = next_ < entry_count_ && !free_buffers_.empty() && in_flight_.size() < options_.depth;
      return stopping_ || can_start || !in_flight_.empty();
    });
    if (stopping_ && in_flight_.empty()) return;
    // Start requests while the depth and the pool allow.
    while (!stopping_ && next_ < entry_count_ && !free_buffers_.empty() && in_flight_.size() < options_.depth) {
      Entry& e = entries_[next_];
      e.buffer = free_buffers_.back();
      free_buffers_.pop_back();
      in_flight_.push_back({next_, now_seconds()});
      ++next_;
      ++started_;
      ++counters_.requests;
      counters_.max_in_flight = std::max<uint64_t>(counters_.max_in_flight, in_flight_.size());
    }
    if (in_flight_.empty()) continue;
    // Complete one, in the order asked for.
    size_t pick = 0;
    if (options_.completion == CopyingStoreOptions::Completion::kReverse) pick = in_flight_.size() - 1;
    if (options_.completion == CopyingStoreOptions::Completion::kShuffled) pick = rng_() % in_flight_.size();
    const Request r = in_flight_[pick];
    in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(pick));
    Entry& e = entries_[r.entry];
    unsigned char* buffer = buffers_[static_cast<size_t>(e.buffer)];
    lock.unlock();
    const double due = r.started + options_.delay_seconds;
    if (const double left = due - now_seconds(); left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
    fetch(e, buffer);
    const double finished = now_seconds();
    lock.lock();
    counters_.request_seconds += finished - r.started;
    e.arrival.store(arrivals_++, std::memory_order_relaxed);
    arrival_log_.push_back(r.entry);
    e.state.store(e.error.empty() ? kReady : kFailed, std::memory_order_release);
    arrived_.notify_all();
  }
}

void CopyingStore::fetch(Entry& e, unsigned char* buffer) {
  const BlockId& b = e.planned.block;
  const auto& entry = file_->entry(b.grid, b.major, b.minor);
  const uint64_t bytes = fetch_bytes(b);
  try {
    protect(e.buffer, PROT_READ | PROT_WRITE);
    uint64_t done = 0;
    while (done < bytes) {
      const ssize_t got = ::pread(fd_, buffer + done, bytes - done, static_cast<off_t>(entry.offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        e.error = got < 0 ? std::strerror(errno) : "the file ends inside it";
        return;
      }
      done += static_cast<uint64_t>(got);
    }
    {
      std::lock_guard lock(mutex_);
      counters_.bytes += bytes;
    }
    const auto ranges = file_->ranges();
    e.error = validate_block(buffer, bytes, entry, file_->shape(b.major, b.minor), ranges[b.major], ranges[b.minor],
                             options_.check_hashes, options_.with_weights);
    if (!e.error.empty()) return;
    e.decoder = BlockDecoder::at(buffer, entry, ranges[b.major], ranges[b.minor]);
    protect(e.buffer, PROT_READ);  // the engine only reads a block
  } catch (const Error& error) {
    e.error = error.what();
  }
}

uint64_t CopyingStore::arrival(uint64_t k) const {
  const Entry& e = entries_[k];
  if (e.state.load(std::memory_order_acquire) == kWaiting) return kNotArrived;
  return e.arrival.load(std::memory_order_relaxed);
}

void CopyingStore::wait_any(std::span<const uint64_t> entries) {
  auto any = [&] {
    return std::any_of(entries.begin(), entries.end(),
                       [&](uint64_t k) { return entries_[k].state.load(std::memory_order_acquire) != kWaiting; });
  };
  if (any()) return;
  const double start = now_seconds();
  std::unique_lock lock(mutex_);
  arrived_.wait(lock, [&] { return cancelled_ || any(); });
  counters_.wait_seconds += now_seconds() - start;
  if (!any()) fail("the pass was cancelled (another task failed) before its block arrived");
}

void CopyingStore::cancel_pass() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    next_ = entry_count_;  // start nothing more
  }
  arrived_.notify_all();
}

void CopyingStore::fail_entry(const Entry& e) const {
  const BlockId& b = e.planned.block;
  fail("'{}': block (row {}, column {}) of the {} grid at byte offset {}, fetched by the copying store: {}",
       file_->path(), b.grid == Grid::kOut ? b.major : b.minor, b.grid == Grid::kOut ? b.minor : b.major,
       grid_name(b.grid), file_->entry(b.grid, b.major, b.minor).offset, e.error);
}

const BlockDecoder& CopyingStore::acquire(uint64_t k) {
  Entry& e = entries_[k];
  if (e.state.load(std::memory_order_acquire) == kWaiting) {
    const uint64_t one[] = {k};
    wait_any(one);
  }
  if (e.state.load(std::memory_order_acquire) == kFailed) fail_entry(e);
  if (!e.acquired.exchange(true, std::memory_order_relaxed)) {
    std::lock_guard lock(mutex_);
    acquire_log_.push_back(k);
    ++counters_.blocks;
  }
  return e.decoder;
}

void CopyingStore::release(uint64_t k) {
  Entry& e = entries_[k];
  if (e.remaining.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  std::lock_guard lock(mutex_);
  protect(e.buffer, PROT_NONE);
  free_buffers_.push_back(e.buffer);
  e.buffer = -1;
  io_wake_.notify_all();
}

void CopyingStore::end_pass() {
  std::unique_lock lock(mutex_);
  next_ = entry_count_;  // start nothing more (a pass that stopped early leaves entries unread)
  arrived_.wait(lock, [&] { return arrivals_ == started_; });  // requests under way finish first
  for (uint64_t k = 0; k < entry_count_; ++k) {
    Entry& e = entries_[k];
    if (e.buffer >= 0) {  // a lease never released: the pass failed
      protect(e.buffer, PROT_NONE);
      free_buffers_.push_back(e.buffer);
      e.buffer = -1;
    }
  }
  entry_count_ = 0;
  next_ = 0;
}

StoreCounters CopyingStore::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

std::vector<uint64_t> CopyingStore::arrival_log() const {
  std::lock_guard lock(mutex_);
  return arrival_log_;
}

std::vector<uint64_t> CopyingStore::acquire_log() const {
  std::lock_guard lock(mutex_);
  return acquire_log_;
}

}  // namespace tg
