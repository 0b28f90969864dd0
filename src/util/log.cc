#include "util/log.h"

#include <atomic>

namespace tg::log {
namespace {
std::atomic<Level> g_level{Level::kInfo};
}
Level level() { return g_level.load(std::memory_order_relaxed); }
void set_level(Level new_level) { g_level.store(new_level, std::memory_order_relaxed); }
}  // namespace tg::log
