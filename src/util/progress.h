// A progress bar on stderr for long phases, or a status line where the total is unknown (the
// passes of an algorithm). Draws only when stderr is a terminal, so logs and pipelines stay
// clean; at most ~10 redraws per second.
#pragma once

#include <cstdint>
#include <string>

#include "util/timer.h"

namespace tg {

class Progress {
 public:
  Progress(std::string label, uint64_t total, bool enabled);
  ~Progress();
  void update(uint64_t done);
  // Whether anything is drawn at all (stderr a terminal, and asked for).
  bool shown() const { return enabled_; }
  // A line of text instead of a bar, once the phase has run `after` seconds (a short run shows
  // nothing).
  void status(const std::string& text, double after = 1.0);
  void finish();

 private:
  std::string label_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  size_t width_ = 0;  // the widest status line drawn, blanked when the next is shorter
  double last_draw_ = -1;
  Timer timer_;
};

}  // namespace tg
