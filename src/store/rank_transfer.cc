#include "store/rank_transfer.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>

#include "mpi/communicators.h"
#include "mpi/mpi_runtime.h"
#include "store/far_rank_pair.h"
#include "util/error.h"

namespace tg {

using namespace far_rank;

struct RankTransfer::Impl {
  Window window;
  std::mutex mutex;
  struct Started {
    uint64_t id;
    std::vector<MPI_Request> requests;
    std::string error;
  };
  std::deque<Started> started;
  std::mutex complete_mutex;
};

RankTransfer::RankTransfer(const GraphFile& file, const std::vector<unsigned char>& far_slots,
                           uint64_t chunk_bytes)
    : impl_(std::make_unique<Impl>()),
      chunk_bytes_(std::clamp<uint64_t>(chunk_bytes, 4096, INT_MAX)),
      path_(file.path()) {
  if (pair_size() != 2 || pair_rank() != kOrigin)
    fail("internal: the rank tier runs as rank 0 of a pair of ranks");
  const auto slots = share_slots(file, far_slots);
  layout_ = far_layout(file, slots);
  impl_->window = open_window(0, /*in_place=*/false);
  // Rank 1 holds the blocks once it says so.
  check(MPI_Recv(&server_peak_rss_, 1, MPI_UINT64_T, kServer, kLoadedTag, mpi::far_pair(),
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
}

RankTransfer::~RankTransfer() {
  int message = 1;
  MPI_Send(&message, 1, MPI_INT, kServer, kDoneTag, mpi::far_pair());
  close_window(impl_->window);
}

void RankTransfer::start(uint64_t id, std::vector<ReadRange> ranges) {
  Impl::Started s{id, {}, {}};
  for (const ReadRange& r : ranges) {
    // The far extent holding the range (the store reads inside one block).
    auto it = std::upper_bound(
        layout_.extents.begin(), layout_.extents.end(), r.offset,
        [](uint64_t offset, const FarLayout::Extent& x) { return offset < x.file_offset; });
    if (it == layout_.extents.begin() ||
        r.offset + r.needed > std::prev(it)->file_offset + std::prev(it)->bytes) {
      s.error = fmt::format("bytes {} to {} of '{}' are not held by the far-memory rank", r.offset,
                            r.offset + r.needed, path_);
      break;
    }
    const auto& x = *std::prev(it);
    const uint64_t bytes = std::min(r.bytes, x.file_offset + x.bytes - r.offset);
    for (uint64_t at = 0; at < bytes; at += chunk_bytes_) {
      const int count = static_cast<int>(std::min(chunk_bytes_, bytes - at));
      const auto disp = static_cast<MPI_Aint>(x.window_offset + (r.offset - x.file_offset) + at);
      MPI_Request request;
      const int code = MPI_Rget(r.into + at, count, MPI_BYTE, impl_->window.server, disp, count,
                                MPI_BYTE, impl_->window.win, &request);
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
    std::this_thread::sleep_for(
        std::chrono::microseconds(20));  // the store starts before it completes
  }
  if (!s.requests.empty()) {
    const int code =
        MPI_Waitall(static_cast<int>(s.requests.size()), s.requests.data(), MPI_STATUSES_IGNORE);
    if (code != MPI_SUCCESS && s.error.empty())
      s.error = fmt::format("one-sided read failed: {}", mpi::error_text(code));
  }
  error = std::move(s.error);
  return s.id;
}

}  // namespace tg
