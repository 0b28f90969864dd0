// How messages name the options a user gave. The same checks serve `tiergraph run` and the
// Python package, whose user never typed "--memory-budget" and cannot "pass --overwrite": a
// message is written once with the helpers below, and reads "give --memory-budget 6M" on the
// command line and "give memory_budget='6M'" from Python. The front is set once, at start (the
// Python module sets it on import); the command line is the default.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace tg {

enum class Front { kCommandLine, kPython };

inline Front& front_setting() {
  static Front front = Front::kCommandLine;
  return front;
}
inline void set_front(Front f) { front_setting() = f; }
inline Front front() { return front_setting(); }

// An option by its long flag without dashes ("memory-budget"): "--memory-budget", or from
// Python the keyword "memory_budget" (every keyword is its flag with '_' for '-').
inline std::string option_name(std::string_view flag) {
  std::string s(flag);
  if (front() == Front::kCommandLine) return "--" + s;
  for (char& c : s) c = c == '-' ? '_' : c;
  return s;
}

// An option with a value, as the user would write it: "--far numa" / "far='numa'" (text),
// "--samples 8" / "samples=8" (a number: pass `quote` false).
inline std::string option_with(std::string_view flag, std::string_view value, bool quote = true) {
  if (front() == Front::kCommandLine) return fmt::format("--{} {}", flag, value);
  return quote ? fmt::format("{}='{}'", option_name(flag), value)
               : fmt::format("{}={}", option_name(flag), value);
}

// A flag switched on: "--unit-weights" / "unit_weights=True".
inline std::string option_on(std::string_view flag) {
  return front() == Front::kCommandLine ? "--" + std::string(flag) : option_name(flag) + "=True";
}

}  // namespace tg
