// Which way an edge pass moves messages: push (from active sources along out-edges, atomically
// combined at the targets) or pull (each target reduces its in-edges from the frontier); auto
// lets the engine choose per pass.
#pragma once

namespace tg {

enum class Direction { kAuto, kPush, kPull };

inline const char* direction_name(Direction d) {
  return d == Direction::kPush ? "push" : d == Direction::kPull ? "pull" : "auto";
}

}  // namespace tg
