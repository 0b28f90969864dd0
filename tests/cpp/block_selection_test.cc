// Blocks read in part (issue 11, item 4): a selection of directory entries arrives holding
// exactly those entries' vertices and arcs (weights too), over pread and over O_DIRECT; runs
// close together share a read; a corrupted entry is named; and a sparse BFS step fetches a
// small share of the blocks it reads, with the in-memory answer, also when the blocks are larger
// than a buffer and leased in pieces.
#include "store/block_selection.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <cstring>

#include "algorithms/sources.h"
#include "engine/cpu/engine.h"
#include "run/kernels.h"
#include "store/copying_store.h"
#include "store/uring_transfer.h"
#include "test_graphs.h"

namespace tg {
namespace {

using testing::kronecker_graph;

TEST(BlockSelection, RunsCloserThanTheGapShareAGroup) {
  const std::vector<EntryRun> runs{{0, 2}, {5, 6}, {20, 30}, {31, 32}};
  const auto apart = group_runs(runs, 0);
  ASSERT_EQ(apart.size(), 4u);
  const auto close = group_runs(runs, 3);  // 2..5 is a gap of 3; 6..20 is not
  ASSERT_EQ(close.size(), 2u);
  EXPECT_EQ(close[0].first, 0u);
  EXPECT_EQ(close[0].last, 6u);
  EXPECT_EQ(close[0].run_last, 2u);
  EXPECT_EQ(close[1].first, 20u);
  EXPECT_EQ(close[1].last, 32u);
  EXPECT_EQ(close[1].run_first, 2u);
  EXPECT_EQ(group_runs(runs, 100).size(), 1u);
}

// Two of every five entries of a block: runs of two, three entries apart (over pread); over
// O_DIRECT, whose reads are whole 4 KiB pages, three entries in the middle.
std::vector<EntryRun> selection_of(uint64_t entries, bool pages) {
  if (pages) return {{entries / 2, entries / 2 + 3}};
  std::vector<EntryRun> runs;
  for (uint64_t k = 0; k < entries; k += 5) runs.push_back({k, std::min(entries, k + 2)});
  return runs;
}

enum class Medium { kPread, kODirect };

class SelectionOfEntries : public ::testing::TestWithParam<std::tuple<Medium, bool, uint32_t>> {};

// The lease of a selection holds the selected entries in order, each vertex with exactly its
// arcs (and weights) in the block, and moves fewer bytes than the blocks would. When reading
// the arcs would move more than the whole block (4 KiB pages of a small block, over O_DIRECT),
// the store reads the block whole after all, and the lease is the whole block.
TEST_P(SelectionOfEntries, HoldsExactlyTheSelectedArcs) {
  const auto [medium, weighted, p] = GetParam();
  const auto file =
      kronecker_graph(13, false, weighted ? GeneratedWeights::kInteger : GeneratedWeights::kNone, p,
                      fmt::format("sel-{}-{}-{}", static_cast<int>(medium), weighted, p));
  if (medium == Medium::kODirect && !UringTransfer::built())
    GTEST_SKIP() << "built without io_uring";
  std::unique_ptr<Transfer> transfer;
  if (medium == Medium::kODirect) transfer = std::make_unique<UringTransfer>(file->path(), 8);
  CopyingStore store(file,
                     {.buffers = 3,
                      .depth = 2,
                      .completion = CopyingStoreOptions::Completion::kShuffled,
                      .with_weights = weighted},
                     std::move(transfer));
  std::vector<PlannedBlock> plan;
  std::vector<std::vector<EntryRun>> runs;
  runs.reserve(uint64_t{p} * p);
  uint64_t whole_bytes = 0;
  for (uint32_t i = 0; i < p; ++i)
    for (uint32_t j = 0; j < p; ++j) {
      const auto& e = file->entry(Grid::kOut, i, j);
      if (e.vertex_count < 10) continue;
      runs.push_back(selection_of(e.vertex_count, medium == Medium::kODirect));
      plan.push_back({.block = {Grid::kOut, i, j}, .selection = runs.back()});
      whole_bytes += file->block_bytes(Grid::kOut, i, j, weighted);
    }
  ASSERT_FALSE(plan.empty());
  const uint32_t weight_bytes = weighted ? format::weight_bytes(file->weight_type()) : 0;
  auto same_arcs = [&](const BlockDecoder& a, uint64_t ka, const BlockDecoder& b, uint64_t kb) {
    ASSERT_EQ(a.vertex(ka), b.vertex(kb));
    const uint64_t begin = b.offset(kb), arcs = b.offset(kb + 1) - begin;
    ASSERT_EQ(a.offset(ka + 1) - a.offset(ka), arcs);
    for (uint64_t x = 0; x < arcs; ++x) {
      ASSERT_EQ(a.neighbour(a.offset(ka) + x), b.neighbour(begin + x));
      if (weight_bytes > 0) {
        ASSERT_EQ(std::memcmp(a.weights + (a.offset(ka) + x) * weight_bytes,
                              b.weights + (begin + x) * weight_bytes, weight_bytes),
                  0);
      }
    }
  };
  uint64_t read_whole = 0;
  store.begin_pass(plan);
  for (uint64_t x = 0; x < plan.size(); ++x) {
    const BlockId& b = plan[x].block;
    SCOPED_TRACE(fmt::format("block ({}, {})", b.major, b.minor));
    const BlockDecoder whole = file->decoder(Grid::kOut, b.major, b.minor);
    const BlockDecoder& part = store.acquire(x);
    if (part.vertex_count == whole.vertex_count) {  // read whole after all
      ++read_whole;
      for (uint64_t k = 0; k < whole.vertex_count; ++k)
        ASSERT_NO_FATAL_FAILURE(same_arcs(part, k, whole, k));
    } else {
      uint64_t at = 0;  // the selection's entry
      for (const EntryRun& run : runs[x])
        for (uint64_t k = run.first; k < run.last; ++k, ++at)
          ASSERT_NO_FATAL_FAILURE(same_arcs(part, at, whole, k));
      EXPECT_EQ(at, part.vertex_count);
    }
    store.release(x);
  }
  store.end_pass();
  const StoreCounters c = store.counters();
  EXPECT_EQ(c.blocks, plan.size());
  EXPECT_EQ(c.partial_blocks, plan.size() - read_whole);
  EXPECT_EQ(c.requests, 2 * plan.size());  // two steps each
  if (medium == Medium::kPread) {
    EXPECT_EQ(read_whole, 0u);
    EXPECT_EQ(c.partial_bytes, c.bytes);
    EXPECT_LT(c.bytes, whole_bytes);
  } else if (p == 4) {
    EXPECT_GT(c.partial_blocks, 0u);  // blocks of many pages read as selections
  } else {
    EXPECT_GT(read_whole, 0u);  // small blocks read whole
  }
}

INSTANTIATE_TEST_SUITE_P(MediaWeightsGrids, SelectionOfEntries,
                         ::testing::Combine(::testing::Values(Medium::kPread, Medium::kODirect),
                                            ::testing::Bool(), ::testing::Values(4u, 16u)));

// A directory entry whose offsets run past the block's arcs, read by a selection only (the
// file was checked before it was damaged), is named with its block.
TEST(BlockSelection, ACorruptedEntryIsNamedWithItsBlock) {
  const auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 4, "sel-corrupt");
  const auto& e = file->entry(Grid::kOut, 1, 2);
  ASSERT_GT(e.vertex_count, 8u);
  const uint64_t at =
      e.offset + format::part_positions(e.part_bytes).at[format::kDirectory] + 4 * e.offset_bytes;
  const int fd = ::open(file->path().c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  const unsigned char ones[4] = {0xff, 0xff, 0xff, 0xff};
  ASSERT_EQ(::pwrite(fd, ones, e.offset_bytes, static_cast<off_t>(at)),
            static_cast<ssize_t>(e.offset_bytes));
  ::close(fd);
  CopyingStore store(file, {.buffers = 2});
  const std::vector<EntryRun> runs{{3, 5}};  // entries 3 and 4 read offset 4
  store.begin_pass({{.block = {Grid::kOut, 1, 2}, .selection = runs}});
  try {
    store.acquire(0);
    FAIL() << "a corrupted directory entry was used";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("out-grid block (row 1, column 2)"), std::string::npos) << message;
    EXPECT_NE(message.find("directory entry 3"), std::string::npos) << message;
  }
  store.end_pass();
}

// Entries without arcs (a CSR block lists every vertex of its range) leave step 2 nothing to
// read: the selection arrives at once, holding those vertices with no arcs, over either medium.
TEST(BlockSelection, EntriesWithoutArcsArriveWithNothingToRead) {
  const auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 1, "sel-empty");
  const auto& e = file->entry(Grid::kOut, 0, 0);
  ASSERT_EQ(e.layout, static_cast<uint8_t>(format::BlockLayout::kCsr));
  const BlockDecoder whole = file->decoder(Grid::kOut, 0, 0);
  // Isolated vertices in a row: their arcs are all the empty range at one offset.
  std::vector<EntryRun> runs;
  for (uint64_t k = 0; k + 1 < whole.vertex_count && runs.empty(); ++k)
    if (whole.offset(k) == whole.offset(k + 2)) runs.push_back({k, k + 2});
  ASSERT_EQ(runs.size(), 1u) << "kron11 has isolated vertices next to each other";
  for (bool direct : {false, true}) {
    if (direct && !UringTransfer::built()) continue;  // built without io_uring
    std::unique_ptr<Transfer> transfer;
    if (direct) transfer = std::make_unique<UringTransfer>(file->path(), 8);
    CopyingStore store(file, {.buffers = 1}, std::move(transfer));
    store.begin_pass({{.block = {Grid::kOut, 0, 0}, .selection = runs}});
    const BlockDecoder& part = store.acquire(0);
    ASSERT_EQ(part.vertex_count, 2u);
    EXPECT_EQ(part.edge_count, 0u);
    for (uint64_t k = 0; k < 2; ++k) EXPECT_EQ(part.vertex(k), runs[0].first + k);
    store.release(0);
    store.end_pass();
    EXPECT_EQ(store.counters().requests, 1u);  // step 1 only
    EXPECT_EQ(store.counters().partial_blocks, 1u);
  }
}

