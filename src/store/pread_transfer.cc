#include "store/pread_transfer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "util/error.h"

namespace tg {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

PreadTransfer::PreadTransfer(const std::string& path, double delay_seconds, Completion completion,
                             uint64_t seed)
    : path_(path), delay_(delay_seconds), completion_(completion), rng_(seed) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail("'{}': cannot open for the copying store: {}", path, std::strerror(errno));
}

PreadTransfer::~PreadTransfer() { ::close(fd_); }

void PreadTransfer::start(uint64_t id, std::vector<ReadRange> ranges) {
  std::lock_guard lock(mutex_);
  started_.push_back({id, now_seconds(), std::move(ranges)});
}

uint64_t PreadTransfer::complete(std::string& error) {
  Request r;
  {
    std::lock_guard lock(mutex_);
    if (started_.empty()) fail("internal: a transfer completion was awaited with nothing started");
    size_t pick = 0;
    if (completion_ == Completion::kReverse) pick = started_.size() - 1;
    if (completion_ == Completion::kShuffled) pick = rng_() % started_.size();
    r = std::move(started_[pick]);
    started_.erase(started_.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  if (const double left = r.started + delay_ - now_seconds(); left > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(left));
  }
  error.clear();
  for (const ReadRange& range : r.ranges) {
    uint64_t done = 0;
    while (done < range.needed) {
      const ssize_t got = ::pread(fd_, range.into + done, range.bytes - done,
                                  static_cast<off_t>(range.offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        error = got < 0 ? std::strerror(errno) : "the file ends inside it";
        return r.id;
      }
      done += static_cast<uint64_t>(got);
    }
  }
  return r.id;
}

}  // namespace tg
