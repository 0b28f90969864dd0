// Sizes as users write them (--store-buffer-bytes, memory budgets), and as messages print them.
#include "util/byte_size.h"

#include <gtest/gtest.h>

namespace tg {
namespace {

TEST(ByteSize, ReadsPlainCountsAndBinarySuffixes) {
  EXPECT_EQ(parse_byte_size("4096"), 4096u);
  EXPECT_EQ(parse_byte_size("64K"), 65536u);
  EXPECT_EQ(parse_byte_size("64k"), 65536u);
  EXPECT_EQ(parse_byte_size("64KiB"), 65536u);
  EXPECT_EQ(parse_byte_size("512M"), 512u << 20);
  EXPECT_EQ(parse_byte_size("2G"), uint64_t{2} << 30);
  EXPECT_EQ(parse_byte_size("2GB"), uint64_t{2} << 30);
  EXPECT_EQ(parse_byte_size("1.5G"), uint64_t{3} << 29);
  EXPECT_EQ(parse_byte_size("1T"), uint64_t{1} << 40);
  EXPECT_EQ(parse_byte_size("0.5K"), 512u);
  EXPECT_EQ(parse_byte_size("1.0001K"), 1025u);  // a fraction of a byte rounds up
}

TEST(ByteSize, RefusesWhatIsNotASize) {
  for (const char* bad :
       {"", "K", "-4K", "12Q", "1.5.K", "4 K", "0x10", "1KK", "nan", "inf", "99999999999T"}) {
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
  }
}

TEST(ByteSize, PrintsInTheLargestWholeUnit) {
  EXPECT_EQ(format_byte_size(512), "512 bytes");
  EXPECT_EQ(format_byte_size(1024), "1 KiB");
  EXPECT_EQ(format_byte_size(1536), "1.5 KiB");
  EXPECT_EQ(format_byte_size(uint64_t{3} << 30), "3 GiB");
}

}  // namespace
}  // namespace tg