// BFS from one vertex over a fetching store: the first step pushes from the source alone and
// reads selections of its row (a small share of the row's bytes), and later sparse steps read
// selections too; the depths are the in-memory ones.
TEST(BlockSelection, SparseBfsStepsFetchLess) {
  const auto file = kronecker_graph(13, true, GeneratedWeights::kNone, 8, "sel-bfs");
  GraphView<uint32_t, NoWeight> g(file);
  omp_set_num_threads(2);
  Engine reference(g, EngineOptions{});
  const uint64_t source = SourcePicker(g.num_vertices(), 5).next(g);  // one with arcs
  const auto expected = run_bfs(reference, source, false).ints;
  CopyingStore store(file, {.buffers = 6, .depth = 4});
  Engine engine(g, EngineOptions{.schedule = Schedule::kBlock, .store = &store});
  EXPECT_EQ(run_bfs(engine, source, false).ints, expected);
  const uint32_t row = g.range_of(source);
  uint64_t row_bytes = 0;
  for (uint32_t j = 0; j < 8; ++j) row_bytes += file->block_bytes(Grid::kOut, row, j, false);
  const IterationStats& first = engine.stats().front();
  ASSERT_EQ(first.frontier_size, 1u);
  EXPECT_GT(first.blocks_partial, 0u);
  EXPECT_EQ(first.blocks_partial, first.blocks_read);
  EXPECT_EQ(first.bytes_partial, first.bytes_fetched);
  EXPECT_LT(first.bytes_fetched * 8, row_bytes);
  uint64_t partial = 0;
  for (const auto& it : engine.stats()) {
    EXPECT_LE(it.blocks_partial, it.blocks_read);
    EXPECT_LE(it.bytes_partial, it.bytes_fetched);
    partial += it.iteration > 0 ? it.blocks_partial : 0;
  }
  EXPECT_GT(partial, 0u);
}

