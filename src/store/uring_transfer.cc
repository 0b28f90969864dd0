#include "store/uring_transfer.h"

#include <fcntl.h>
#if TG_HAVE_URING
#include <liburing.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace tg {
#if TG_HAVE_URING
namespace {

constexpr uint64_t kPartBits =
    8;  // a completion's user data: request id << 8 | range (kMaxRanges fit)
static_assert((uint64_t{1} << kPartBits) >= UringTransfer::kMaxRanges);

}  // namespace

struct UringTransfer::Ring {
  io_uring ring{};
};

bool UringTransfer::built() { return true; }

UringTransfer::UringTransfer(const std::string& path, unsigned queue_depth)
    : path_(path), ring_(std::make_unique<Ring>()) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  if (fd_ < 0) {
    const int e = errno;
    fail("'{}': cannot open with O_DIRECT for the file tier: {}{}", path, std::strerror(e),
         e == EINVAL ? " (the file system does not support direct I/O; tmpfs does not)" : "");
  }
  // CLAMP: a deep pipeline of wide requests may ask for more entries than a ring may have (32 K);
  // it gets the most there are (the submission side hands a full queue to the kernel and goes on).
  if (const int r = io_uring_queue_init(std::max(queue_depth, 4 * kMaxRanges), &ring_->ring,
                                        IORING_SETUP_CLAMP);
      r < 0) {
    ::close(fd_);
    fail("file tier: io_uring cannot start: {}", std::strerror(-r));
  }
}

UringTransfer::~UringTransfer() {
  io_uring_queue_exit(&ring_->ring);
  ::close(fd_);
}

void UringTransfer::submit_read(uint64_t id, size_t part, const ReadRange& r, uint64_t from) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_->ring);
  if (sqe == nullptr) {  // the submission queue is full: hand it to the kernel and take a new one
    io_uring_submit(&ring_->ring);
    sqe = io_uring_get_sqe(&ring_->ring);
    if (sqe == nullptr) fail("file tier: the io_uring submission queue stays full");
  }
  io_uring_prep_read(sqe, fd_, r.into + from, static_cast<unsigned>(r.bytes - from),
                     r.offset + from);
  io_uring_sqe_set_data64(sqe, id << kPartBits | part);
}

void UringTransfer::start(uint64_t id, std::vector<ReadRange> ranges) {
  std::lock_guard lock(mutex_);
  // An empty request would never complete (nothing reaches the ring to complete it).
  if (ranges.empty() || ranges.size() > kMaxRanges)
    fail("internal: a request of {} ranges", ranges.size());
  Pending& p = pending_[id];
  p.ranges = std::move(ranges);
  p.done.assign(p.ranges.size(), 0);
  p.left = p.ranges.size();
  p.error.clear();
  for (size_t k = 0; k < p.ranges.size(); ++k) {
    if (p.ranges[k].bytes >= (uint64_t{1} << 31))
      fail("file tier: a read of {} bytes is too large", p.ranges[k].bytes);
    submit_read(id, k, p.ranges[k], 0);
  }
  if (const int r = io_uring_submit(&ring_->ring); r < 0)
    fail("file tier: io_uring submission failed: {}", std::strerror(-r));
}

uint64_t UringTransfer::complete(std::string& error) {
  std::lock_guard reap(reap_mutex_);
  for (;;) {
    io_uring_cqe* cqe = nullptr;
    const int w = io_uring_wait_cqe(&ring_->ring, &cqe);
    if (w == -EINTR) continue;
    if (w < 0) fail("file tier: waiting for io_uring failed: {}", std::strerror(-w));
    const uint64_t data = io_uring_cqe_get_data64(cqe);
    const int res = cqe->res;
    io_uring_cqe_seen(&ring_->ring, cqe);
    const uint64_t id = data >> kPartBits;
    const size_t part = data & ((uint64_t{1} << kPartBits) - 1);
    std::lock_guard lock(mutex_);
    Pending& p = pending_.at(id);
    const ReadRange& r = p.ranges[part];
    bool finished = true;
    if (res < 0) {
      p.error = std::strerror(-res);
    } else {
      p.done[part] += static_cast<uint64_t>(res);
      if (p.done[part] < r.needed) {
        // A short read: the rest again if it is still aligned, else the file ended early.
        if (res > 0 && p.done[part] % kAlignment == 0) {
          submit_read(id, part, r, p.done[part]);
          io_uring_submit(&ring_->ring);
          finished = false;
        } else {
          p.error = "the file ends inside it";
        }
      }
    }
    if (finished && --p.left == 0) {
      error = std::move(p.error);
      pending_.erase(id);
      return id;
    }
  }
}

#else  // built without liburing: the file tier is refused where it would start

struct UringTransfer::Ring {};

bool UringTransfer::built() { return false; }

UringTransfer::UringTransfer(const std::string& path, unsigned) : path_(path) {
  fail(
      "'{}': the file tier reads with O_DIRECT through io_uring, and this build of tiergraph has "
      "no io_uring (liburing was not found when it was built: install liburing-dev, as "
      "scripts/setup.sh does, and build again)",
      path);
}
UringTransfer::~UringTransfer() = default;
void UringTransfer::submit_read(uint64_t, size_t, const ReadRange&, uint64_t) {}
void UringTransfer::start(uint64_t, std::vector<ReadRange>) {}
uint64_t UringTransfer::complete(std::string&) { return 0; }

#endif
}  // namespace tg
