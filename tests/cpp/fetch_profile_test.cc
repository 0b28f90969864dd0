// Calibration: the profile's choice follows its rule on known measurements; a profile written is
// read back the same, and a bad one is refused naming the file and the problem; reading a real
// file with O_DIRECT measures something, and impossible trials are refused.
#include "store/fetch_profile.h"

#include <gtest/gtest.h>

#include <fstream>

#include "store/file_calibration.h"
#include "store/uring_transfer.h"
#include "test_graphs.h"
#include "util/error.h"

namespace tg {
namespace {

using testing::temp_path;

// Bandwidth that grows with the chunk until 512 KiB (half of it at 256 KiB) and with depth until 4;
// a two-thread point that is faster than any single reader, which the choice must ignore.
std::vector<FetchPoint> known_points() {
  std::vector<FetchPoint> points;
  for (uint64_t chunk : {uint64_t{4} << 10, uint64_t{64} << 10, uint64_t{256} << 10,
                         uint64_t{1} << 20, uint64_t{4} << 20}) {
    for (uint32_t depth : {1u, 2u, 4u, 8u}) {
      const double by_chunk = std::min<double>(static_cast<double>(chunk), 512 << 10) / (512 << 10);
      const double by_depth = std::min(depth, 4u) / 4.0;
      points.push_back({.chunk_bytes = chunk,
                        .depth = depth,
                        .threads = 1,
                        .bytes_per_second = 1e9 * by_chunk * by_depth});
    }
  }
  points.push_back({.chunk_bytes = 4 << 10, .depth = 1, .threads = 2, .bytes_per_second = 9e9});
  return points;
}

TEST(FetchProfile, ChoosesTheSmallestChunkAndDepthNearTheBest) {
  const FetchProfile p = choose_fetch_profile(known_points());
  EXPECT_EQ(p.chunk_bytes, uint64_t{1} << 20);       // the first within 10% of 1 GB/s
  EXPECT_EQ(p.depth, 4u);                            // the first within 10% of that chunk's best
  EXPECT_EQ(p.smallest_chunk, uint64_t{256} << 10);  // the first at half of it
}

TEST(FetchProfile, WrittenAndReadBack) {
  TierProfile t{"file", "a test", known_points(), choose_fetch_profile(known_points())};
  const std::string path = temp_path("profile.json");
  std::ofstream(path) << profile_to_json({t}).dump(2);
  const FetchProfile back = load_fetch_profile(path, "file");
  EXPECT_EQ(back.source, path);
  EXPECT_EQ(back.chunk_bytes, t.chosen.chunk_bytes);
  EXPECT_EQ(back.depth, t.chosen.depth);
  EXPECT_EQ(back.smallest_chunk, t.chosen.smallest_chunk);
  try {
    load_fetch_profile(path, "rank");
    FAIL() << "a profile without the rank tier was read for it";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no measurements of the rank tier"), std::string::npos)
        << e.what();
  }
}

TEST(FetchProfile, BadProfilesAreRefused) {
  auto refused = [](const std::string& text, const std::string& expect) {
    const std::string path = temp_path("bad-profile.json");
    std::ofstream(path) << text;
    try {
      load_fetch_profile(path, "file");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  };
  refused("{not json", "not JSON");
  refused(R"({"format": "something else"})", "not a fetch profile");
  refused(R"({"format": "tiergraph-fetch-profile", "tiers": {"file": {}}})", "incomplete");
  refused(R"({"format": "tiergraph-fetch-profile", "tiers": {"file": {"chosen": {"chunk_bytes": 100,
           "smallest_chunk_bytes": 4096, "depth": 4}}}})",
          "out of range");
  refused(
      R"({"format": "tiergraph-fetch-profile", "tiers": {"file": {"chosen": {"chunk_bytes": 65536,
           "smallest_chunk_bytes": 4096, "depth": 0}}}})",
      "out of range");
}

// Numbers and places as the user wrote them: -5 is not shown wrapped to 18446744073709551611,
// and a syntax error names its line and column without the JSON library's error code.
TEST(FetchProfile, BadValuesAreShownAsWritten) {
  const std::string path = temp_path("bad-values.json");
  auto message = [&](const std::string& text) {
    std::ofstream(path) << text;
    try {
      load_fetch_profile(path, "file");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "accepted: " << text;
    return std::string();
  };
  const std::string negative =
      message(R"({"format": "tiergraph-fetch-profile", "tiers": {"file": {"chosen":
      {"chunk_bytes": -5, "smallest_chunk_bytes": 4096, "depth": 4}}}})");
  EXPECT_NE(negative.find("chunk_bytes must be a whole number, 0 or more, got -5"),
            std::string::npos)
      << negative;
  EXPECT_EQ(negative.find("18446744073709551611"), std::string::npos) << negative;
  const std::string fraction =
      message(R"({"format": "tiergraph-fetch-profile", "tiers": {"file": {"chosen":
      {"chunk_bytes": 65536, "smallest_chunk_bytes": 4096, "depth": 2.5}}}})");
  EXPECT_NE(fraction.find("depth must be a whole number, 0 or more, got 2.5"), std::string::npos)
      << fraction;
  const std::string syntax =
      message("{\"format\": \"tiergraph-fetch-profile\",\n  \"tiers\": {oops}}");
  EXPECT_NE(syntax.find("'" + path + "': the profile is not JSON: parse error at line 2, column"),
            std::string::npos)
      << syntax;
  EXPECT_EQ(syntax.find("json.exception"), std::string::npos) << syntax;
  const std::string missing =
      message(R"({"format": "tiergraph-fetch-profile", "tiers": {"file": {"chosen": {}}}})");
  EXPECT_NE(missing.find("incomplete"), std::string::npos) << missing;
  EXPECT_EQ(missing.find("json.exception"), std::string::npos) << missing;
}

TEST(FileCalibration, MeasuresReadsOfARealFile) {
  if (!UringTransfer::built()) GTEST_SKIP() << "built without io_uring";
  const std::string path = temp_path("calibrate.bin");
  {
    std::ofstream out(path, std::ios::binary);
    const std::string block(1 << 20, 'x');
    for (int k = 0; k < 8; ++k) out << block;
  }
  const FetchPoint p = measure_file_reads(
      path, 8 << 20, {.chunk_bytes = 64 << 10, .depth = 2, .threads = 2, .seconds = 0.05});
  EXPECT_GT(p.requests, 2u);
  EXPECT_GT(p.bytes_per_second, 0);
  EXPECT_GT(p.latency_seconds, 0);
  EXPECT_EQ(p.threads, 2u);
  EXPECT_THROW(measure_file_reads(path, 8 << 20, {.chunk_bytes = 5000}), Error);  // not whole pages
  EXPECT_THROW(measure_file_reads(path, 8 << 20, {.chunk_bytes = 16 << 20}),
               Error);  // larger than the file
  EXPECT_THROW(measure_file_reads(temp_path("missing.bin"), 8 << 20, {.chunk_bytes = 4096}), Error);
}

}  // namespace
}  // namespace tg