// One block larger than a buffer (a 1x1 grid, as the builder makes up to 2^32 arcs) is leased in
// pieces; a sparse step must not read all of them (issue 35: every SSSP round streamed the whole
// file). The first BFS step reads selections of the pieces holding the source and nothing else;
// SSSP's sparse rounds read selections too; the answers are the in-memory ones.
TEST(BlockSelection, SparseStepsSelectInsideABlockLeasedInPieces) {
  const auto file = kronecker_graph(13, true, GeneratedWeights::kInteger, 1, "sel-pieces");
  GraphView<uint32_t, int32_t> g(file);
  GraphView<uint32_t, NoWeight> unweighted(file);  // BFS's view: its store fetches no weights
  omp_set_num_threads(2);
  Engine reference(unweighted, EngineOptions{});
  const uint64_t source = SourcePicker(g.num_vertices(), 5).next(g);
  const uint64_t block = file->block_bytes(Grid::kOut, 0, 0, false);
  CopyingStore store(file, {.buffers = 6, .buffer_bytes = block / 8, .depth = 4});
  ASSERT_EQ(store.blocks_in_pieces(), 1u);
  Engine engine(unweighted, EngineOptions{.schedule = Schedule::kBlock, .store = &store});
  EXPECT_EQ(run_bfs(engine, source, false).ints, run_bfs(reference, source, false).ints);
  const IterationStats& first = engine.stats().front();
  ASSERT_EQ(first.frontier_size, 1u);
  EXPECT_EQ(first.blocks_partial, 1u);  // one vertex lies in one piece
  EXPECT_EQ(first.bytes_partial, first.bytes_fetched);
  EXPECT_LT(first.bytes_fetched * 12, block);  // not its piece (an eighth)
  // SSSP's rounds select more vertices of a piece than one lease reads (small pieces: a lease
  // reads at most a buffer's 512th in runs), so a piece's selection is several leases; over
  // O_DIRECT, 4 KiB pages make most selections of these small pieces cost more than the piece.
  // A pass decodes each arc's weight where the view has them; a store without them is refused
  // (that read would lie past the prefix it fetched).
  EXPECT_THROW(Engine(g, EngineOptions{.schedule = Schedule::kBlock, .store = &store}), Error);
  Engine weighted_reference(g, EngineOptions{});
  const auto expected = run_sssp(weighted_reference, source, int64_t{32}).ints;
  for (bool direct : {false, true}) {
    if (direct && !UringTransfer::built()) continue;  // built without io_uring
    std::unique_ptr<Transfer> transfer;
    if (direct) transfer = std::make_unique<UringTransfer>(file->path(), 8);
    CopyingStore weighted(
        file, {.buffers = 6, .buffer_bytes = block / 32, .depth = 4, .with_weights = true},
        std::move(transfer));
    Engine sssp(g, EngineOptions{.schedule = Schedule::kBlock, .store = &weighted});
    EXPECT_EQ(run_sssp(sssp, source, int64_t{32}).ints, expected)
        << (direct ? "over O_DIRECT" : "over pread");
    uint64_t partial = 0;
    for (const auto& it : sssp.stats()) partial += it.blocks_partial;
    if (!direct) {
      EXPECT_GT(partial, 1u);
    }
  }
}

