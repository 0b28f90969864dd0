#include "util/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace tg {

Progress::Progress(std::string label, uint64_t total, bool enabled)
    : label_(std::move(label)), total_(total), enabled_(enabled && isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done) {
  if (!enabled_) return;
  const double now = timer_.seconds();
  if (drawn_ && now - last_draw_ < 0.1) return;
  last_draw_ = now;
  drawn_ = true;
  const double fraction =
      total_ ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total_)) : 0.0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(fraction * kWidth);
  fmt::print(stderr, "\r{:<10} [{}{}] {:5.1f}%  {:.1f}s", label_, std::string(filled, '#'),
             std::string(kWidth - filled, ' '), 100 * fraction, now);
  std::fflush(stderr);
}

void Progress::status(const std::string& text, double after) {
  if (!enabled_) return;
  const double now = timer_.seconds();
  if (now < after || (drawn_ && now - last_draw_ < 0.1)) return;
  last_draw_ = now;
  drawn_ = true;
  const std::string line = fmt::format("{} {}  {:.1f}s", label_, text, now);
  width_ = std::max(width_, line.size());
  fmt::print(stderr, "\r{:<{}}", line, width_);
  std::fflush(stderr);
}

void Progress::finish() {
  if (enabled_ && drawn_) {
    fmt::print(stderr, "\r{}\r", std::string(std::max(label_.size() + 60, width_), ' '));
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace tg
