// Sizes as users write them: "4096", "64K", "512M", "2G", "1.5G", "1T" (powers of 1024; a
// trailing "B" or "iB" is allowed: "64KiB", "2GB"). Used by the store's buffer size and by
// memory budgets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tg {

// The size in bytes, or nothing when the text is not a size (or overflows 64 bits).
std::optional<uint64_t> parse_byte_size(std::string_view text);

// "512 MiB", "1.5 GiB", "4096 bytes": a size as messages print it.
std::string format_byte_size(uint64_t bytes);

}  // namespace tg
