#include "store/copying_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "graph/block_check.h"
#include "store/block_pieces.h"
#include "util/error.h"

namespace tg {
namespace {

using Clock = std::chrono::steady_clock;
double now_seconds() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

constexpr uint64_t kPage = 4096;
constexpr uint64_t kSmallestBuffer = 64;  // one entry and one arc of any widths

}  // namespace

CopyingStore::CopyingStore(std::shared_ptr<const GraphFile> file, CopyingStoreOptions options,
                           std::unique_ptr<Transfer> transfer)
    : file_(std::move(file)), options_(options), transfer_(std::move(transfer)) {
  if (options_.buffers == 0) fail("{} store: the pool needs at least one buffer", name());
  if (options_.depth == 0) fail("{} store: the depth must be at least 1", name());
  if (options_.io_threads == 0 || options_.io_threads > 64) {
    fail("{} store: I/O threads must be 1 to 64, not {}", name(), options_.io_threads);
  }
  if (options_.with_weights && !file_->weighted()) options_.with_weights = false;
  // A buffer holds the largest block of either grid, or what was asked for when that is less
  // (the larger blocks are then leased in pieces).
  const uint32_t p = file_->blocks_per_side();
  uint64_t largest = 0;
  for (Grid g : {Grid::kOut, Grid::kIn})
    for (uint32_t i = 0; i < p; ++i)
      for (uint32_t j = 0; j < p; ++j) largest = std::max(largest, fetch_bytes({g, i, j}));
  piece_bytes_ = options_.buffer_bytes > 0 ? std::min(options_.buffer_bytes, largest) : largest;
  if (piece_bytes_ < kSmallestBuffer && piece_bytes_ < largest) {
    fail("{} store: a buffer of {} bytes is too small; give at least {}", name(),
         options_.buffer_bytes, kSmallestBuffer);
  }
  cut_pieces();
  if (!transfer_) {
    transfer_ = std::make_unique<PreadTransfer>(file_->path(), options_.delay_seconds,
                                                options_.completion, options_.seed);
  }
  buffer_bytes_ = mapping_bytes(piece_bytes_, transfer_->alignment());
  for (uint32_t b = 0; b < options_.buffers; ++b) {
    void* m = ::mmap(nullptr, buffer_bytes_, options_.protect ? PROT_NONE : PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      for (auto* x : buffers_) ::munmap(x, buffer_bytes_);
      fail("{} store: cannot map a pool of {} buffers of {} bytes: {}", name(), options_.buffers,
           buffer_bytes_, std::strerror(errno));
    }
    buffers_.push_back(static_cast<unsigned char*>(m));
    free_buffers_.push_back(static_cast<int>(b));
  }
  for (uint32_t t = 0; t < options_.io_threads; ++t) io_.emplace_back([this] { io_loop(); });
}

uint64_t CopyingStore::mapping_bytes(uint64_t piece_bytes, uint64_t alignment) {
  // Each of a piece's four parts may need up to two alignment units more than its bytes (its
  // start rounded down, its end rounded up); mprotect works in whole pages.
  const uint64_t slack = uint64_t{4} * 2 * std::max<uint64_t>(alignment, format::kPartAlignment);
  return std::max<uint64_t>(kPage, format::align_up(piece_bytes + slack, kPage));
}

CopyingStore::~CopyingStore() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  io_wake_.notify_all();
  for (auto& t : io_) t.join();
  for (auto* b : buffers_) ::munmap(b, buffer_bytes_);
}

// The bytes a pass reads of a block: its whole extent, or the prefix before the weights part.
uint64_t CopyingStore::fetch_bytes(const BlockId& b) const {
  return file_->block_bytes(b.grid, b.major, b.minor, options_.with_weights);
}

uint64_t CopyingStore::piece_slot(const BlockId& b) const {
  const uint64_t p = file_->blocks_per_side();
  const bool in =
      b.grid == Grid::kIn && file_->directed();  // an undirected in grid is the out grid
  return (in ? p * p : 0) + b.major * p + b.minor;
}

void CopyingStore::cut_pieces() {
  const uint32_t p = file_->blocks_per_side();
  const uint32_t weight_bytes =
      options_.with_weights ? format::weight_bytes(file_->weight_type()) : 0;
  pieces_of_.assign(2 * uint64_t{p} * p + 1, 0);
  for (Grid g : {Grid::kOut, Grid::kIn}) {
    if (g == Grid::kIn && !file_->directed()) continue;
    for (uint32_t i = 0; i < p; ++i)
      for (uint32_t j = 0; j < p; ++j) {
        const BlockId b{g, i, j};
        pieces_of_[piece_slot(b)] = pieces_.size();
        if (fetch_bytes(b) <= piece_bytes_) continue;
        const BlockDecoder d = file_->decoder(g, i, j);
        auto cut = cut_into_pieces(d, file_->entry(g, i, j), piece_bytes_, weight_bytes);
        // Cutting read every offset of the block through the mapping: a far block's directory,
        // 4 bytes a vertex on a 1x1 grid (512 MiB at 2^27 vertices), must not stay resident.
        file_->drop_pages({d.directory, (uint64_t{d.vertex_count} + 1) * d.offset_bytes});
        pieces_.insert(pieces_.end(), cut.begin(), cut.end());
        ++blocks_in_pieces_;
      }
  }
  // The slots after the last visited one (all of the in grid's, when undirected) end the list.
  const uint64_t visited = (file_->directed() ? 2 : 1) * uint64_t{p} * p;
  std::fill(pieces_of_.begin() + static_cast<std::ptrdiff_t>(visited), pieces_of_.end(),
            pieces_.size());
}

