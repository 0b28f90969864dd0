#include "store/rank_transfer.h"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "dist/communicators.h"
#include "dist/mpi_runtime.h"
#include "util/error.h"
#include "util/memory.h"

namespace tg {

namespace {

constexpr int kServer = 1, kOrigin = 0;
constexpr int kDoneTag = 7401, kLoadedTag = 7402, kFileTag = 7403;
constexpr uint64_t kAlign = 64;

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) fail("far-memory rank: {} failed: {}", what, mpi::error_text(code));
}

// This process's rank in its pair (kOrigin computes, kServer serves), and the pair's size.
int pair_rank() {
  int r = -1;
  MPI_Comm_rank(mpi::far_pair(), &r);
  return r;
}
int pair_size() {
  int s = 0;
  MPI_Comm_size(mpi::far_pair(), &s);
  return s;
}
// A rank of this pair (kOrigin or kServer) as a rank of the whole job.
int in_world(int rank_in_pair) {
  MPI_Group pair, world;
  MPI_Comm_group(mpi::far_pair(), &pair);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int translated = MPI_UNDEFINED;
  MPI_Group_translate_ranks(pair, 1, &rank_in_pair, world, &translated);
  MPI_Group_free(&pair);
  MPI_Group_free(&world);
  return translated;
}
// The far window spans the whole job (each far rank exposes its blocks, every other process
// nothing), not a pair: Open MPI 4.1's default one-sided component names a window's shared
// segment after its communicator's context id, which the pairs split from one call share, so
// pairs' windows on one machine collided (a bus error). This is the serving rank's place in it.
int server_in_window() { return in_world(kServer); }

// The slots, as the computing rank decided them, on both ranks of the pair.
std::vector<unsigned char> share_slots(const GraphFile& file, std::vector<unsigned char> slots) {
  const uint64_t p = file.blocks_per_side();
  uint64_t count = (file.directed() ? 2 : 1) * p * p;
  if (pair_rank() == kOrigin && slots.size() != count) fail("internal: {} far slots for {} blocks", slots.size(), count);
  slots.resize(count);
  check(MPI_Bcast(slots.data(), static_cast<int>(count), MPI_UNSIGNED_CHAR, kOrigin, mpi::far_pair()), "MPI_Bcast");
  return slots;
}

}  // namespace

