// Tests for the text readers at the level of the edge list they return (the CLI tests in
// tests/python/test_convert.py cover the formats end to end): weights that the fuzzers found
// misclassified, and inputs that cross the reader's buffers, which start at 4 KiB and double.
#include "ingest/parse.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "graph/edge_list.h"
#include "temp_file.h"
#include "util/error.h"

namespace tg {
namespace {

namespace fs = std::filesystem;

using testing::TempFile;

EdgeList read_text(const std::string& text, const std::string& format) {
  TempFile file(".txt", text);
  ParseOptions options;
  options.format = format;
  return read_edge_list(file.path(), options);
}

using Arc = std::tuple<uint64_t, uint64_t, double>;

std::vector<Arc> arcs_of(const EdgeList& list) {
  std::vector<Arc> arcs;
  std::visit(
      [&]<typename Id, typename W>(const EdgeArray<Id, W>& edges) {
        for (const auto& e : edges) {
          if constexpr (std::is_same_v<W, double>) {
            arcs.emplace_back(e.u, e.v, e.w);
          } else {
            arcs.emplace_back(e.u, e.v, 0.0);
          }
        }
      },
      list.edges);
  return arcs;
}

TEST(WeightInfo, IntegralMeansHeldByInt64) {
  // Found by fuzz_edgelist (`1 2 1e19`): classifying a weight of 2^63 or more converted it to
  // int64 first, which is undefined behaviour (UBSan: "outside the range of representable values").
  for (double w : {1e19, 0x1p63, -0x1p64, 1e300, -1e300, 1.5}) {
    WeightInfo info;
    info.add(1);
    info.add(w);
    EXPECT_FALSE(info.all_integral) << w;
  }
  for (double w : {-0x1p63, 0x1p63 - 1024, 9.2e18, -0.0, 0.0, 4e9}) {
    WeightInfo info;
    info.add(w);
    EXPECT_TRUE(info.all_integral) << w;
  }
}

TEST(Parse, WeightsBeyondInt64AreNotIntegral) {
  const EdgeList list = read_text("1 2 1e19\n2 3 9223372036854775808\n3 1 7\n", "edgelist");
  ASSERT_TRUE(list.weighted());
  EXPECT_FALSE(list.weight_info.all_integral);
  EXPECT_EQ(list.weight_info.max, 1e19);
  EXPECT_EQ(list.weight_info.min, 7);
  EXPECT_EQ(arcs_of(list), (std::vector<Arc>{{1, 2, 1e19}, {2, 3, 0x1p63}, {3, 1, 7}}));
}

TEST(Parse, LinesAcrossGrowingBuffers) {
  // About 300 KB: the 4 KiB first buffer doubles several times, and lines straddle every cut.
  std::string text;
  std::vector<Arc> want;
  for (uint64_t k = 0; k < 30'000; ++k) {
    const uint64_t u = k * 7919 % 100'003, v = k * 104'729 % 100'003;
    text += std::to_string(u) + (k % 3 ? " " : "\t") + std::to_string(v) + " " +
            std::to_string(k % 97) + "\n";
    want.emplace_back(u, v, static_cast<double>(k % 97));
  }
  EXPECT_EQ(arcs_of(read_text(text, "edgelist")), want);
}

TEST(Parse, LineLongerThanTheFirstBuffers) {
  // A line that no buffer below 128 KiB holds is carried whole into larger ones.
  const std::string padding(100'000, ' ');
  const EdgeList list = read_text("1 2\n3" + padding + "4\n5 6\n", "edgelist");
  EXPECT_EQ(arcs_of(list), (std::vector<Arc>{{1, 2, 0}, {3, 4, 0}, {5, 6, 0}}));
}

TEST(Parse, ErrorLineNumbersAfterSeveralBuffers) {
  std::string text;
  for (int k = 0; k < 20'000; ++k) text += "12345 67890\n";
  TempFile file(".txt", text + "1 x2\n");
  ParseOptions options;
  options.format = "edgelist";
  try {
    read_edge_list(file.path(), options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file.path() + ":20001:3: expected a vertex id"),
              std::string::npos)
        << e.what();
  }
}

TEST(Parse, MetisVertexNumbersAcrossBuffers) {
  // METIS numbers vertices by line, blank lines included: the count must carry over from one
  // buffer to the next. Pairs (2k-1, 2k) are edges, but every fourth pair is two blank lines.
  const uint64_t n = 20'000;
  std::string lists;
  std::vector<Arc> want;
  for (uint64_t v = 1; v <= n; ++v) {
    const uint64_t pair = (v + 1) / 2, partner = v % 2 ? v + 1 : v - 1;
    if (pair % 4 == 0) {
      lists += "\n";
      continue;
    }
    lists += std::to_string(partner) + "\n";
    if (v % 2) want.emplace_back(v, partner, 0);
  }
  const EdgeList list =
      read_text(std::to_string(n) + " " + std::to_string(want.size()) + "\n" + lists, "metis");
  EXPECT_EQ(list.declared_vertices, n);
  EXPECT_EQ(arcs_of(list), want);
}

}  // namespace
}  // namespace tg
