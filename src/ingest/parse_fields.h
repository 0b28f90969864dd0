// Field-level helpers shared by the text formats: splitting a line into fields and reading ids
// and weights with messages that say what was expected.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tg::parse {

// Splits fields on any run of spaces and tabs (delimiter 0) or on one delimiter character.
class FieldCursor {
 public:
  FieldCursor(std::string_view line, char delimiter)
      : p_(line.data()), end_(line.data() + line.size()), delim_(delimiter) {}
  // Returns false when no field is left. With a delimiter, an empty field is still a field.
  bool next(std::string_view& field) {
    if (delim_ == 0) {
      while (p_ < end_ && (*p_ == ' ' || *p_ == '\t')) ++p_;
      if (p_ == end_) return false;
      const char* start = p_;
      while (p_ < end_ && *p_ != ' ' && *p_ != '\t') ++p_;
      field = {start, static_cast<size_t>(p_ - start)};
      return true;
    }
    if (p_ > end_) return false;
    const char* start = p_;
    while (p_ < end_ && *p_ != delim_) ++p_;
    field = trim({start, static_cast<size_t>(p_ - start)});
    ++p_;  // past the delimiter (or one past the end: no field is left)
    return true;
  }

 private:
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }
  const char* p_;
  const char* end_;
  char delim_;
};

// A line of nothing but spaces and tabs.
inline bool is_blank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t') return false;
  return true;
}

inline std::string quoted(std::string_view s) {
  if (s.size() > 40) return fmt::format("'{}...'", s.substr(0, 40));
  return fmt::format("'{}'", s);
}

// Reads a vertex id; on failure returns a message saying what was wrong.
inline bool parse_id(std::string_view field, uint64_t& out, std::string& error) {
  if (field.empty()) {
    error = "expected a vertex id, found an empty field";
    return false;
  }
  const char* b = field.data();
  if (*b == '+') ++b;
  const auto [ptr, ec] = std::from_chars(b, field.data() + field.size(), out);
  if (ec == std::errc::result_out_of_range) {
    error = fmt::format("vertex id {} does not fit in 64 bits", quoted(field));
    return false;
  }
  if (ec != std::errc() || ptr != field.data() + field.size()) {
    if (field.front() == '-') {
      error = fmt::format("vertex id {} is negative; ids are non-negative integers", quoted(field));
    } else {
      error = fmt::format("expected a vertex id (a non-negative integer), found {}", quoted(field));
    }
    return false;
  }
  return true;
}

inline bool parse_weight(std::string_view field, double& out, std::string& error) {
  const char* b = field.data();
  const char* end = field.data() + field.size();
  // from_chars takes no '+', so skip one; but not before a '-' ("+-3" is no number).
  if (!field.empty() && *b == '+' && (field.size() == 1 || b[1] != '-')) ++b;
  const auto [ptr, ec] = std::from_chars(b, end, out);
  if (field.empty() || ec == std::errc::invalid_argument || ptr != end) {
    error = fmt::format("expected a weight (a number), found {}",
                        field.empty() ? "an empty field" : quoted(field));
    return false;
  }
  if (ec == std::errc::result_out_of_range) {
    // Too large, or so close to 0 that it would round to 0; from_chars does not say which, strtod
    // does (the program keeps the "C" locale, so strtod reads numbers as from_chars does).
    const bool huge = std::isinf(std::strtod(std::string(field).c_str(), nullptr));
    error = huge ? fmt::format("weight {} is not a finite number", quoted(field))
                 : fmt::format("weight {} is too close to 0 for a double (it would round to 0)",
                               quoted(field));
    return false;
  }
  if (!std::isfinite(out)) {
    error = fmt::format("weight {} is not a finite number", quoted(field));
    return false;
  }
  return true;
}

inline bool parse_count(std::string_view field, uint64_t& out) {
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  return ec == std::errc() && ptr == field.data() + field.size();
}

}  // namespace tg::parse
