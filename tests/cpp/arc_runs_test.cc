// Sorted runs on a scratch disk (the bounded build's spill): a merge of any range of majors
// gives exactly the arcs of that range in (major, minor, weight) order, whatever the runs' widths.
#include "ingest/arc_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <random>
#include <vector>

namespace tg {
namespace {

std::vector<RunArc> merged(const ArcRuns& runs, uint64_t first, uint64_t last,
                           size_t buffer_bytes) {
  std::vector<RunArc> out;
  runs.merge(first, last, buffer_bytes, [&](std::span<const RunArc> batch) {
    out.insert(out.end(), batch.begin(), batch.end());
  });
  return out;
}

bool same(const RunArc& a, const RunArc& b) {
  return a.major == b.major && a.minor == b.minor &&
         std::bit_cast<uint64_t>(a.w) == std::bit_cast<uint64_t>(b.w);
}

TEST(ArcRuns, MergesAnyRangeOfWeightedRunsInOrder) {
  std::mt19937_64 rng(7);
  ArcRuns runs(std::filesystem::temp_directory_path().string(), true);
  std::vector<RunArc> all;
  uint64_t bytes = 0;
  for (int r = 0; r < 5; ++r) {  // runs of different sizes, with duplicates across and within
    std::vector<SpillArc<uint32_t, double>> arcs(1000 + 7919 * r);
    for (auto& a : arcs) {
      // Runs 1 and 3 hold real weights (16-byte records), run 4 a -0.0 among integers (it must
      // come back as -0.0: 16 bytes too), runs 0 and 2 only integers (12 bytes).
      const double w = static_cast<double>(rng() % 4) + (r % 2 == 1 ? 0.5 : 0.0);
      a = {static_cast<uint32_t>(rng() % 3000), static_cast<uint32_t>(rng() % 50), w};
    }
    if (r == 4) arcs[17].w = -0.0;
    for (const auto& a : arcs) all.push_back({a.major, a.minor, a.w});
    bytes += arcs.size() * (r == 0 || r == 2 ? 12 : 16);
    runs.add_run(std::span(arcs));
  }
  EXPECT_EQ(runs.runs(), 5u);
  EXPECT_EQ(runs.arcs(), all.size());
  EXPECT_EQ(runs.bytes(), bytes);
  std::sort(all.begin(), all.end(), run_arc_less);
  for (auto [first, last] : {std::pair<uint64_t, uint64_t>{0, UINT64_MAX},
                             {0, 0},
                             {17, 17},
                             {100, 2500},
                             {2999, 5000},
                             {4000, 9000}}) {
    std::vector<RunArc> expected;
    for (const RunArc& a : all)
      if (a.major >= first && a.major <= last) expected.push_back(a);
    // A small buffer refills many times; a large one reads a run at once.
    for (size_t buffer : {size_t{64}, size_t{1} << 20}) {
      const auto got = merged(runs, first, last, buffer);
      ASSERT_EQ(got.size(), expected.size()) << first << ".." << last;
      EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin(), same))
          << first << ".." << last;
    }
  }
}

// Released records give their disk space back (the runs shrink as the graph file grows), what
// is still to be merged reads as before, and reading a released range is refused.
TEST(ArcRuns, ReleasedRecordsFreeTheirDiskAndTheRestMergesAsBefore) {
  std::mt19937_64 rng(11);
  ArcRuns runs(std::filesystem::temp_directory_path().string(), false);
  std::vector<RunArc> all;
  for (int r = 0; r < 3; ++r) {
    std::vector<SpillArc<uint32_t, NoWeight>> arcs(600000);  // 4.6 MiB a run
    for (auto& a : arcs) {
      a = {static_cast<uint32_t>(rng() % 100000), static_cast<uint32_t>(rng() % 100000), {}};
      all.push_back({a.major, a.minor, 0.0});
    }
    runs.add_run(std::span(arcs));
  }
  std::sort(all.begin(), all.end(), run_arc_less);
  const uint64_t before = runs.disk_bytes();
  EXPECT_GE(before, runs.bytes());
  runs.release_below(60000);  // about 60% of every run
  const uint64_t after = runs.disk_bytes();
  // 60% of the records, less up to a mebibyte a run that a hole rounds away.
  EXPECT_LT(after, before - runs.bytes() / 3) << "the released records' blocks are freed";
  std::vector<RunArc> rest;
  for (const RunArc& a : all)
    if (a.major >= 60000) rest.push_back(a);
  const auto got = merged(runs, 60000, UINT64_MAX, 1 << 16);
  ASSERT_EQ(got.size(), rest.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), rest.begin(), same));
  EXPECT_THROW(merged(runs, 59999, UINT64_MAX, 1 << 16), std::logic_error);
  runs.release_below(UINT64_MAX);
  EXPECT_LT(runs.disk_bytes(), uint64_t{1} << 20) << "everything released";
}

TEST(ArcRuns, SixtyFourBitIdsAndNarrowRunsMergeTogether) {
  ArcRuns runs(std::filesystem::temp_directory_path().string(), false);
  std::vector<SpillArc<uint32_t, NoWeight>> narrow = {{5, 1, {}}, {3, 2, {}}, {UINT32_MAX, 0, {}}};
  std::vector<SpillArc<uint64_t, NoWeight>> wide = {
      {UINT64_MAX, 9, {}}, {4, 4, {}}, {uint64_t{1} << 40, 3, {}}};
  std::vector<SpillArc<uint64_t, NoWeight>> fits = {
      {6, 6, {}}, {3, 1, {}}};  // 64-bit type, 32-bit ids: written narrow
  runs.add_run(std::span(narrow));
  runs.add_run(std::span(wide));
  runs.add_run(std::span(fits));
  EXPECT_EQ(runs.bytes(), 3 * 8 + 3 * 16 + 2 * 8u);
  const auto got = merged(runs, 0, UINT64_MAX, 4096);
  const std::vector<std::pair<uint64_t, uint64_t>> expected = {
      {3, 1},         {3, 2}, {4, 4}, {5, 1}, {6, 6}, {UINT32_MAX, 0}, {uint64_t{1} << 40, 3},
      {UINT64_MAX, 9}};
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].major, expected[i].first) << i;
    EXPECT_EQ(got[i].minor, expected[i].second) << i;
  }
  EXPECT_EQ(merged(runs, UINT64_MAX, UINT64_MAX, 4096).size(),
            1u);  // the largest label is a major like any other
}

TEST(ArcRuns, AMissingScratchFolderIsNamed) {
  ArcRuns runs("/no/such/folder", false);
  std::vector<SpillArc<uint32_t, NoWeight>> arcs = {{1, 2, {}}};
  try {
    runs.add_run(std::span(arcs));
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("scratch folder '/no/such/folder'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tg