void check_far_rank_file(const GraphFile& file) {
  // Each side sends what identifies its file: size, header checksum, and the path (for the message).
  const uint64_t mine[2] = {file.file_bytes(), file.header().header_checksum};
  uint64_t theirs[2] = {0, 0};
  const int peer = pair_rank() == kOrigin ? kServer : kOrigin;
  check(MPI_Sendrecv(mine, 2, MPI_UINT64_T, peer, kFileTag, theirs, 2, MPI_UINT64_T, peer, kFileTag, mpi::far_pair(),
                     MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  const std::string& path = file.path();
  const uint64_t length = path.size();
  uint64_t their_length = 0;
  check(MPI_Sendrecv(&length, 1, MPI_UINT64_T, peer, kFileTag, &their_length, 1, MPI_UINT64_T, peer, kFileTag,
                     mpi::far_pair(), MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  std::string their_path(their_length, '\0');
  check(MPI_Sendrecv(path.data(), static_cast<int>(length), MPI_CHAR, peer, kFileTag, their_path.data(),
                     static_cast<int>(their_length), MPI_CHAR, peer, kFileTag, mpi::far_pair(), MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  if (mine[0] == theirs[0] && mine[1] == theirs[1]) return;
  // Both ranks of the pair give the same message, told once (mpi::agree), from the computing
  // rank's side.
  const bool serving = pair_rank() == kServer;
  const auto describe = [](const std::string& p, const uint64_t* id) {
    return fmt::format("'{}' ({} bytes, header checksum {:016x})", p, id[0], id[1]);
  };
  fail("the far-memory rank (world rank {}) opened {} where its computing rank (world rank {}) opened {}: a far rank "
       "must read the very graph file its computing rank reads (the same path on a shared file system, or an identical "
       "copy)",
       in_world(kServer), serving ? describe(path, mine) : describe(their_path, theirs), in_world(kOrigin),
       serving ? describe(their_path, theirs) : describe(path, mine));
}

FarLayout far_layout(const GraphFile& file, const std::vector<unsigned char>& far_slots) {
  FarLayout layout;
  const uint32_t p = file.blocks_per_side();
  uint64_t slot = 0;
  for (Grid g : {Grid::kOut, Grid::kIn}) {
    if (g == Grid::kIn && !file.directed()) break;
    for (uint32_t i = 0; i < p; ++i)
      for (uint32_t j = 0; j < p; ++j, ++slot) {
        if (!far_slots[slot]) continue;
        const auto& e = file.entry(g, i, j);
        const uint64_t bytes = format::part_positions(e.part_bytes).end;
        if (bytes == 0) continue;
        layout.extents.push_back({e.offset, layout.bytes, bytes});
        layout.bytes = format::align_up(layout.bytes + bytes, kAlign);
      }
  }
  std::sort(layout.extents.begin(), layout.extents.end(),
            [](const auto& a, const auto& b) { return a.file_offset < b.file_offset; });
  return layout;
}

void serve_far_blocks(const GraphFile& file) {
  const auto slots = share_slots(file, {});
  const FarLayout layout = far_layout(file, slots);
  unsigned char* memory = nullptr;
  MPI_Win win;
  check(MPI_Win_allocate(static_cast<MPI_Aint>(std::max<uint64_t>(layout.bytes, 1)), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                         &memory, &win),
        "MPI_Win_allocate");
  // Read the far blocks into the window; a failure is reported and ends the job.
  std::string problem;
  const int fd = ::open(file.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) problem = fmt::format("far-memory rank: cannot open '{}': {}", file.path(), std::strerror(errno));
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t k = 0; k < layout.extents.size(); ++k) {
    if (fd < 0) continue;
    const auto& x = layout.extents[k];
    uint64_t done = 0;
    while (done < x.bytes) {
      const ssize_t got = ::pread(fd, memory + x.window_offset + done, x.bytes - done, static_cast<off_t>(x.file_offset + done));
      if (got <= 0) {
#pragma omp critical(tg_far_rank)
        problem = fmt::format("far-memory rank: reading '{}' at offset {} failed: {}", file.path(), x.file_offset + done,
                              got < 0 ? std::strerror(errno) : "the file ends there");
        break;
      }
      done += static_cast<uint64_t>(got);
    }
  }
  if (fd >= 0) ::close(fd);
  if (!problem.empty()) fail("{}", problem);
  // The blocks are in place: say so, with what holding them cost (the far tier's memory, which
  // the computing rank reports; this rank prints nothing).
  uint64_t peak = peak_rss_bytes();
  check(MPI_Send(&peak, 1, MPI_UINT64_T, kOrigin, kLoadedTag, mpi::far_pair()), "MPI_Send");
  mpi::wait_for_message(kOrigin, kDoneTag);  // serve until rank 0 is done
  check(MPI_Win_free(&win), "MPI_Win_free");
}

struct RankTransfer::Impl {
  MPI_Win win;
  std::mutex mutex;
  struct Started {
    uint64_t id;
    std::vector<MPI_Request> requests;
    std::string error;
  };
  std::deque<Started> started;
  std::mutex complete_mutex;
};

RankTransfer::RankTransfer(const GraphFile& file, const std::vector<unsigned char>& far_slots, uint64_t chunk_bytes)
    : impl_(std::make_unique<Impl>()), chunk_bytes_(std::clamp<uint64_t>(chunk_bytes, 4096, INT_MAX)), path_(file.path()) {
  if (pair_size() != 2 || pair_rank() != kOrigin) fail("internal: the rank tier runs as rank 0 of a pair of ranks");
  const auto slots = share_slots(file, far_slots);
  layout_ = far_layout(file, slots);
  unsigned char* none = nullptr;
  check(MPI_Win_allocate(0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &none, &impl_->win), "MPI_Win_allocate");
  server_ = server_in_window();
  // Rank 1 holds the blocks once it says so.
  check(MPI_Recv(&server_peak_rss_, 1, MPI_UINT64_T, kServer, kLoadedTag, mpi::far_pair(), MPI_STATUS_IGNORE), "MPI_Recv");
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, impl_->win), "MPI_Win_lock_all");
}

RankTransfer::~RankTransfer() {
  MPI_Win_unlock_all(impl_->win);
  int message = 1;
  MPI_Send(&message, 1, MPI_INT, kServer, kDoneTag, mpi::far_pair());
  MPI_Win_free(&impl_->win);
}

void RankTransfer::start(uint64_t id, std::vector<ReadRange> ranges) {
  Impl::Started s{id, {}, {}};
  for (const ReadRange& r : ranges) {
    // The far extent holding the range (the store reads inside one block).
    auto it = std::upper_bound(layout_.extents.begin(), layout_.extents.end(), r.offset,
                               [](uint64_t offset, const FarLayout::Extent& x) { return offset < x.file_offset; });
    if (it == layout_.extents.begin() || r.offset + r.needed > std::prev(it)->file_offset + std::prev(it)->bytes) {
      s.error = fmt::format("bytes {} to {} of '{}' are not held by the far-memory rank", r.offset, r.offset + r.needed, path_);
      break;
    }
    const auto& x = *std::prev(it);
    const uint64_t bytes = std::min(r.bytes, x.file_offset + x.bytes - r.offset);
    for (uint64_t at = 0; at < bytes; at += chunk_bytes_) {
      const int count = static_cast<int>(std::min(chunk_bytes_, bytes - at));
      const auto disp = static_cast<MPI_Aint>(x.window_offset + (r.offset - x.file_offset) + at);
      MPI_Request request;
      const int code = MPI_Rget(r.into + at, count, MPI_BYTE, server_, disp, count, MPI_BYTE, impl_->win, &request);
      if (code != MPI_SUCCESS) {
        s.error = fmt::format("MPI_Rget of {} bytes failed: {}", count, mpi::error_text(code));
        break;
      }
      s.requests.push_back(request);
    }
  }
  std::lock_guard lock(impl_->mutex);
  impl_->started.push_back(std::move(s));
}

uint64_t RankTransfer::complete(std::string& error) {
  // Requests complete in the order they started: one completer at a time takes the oldest.
  std::lock_guard reap(impl_->complete_mutex);
  Impl::Started s;
  for (;;) {
    {
      std::lock_guard lock(impl_->mutex);
      if (!impl_->started.empty()) {
        s = std::move(impl_->started.front());
        impl_->started.pop_front();
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));  // the store starts before it completes
  }
  if (!s.requests.empty()) {
    const int code = MPI_Waitall(static_cast<int>(s.requests.size()), s.requests.data(), MPI_STATUSES_IGNORE);
    if (code != MPI_SUCCESS && s.error.empty()) s.error = fmt::format("one-sided read failed: {}", mpi::error_text(code));
  }
  error = std::move(s.error);
  return s.id;
}

}  // namespace tg
