// Checks of numeric options, with messages a user can act on (CLI11's own ranges print the
// limits of a double in full).
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "util/byte_size.h"

namespace tg::cli {

// A finite number above 0 (delta, tolerance): rejects 0, negatives, nan and inf.
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(x) || !(x > 0)) {
          return "must be a finite number above 0, got '" + text + "'";
        }
        return {};
      },
      "NUMBER > 0");
}

// A finite number, 0 or more (a weight such as --partition-alpha): CLI11's NonNegativeNumber
// printed its bound, the largest double, in 309 digits.
inline CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(x) || !(x >= 0)) {
          return "must be a finite number, 0 or more, got '" + text + "'";
        }
        return {};
      },
      "NUMBER >= 0");
}

// A whole number in [lo, hi] (a count such as --blocks): digits only, so "-3" is named as out of
// range here rather than reaching CLI11's conversion ("Could not convert").
inline CLI::Validator whole_number(uint64_t lo, uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return "must be a whole number from " + range + ", got '" + text + "'";
        }
        // More digits than any bound here has: out of range without overflowing strtoull.
        const uint64_t x =
            text.size() > 19 ? ~uint64_t{0} : std::strtoull(text.c_str(), nullptr, 10);
        if (x < lo || x > hi) return "must be from " + range + ", got " + text;
        return {};
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

// A vertex id: digits only (a minus sign would otherwise wrap around to a huge id).
inline CLI::Validator vertex_id() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return "must be a vertex id (a whole number, 0 or more), got '" + text + "'";
        }
        return {};
      },
      "ID >= 0");
}

// A size in bytes above 0, with an optional K/M/G/T suffix (powers of 1024): 4096, 64K, 512M, 2G.
inline CLI::Validator byte_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto bytes = parse_byte_size(text);
        if (!bytes || *bytes == 0)
          return "must be a size above 0 such as 4096, 64K, 512M or 2G, got '" + text + "'";
        return {};
      },
      "SIZE");
}

}  // namespace tg::cli