std::span<const BlockPiece> CopyingStore::pieces(const BlockId& block) const {
  const uint64_t s = piece_slot(block);
  return {pieces_.data() + pieces_of_[s], pieces_of_[s + 1] - pieces_of_[s]};
}

void CopyingStore::protect(int buffer, int prot) const {
  if (!options_.protect) return;
  if (::mprotect(buffers_[static_cast<size_t>(buffer)], buffer_bytes_, prot) != 0) {
    fail("copying store: mprotect failed: {}", std::strerror(errno));
  }
}

void CopyingStore::begin_pass(std::vector<PlannedBlock> plan) {
  std::lock_guard lock(mutex_);
  if (in_flight_ != 0 || free_buffers_.size() != buffers_.size()) {
    fail("internal: copying store: a pass began before the last one ended");
  }
  entries_ = std::make_unique<Entry[]>(plan.size());
  entry_count_ = plan.size();
  group_.resize(plan.size());
  for (size_t k = 0; k < plan.size(); ++k) {
    entries_[k].planned = plan[k];
    entries_[k].remaining.store(plan[k].uses, std::memory_order_relaxed);
    const BlockId& b = plan[k].block;
    const bool same = k > 0 && plan[k - 1].block.grid == b.grid &&
                      plan[k - 1].block.major == b.major && plan[k - 1].block.minor == b.minor;
    group_[k] = k == 0 ? 0 : group_[k - 1] + !same;
  }
  counted_.assign(plan.empty() ? 0 : group_.back() + 1, 0);
  next_ = 0;
  arrivals_ = 0;
  cancelled_ = false;
  arrival_log_.clear();
  acquire_log_.clear();
  io_wake_.notify_all();
}

std::string CopyingStore::name() const { return transfer_ ? transfer_->name() : "copying"; }

void CopyingStore::io_loop() {
  std::unique_lock lock(mutex_);
  auto can_start = [&] {
    return !stopping_ && next_ < entry_count_ && !free_buffers_.empty() &&
           in_flight_ < options_.depth;
  };
  for (;;) {
    io_wake_.wait(lock,
                  [&] { return can_start() || unclaimed_ > 0 || (stopping_ && in_flight_ == 0); });
    if (stopping_ && in_flight_ == 0) return;
    // Start requests while the depth and the pool allow.
    while (can_start()) {
      const uint64_t k = next_++;
      Entry& e = entries_[k];
      e.buffer = free_buffers_.back();
      free_buffers_.pop_back();
      e.started = now_seconds();
      try {
        protect(e.buffer, PROT_READ | PROT_WRITE);
        start_reads(e, k, plan_reads(e, buffers_[static_cast<size_t>(e.buffer)]));
      } catch (const Error& error) {  // nothing started: it arrives failed at once
        e.error = error.what();
        finish(e, k);
        continue;
      }
      ++in_flight_;
      counters_.max_in_flight = std::max<uint64_t>(counters_.max_in_flight, in_flight_);
    }
    if (unclaimed_ == 0) continue;
    --unclaimed_;  // this thread completes one (whichever the transfer finishes first)
    lock.unlock();
    std::string error;
    uint64_t k = 0;
    try {
      k = transfer_->complete(error);
    } catch (const Error& failure) {  // the medium itself failed: nothing can arrive any more
      lock.lock();
      fail_everything(failure.what());
      continue;
    }
    Entry& e = entries_[k];
    e.error = std::move(error);
    if (e.error.empty() && e.step == 1) {  // a selection's entries arrived: now its arcs
      std::vector<ReadRange> reads;
      try {
        reads = plan_selection_arcs(e, buffers_[static_cast<size_t>(e.buffer)]);
      } catch (const Error& failure) {
        e.error = failure.what();
      }
      if (e.error.empty() &&
          !reads.empty()) {  // none: its entries have no arcs here, nothing to read
        lock.lock();
        try {
          start_reads(e, k, std::move(reads));
          continue;
        } catch (const Error& failure) {
          e.error = failure.what();
        }
        lock.unlock();
      }
    }
    if (e.error.empty()) settle(e);
    lock.lock();
    counters_.request_seconds += now_seconds() - e.started;
    --in_flight_;
    finish(e, k);
  }
}