// A selection with more runs than one lease reads is planned as several leases of consecutive
// runs; one that moves more than half its piece is not planned at all.
TEST(BlockSelection, ASelectionOfManyRunsIsSeveralLeases) {
  const auto file = kronecker_graph(13, true, GeneratedWeights::kNone, 1, "sel-leases");
  const uint64_t block = file->block_bytes(Grid::kOut, 0, 0, false);
  CopyingStore store(file, {.buffers = 2, .buffer_bytes = block / 4});
  const BlockId b{Grid::kOut, 0, 0};
  const auto pieces = store.pieces(b);
  ASSERT_GE(pieces.size(), 4u);  // cut between vertices: a few more than 4
  const uint64_t per = store.selection_runs_per_lease();
  std::vector<EntryRun> runs;
  for (uint64_t k = pieces[1].entry_first + 1; runs.size() < 2 * per + 1; k += 2)
    runs.push_back({k, k + 1});
  ASSERT_LT(runs.back().last, pieces[1].entry_last);
  EXPECT_EQ(store.selection_leases(b, runs, runs.size(), 1), 3u);
  EXPECT_EQ(store.selection_leases(b, std::span(runs).first(per), per, 1), 1u);
  EXPECT_EQ(store.selection_leases(b, runs, pieces[1].arc_last - pieces[1].arc_first, 1),
            0u);  // every arc: no gain
  EXPECT_EQ(store.selection_leases(b, runs, runs.size()),
            0u);  // the block is leased in pieces, not whole
}

// A hub whose arcs fill several buffers is cut between pieces, and a selection reads an entry's
// arcs whole: pieces holding the active hub are read as they are, the others as selections or not
// at all. BFS from the hub and from a leaf next to it, over pread and O_DIRECT, give the
// in-memory depths.
TEST(BlockSelection, AnActiveHubCutBetweenPiecesIsReadWhole) {
  const auto file = kronecker_graph(11, true, GeneratedWeights::kNone, 1, "sel-hub", true);
  GraphView<uint32_t, NoWeight> g(file);
  omp_set_num_threads(2);
  Engine reference(g, EngineOptions{});
  ASSERT_GT(g.out_degree(0), 2000u);
  for (bool direct : {false, true}) {
    if (direct && !UringTransfer::built()) continue;  // built without io_uring
    for (uint64_t source : {uint64_t{0}, uint64_t{1}}) {
      std::unique_ptr<Transfer> transfer;
      if (direct) transfer = std::make_unique<UringTransfer>(file->path(), 8);
      CopyingStore store(file, {.buffers = 4, .buffer_bytes = 2048, .depth = 2},
                         std::move(transfer));
      Engine engine(g, EngineOptions{.schedule = Schedule::kBlock, .store = &store});
      EXPECT_EQ(run_bfs(engine, source, false).ints, run_bfs(reference, source, false).ints)
          << "source " << source << (direct ? " over O_DIRECT" : " over pread");
      const auto pieces = store.pieces({Grid::kOut, 0, 0});
      bool cut = false;  // some vertex (the hub) has an entry in two pieces
      for (size_t q = 1; q < pieces.size(); ++q)
        cut |= pieces[q].entry_first < pieces[q - 1].entry_last;
      EXPECT_TRUE(cut);
      const IterationStats& first = engine.stats().front();
      EXPECT_LE(first.blocks_partial, first.blocks_read);
      EXPECT_LE(first.bytes_partial, first.bytes_fetched);
    }
  }
}

}  // namespace
}  // namespace tg
