// A progress bar on stderr for long phases. Draws only when stderr is a terminal, so logs and
// pipelines stay clean; at most ~10 redraws per second.
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
  void finish();

 private:
  std::string label_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  double last_draw_ = -1;
  Timer timer_;
};

}  // namespace tg