// Marks entry k arrived (ready or failed) and wakes the workers; holds mutex_.
void CopyingStore::finish(Entry& e, uint64_t k) {
  if (e.error.empty()) {
    protect(e.buffer, PROT_READ);  // the engine only reads a block
  }
  if (e.partial && e.error.empty()) counters_.partial_bytes += e.moved;
  e.arrival.store(arrivals_++, std::memory_order_relaxed);
  arrival_log_.push_back(k);
  e.state.store(e.error.empty() ? kReady : kFailed, std::memory_order_release);
  arrived_.notify_all();
  io_wake_.notify_all();
}

// The transfer failed as a whole (not one request): every request still out is failed with it.
void CopyingStore::fail_everything(const std::string& why) {
  for (uint64_t k = 0; k < next_; ++k) {
    Entry& e = entries_[k];
    if (e.state.load(std::memory_order_relaxed) != kWaiting) continue;
    e.error = why;
    --in_flight_;
    finish(e, k);
  }
  unclaimed_ = 0;
}

// Starts request k with `reads` (entry e's first step, or its second); holds mutex_.
void CopyingStore::start_reads(Entry& e, uint64_t k, std::vector<ReadRange> reads) {
  uint64_t bytes = 0;
  for (const ReadRange& r : reads) bytes += r.bytes;
  transfer_->start(k, std::move(reads));
  e.moved += bytes;
  counters_.bytes += bytes;
  ++counters_.requests;
  ++unclaimed_;
}

// Checks what arrived for entry e and points its decoder at it; sets e.error when it is bad.
void CopyingStore::settle(Entry& e) {
  const BlockId& b = e.planned.block;
  const auto& entry = file_->entry(b.grid, b.major, b.minor);
  const auto ranges = file_->ranges();
  try {
    if (e.partial) {
      const SelectionWidths w = selection_widths_of(b);
      const uint64_t entries = selected_entries(e.planned.selection);
      e.error = gather_selection(e.arcs, entries, e.groups, e.at_first, e.at_second, w,
                                 buffers_[static_cast<size_t>(e.buffer)], ranges[b.major],
                                 ranges[b.minor], ranges[b.minor + 1] - ranges[b.minor], e.decoder);
      if (!e.error.empty())
        e.error = fmt::format("a selection of {} entries: {}", entries, e.error);
      // The bookkeeping is done with (it counts against the pool only while in flight).
      std::vector<RunGroup>().swap(e.groups);
      std::vector<const unsigned char*>().swap(e.at_first);
      std::vector<const unsigned char*>().swap(e.at_second);
      std::vector<EntryRun>().swap(e.arcs);
      return;
    }
    if (e.planned.piece == PlannedBlock::kWhole) {
      e.error =
          validate_block(e.data, e.bytes, entry, file_->shape(b.major, b.minor), ranges[b.major],
                         ranges[b.minor], options_.check_hashes, options_.with_weights);
      if (e.error.empty())
        e.decoder = BlockDecoder::at(e.data, entry, ranges[b.major], ranges[b.minor]);
      return;
    }
    const auto all = pieces(b);
    const BlockPiece& piece = all[e.planned.piece];
    e.error = settle_piece(e.parts, entry, file_->shape(b.major, b.minor), piece, ranges[b.major],
                           ranges[b.minor], e.decoder);
    if (!e.error.empty()) {
      e.error = fmt::format("piece {} of {} (arcs {} to {}): {}", e.planned.piece + 1, all.size(),
                            piece.arc_first, piece.arc_last, e.error);
    }
  } catch (const Error& error) {
    e.error = error.what();
  }
}

uint64_t CopyingStore::arrival(uint64_t k) const {
  const Entry& e = entries_[k];
  if (e.state.load(std::memory_order_acquire) == kWaiting) return kNotArrived;
  return e.arrival.load(std::memory_order_relaxed);
}

bool CopyingStore::wait_any(std::span<const uint64_t> entries, double timeout) {
  auto any = [&] {
    return std::any_of(entries.begin(), entries.end(), [&](uint64_t k) {
      return entries_[k].state.load(std::memory_order_acquire) != kWaiting;
    });
  };
  if (any()) return true;
  const double start = now_seconds();
  std::unique_lock lock(mutex_);
  auto done = [&] { return cancelled_ || any(); };
  if (timeout == kForever)
    arrived_.wait(lock, done);
  else
    arrived_.wait_for(lock, std::chrono::duration<double>(timeout), done);
  counters_.wait_seconds += now_seconds() - start;
  if (any()) return true;
  if (cancelled_) fail("the pass was cancelled (another task failed) before its block arrived");
  return false;
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
  // Named as the file holds it, as an open that checks every block names it.
  fail("'{}': {}, fetched by the {} store: {}", file_->path(),
       file_->block_name(b.grid, b.major, b.minor), name(), e.error);
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
    uint8_t& counted = counted_[group_[k]];
    counters_.blocks += (counted & 1) == 0;
    counters_.partial_blocks += e.partial && (counted & 2) == 0;
    counted |= 1 | (e.partial ? 2 : 0);
    counters_.pieces += e.planned.piece != PlannedBlock::kWhole;
    ++counters_.leases;
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
  arrived_.wait(lock, [&] { return in_flight_ == 0; });  // requests under way finish first
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
