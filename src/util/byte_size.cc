#include "util/byte_size.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace tg {

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  if (digits == 0) return std::nullopt;
  const std::string number(text.substr(0, digits));
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value)) return std::nullopt;
  std::string unit(text.substr(digits));
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.ends_with("IB"))
    unit.resize(unit.size() - 2);
  else if (unit.ends_with("B"))
    unit.resize(unit.size() - 1);
  double scale = 1;
  if (unit == "K")
    scale = 0x1p10;
  else if (unit == "M")
    scale = 0x1p20;
  else if (unit == "G")
    scale = 0x1p30;
  else if (unit == "T")
    scale = 0x1p40;
  else if (!unit.empty())
    return std::nullopt;
  const double bytes = std::ceil(value * scale);
  if (!(bytes < 0x1p64)) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

std::string format_byte_size(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double x = static_cast<double>(bytes);
  int unit = -1;
  while (x >= 1024 && unit < 3) x /= 1024, ++unit;
  return x == std::floor(x) ? fmt::format("{:.0f} {}", x, kUnits[unit])
                            : fmt::format("{:.1f} {}", x, kUnits[unit]);
}

}  // namespace tg
