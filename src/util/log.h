// The one logger: diagnostics go to stderr, never stdout (stdout carries results only).
#pragma once

#include <fmt/format.h>

#include <cstdio>

namespace tg::log {

enum class Level { kQuiet = 0, kInfo = 1, kDebug = 2 };

Level level();
void set_level(Level level);

template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
  if (level() >= Level::kInfo)
    fmt::print(stderr, "{}\n", fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) {
  if (level() >= Level::kDebug)
    fmt::print(stderr, "{}\n", fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace tg::log
