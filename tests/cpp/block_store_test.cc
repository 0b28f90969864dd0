// The block store and the block-major passes: every algorithm gives the in-memory answer through
// either store in either schedule, at every grid size and thread count; the copying store
// completes out of order with `depth` requests in flight, and a task processes blocks as they
// arrive; a released buffer cannot be read; a block that fails its check on arrival is named;
// a pool of one buffer still finishes; vertex-major refuses a pool too small for its pass; blocks
// larger than a buffer are leased in pieces that cover them exactly, cut vertices included.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "algorithms/sources.h"
#include "engine/cpu/engine.h"
#include "run/kernels.h"
#include "store/block_pieces.h"
#include "store/composite_store.h"
#include "store/copying_store.h"
#include "store/mapped_store.h"
#include "store/uring_transfer.h"
#include "test_graphs.h"
#include "test_results.h"

namespace tg {
namespace {

using testing::expect_same_answer;
using testing::kronecker_graph;

// kPieces: the copying store with buffers of 1 KiB, so that most blocks (and vertex 0's row, the
// hub's) are leased in pieces; block-major only, since vertex-major reads whole blocks. kFile:
// the file tier (O_DIRECT through io_uring), whole blocks in vertex-major passes and 1 KiB pieces
// in block-major ones, every range rounded out to 4 KiB.
enum class StoreKind { kMapped, kCopying, kPieces, kFile };
constexpr uint64_t kPieceBuffer = 1024;

struct Setup {
  StoreKind store;
  Schedule schedule;
  int threads;
};

std::string describe(const Setup& s, uint32_t p) {
  static constexpr const char* kNames[] = {"mapped", "copying", "copying in pieces", "file"};
  return fmt::format("{} store, {} schedule, {} threads, P={}", kNames[static_cast<int>(s.store)],
                     schedule_name(s.schedule), s.threads, p);
}

// Runs `run(engine)` for every store, schedule and thread count on each grid and compares every
// answer with the first (mapped, vertex-major, one thread, the first grid). Returns how many
// blocks the fetching stores read as selections of their entries (sparse pushes).
template <typename View, typename Run>
uint64_t expect_same_everywhere(const std::vector<std::shared_ptr<const GraphFile>>& grids,
                                bool weights, Run run) {
  std::optional<AlgorithmResult> first;
  uint64_t partial = 0;
  for (const auto& file : grids) {
    View g(file);
    const uint32_t p = file->blocks_per_side();
    for (StoreKind store :
         {StoreKind::kMapped, StoreKind::kCopying, StoreKind::kPieces, StoreKind::kFile}) {
      for (Schedule schedule : {Schedule::kVertex, Schedule::kBlock}) {
        if (store == StoreKind::kPieces && schedule == Schedule::kVertex) continue;
        if (store == StoreKind::kFile && !UringTransfer::built()) continue;  // no io_uring built
        for (int threads : {1, 2}) {
          const Setup s{store, schedule, threads};
          omp_set_num_threads(threads);
          std::unique_ptr<CopyingStore> copying;
          if (store != StoreKind::kMapped) {
            // Vertex-major holds every block of a pass (two grids for both-way programs).
            const uint32_t buffers = schedule == Schedule::kVertex ? 2 * p * p : 3;
            const bool pieces = store == StoreKind::kPieces ||
                                (store == StoreKind::kFile && schedule == Schedule::kBlock);
            std::unique_ptr<Transfer> transfer;
            if (store == StoreKind::kFile)
              transfer = std::make_unique<UringTransfer>(file->path(), 8);
            copying = std::make_unique<CopyingStore>(
                file,
                CopyingStoreOptions{.buffers = buffers,
                                    .buffer_bytes = pieces ? kPieceBuffer : 0,
                                    .depth = 2,
                                    .completion = CopyingStoreOptions::Completion::kShuffled,
                                    .with_weights = weights},
                std::move(transfer));
            if (store == StoreKind::kPieces && p == 1) {
              EXPECT_GT(copying->blocks_in_pieces(), 0u) << describe(s, p);
            }
          }
          Engine engine(g, EngineOptions{.schedule = schedule, .store = copying.get()});
          AlgorithmResult r = run(engine);
          for (const auto& it : engine.stats()) {
            EXPECT_EQ(it.schedule, schedule) << describe(s, p);
            partial += it.blocks_partial;
          }
          if (!first) {
            first = std::move(r);
            continue;
          }
          expect_same_answer(r, *first, describe(s, p));
        }
      }
    }
  }
  omp_set_num_threads(2);
  return partial;
}

class BlockStoreMatrix : public ::testing::TestWithParam<bool> {  // undirected?
 protected:
  void SetUp() override {
    const bool undirected = GetParam();
    const std::string tag = undirected ? "u" : "d";
    // Kronecker graphs have isolated vertices; at P = 64 (capped at 32 ranges) most blocks are
    // empty. The plain graphs add a hub (vertex 0 linked to all) whose row a 1 KiB piece cannot
    // hold.
    for (uint32_t p : {1u, 4u, 64u}) {
      plain_.push_back(kronecker_graph(11, undirected, GeneratedWeights::kNone, p,
                                       "bs-kron11" + tag + std::to_string(p), true));
      weighted_.push_back(kronecker_graph(10, undirected, GeneratedWeights::kInteger, p,
                                          "bs-kron10w" + tag + std::to_string(p)));
    }
  }
  std::vector<std::shared_ptr<const GraphFile>> plain_, weighted_;
};

TEST_P(BlockStoreMatrix, Bfs) {
  const uint64_t partial =
      expect_same_everywhere<GraphView<uint32_t, NoWeight>>(plain_, false, [](auto& engine) {
        auto r = run_bfs(engine, 1, true);  // parents differ between runs: verified, then dropped
        EXPECT_TRUE(verify_bfs(engine.graph(), 1, r).ok);
        return run_bfs(engine, 1, false);
      });
  EXPECT_GT(partial, 0u);  // the answers above include sparse pushes that read selections
}

TEST_P(BlockStoreMatrix, Wcc) {
  expect_same_everywhere<GraphView<uint32_t, NoWeight>>(plain_, false, [](auto& engine) {
    auto r = run_wcc(engine);
    EXPECT_TRUE(verify_wcc(engine.graph(), r).ok);
    return r;
  });
}

TEST_P(BlockStoreMatrix, PageRank) {
  expect_same_everywhere<GraphView<uint32_t, NoWeight>>(plain_, false, [](auto& engine) {
    PageRankOptions o;
    auto r = run_pagerank(engine, o);
    EXPECT_TRUE(verify_pagerank(engine.graph(), o, r).ok);
    return r;
  });
}

TEST_P(BlockStoreMatrix, Radii) {
  expect_same_everywhere<GraphView<uint32_t, NoWeight>>(plain_, false, [](auto& engine) {
    const auto sources = sampled_sources(engine.graph(), 64, 7);
    auto r = run_radii(engine, sources);
    EXPECT_TRUE(verify_radii(engine.graph(), sources, r).ok);
    return r;
  });
}

TEST_P(BlockStoreMatrix, WeightedSssp) {
  const uint64_t partial =
      expect_same_everywhere<GraphView<uint32_t, int32_t>>(weighted_, true, [](auto& engine) {
        auto r = run_sssp(engine, 1, int64_t{32});
        EXPECT_TRUE(verify_sssp(engine.graph(), 1, r).ok);
        return r;
      });
  EXPECT_GT(partial, 0u);  // with their weights
}

INSTANTIATE_TEST_SUITE_P(DirectedAndUndirected, BlockStoreMatrix, ::testing::Bool());

// Flips bits of the first neighbour byte of out block (row, column) on disk, after the file was
// opened and checked: only a store that fetches and validates the block can notice.
void flip_neighbour_byte(const GraphFile& file, uint32_t row, uint32_t column, unsigned char mask) {
  const auto& e = file.entry(Grid::kOut, row, column);
  ASSERT_GT(e.edge_count, 0u);
  const uint64_t at = e.offset + format::part_positions(e.part_bytes).at[format::kNeighbors];
  const int fd = ::open(file.path().c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  unsigned char byte = 0;
  ASSERT_EQ(::pread(fd, &byte, 1, static_cast<off_t>(at)), 1);
  byte ^= mask;
  ASSERT_EQ(::pwrite(fd, &byte, 1, static_cast<off_t>(at)), 1);
  ::close(fd);
}

// Every out block of a grid, each used once.
std::vector<PlannedBlock> whole_grid(uint32_t p) {
  std::vector<PlannedBlock> plan;
  for (uint32_t i = 0; i < p; ++i)
    for (uint32_t j = 0; j < p; ++j) plan.push_back({.block = {Grid::kOut, i, j}});
  return plan;
}

TEST(CopyingStore, ReverseCompletionIsProcessedInArrivalOrderWithDepthInFlight) {
  auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 4, "bs-reverse");
  const uint32_t depth = 4;
  CopyingStore store(file, {.buffers = 6,
                            .depth = depth,
                            .delay_seconds = 0.002,
                            .completion = CopyingStoreOptions::Completion::kReverse});
  store.begin_pass(whole_grid(4));
  uint64_t blocks = 0;
  for_each_arrived(
      store, 0, 16, [](uint64_t) { return true; }, [&](const BlockDecoder&) { ++blocks; });
  EXPECT_EQ(blocks, 16u);
  const std::vector<uint64_t> processed = store.acquire_log();  // the order the walk took them
  store.end_pass();
  EXPECT_EQ(processed, store.arrival_log());
  EXPECT_NE(processed.front(), 0u);  // reverse: the first request did not complete first
  EXPECT_GE(store.counters().max_in_flight, depth);
}

TEST(CopyingStore, PoolOfOneBufferStillFinishes) {
  auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 4, "bs-pool1");
  GraphView<uint32_t, NoWeight> g(file);
  omp_set_num_threads(2);
  Engine reference(g, EngineOptions{});
  const uint64_t source = SourcePicker(g.num_vertices(), 5).next(g);  // one with arcs
  const auto expected = run_bfs(reference, source, false).ints;
  CopyingStore store(file, {.buffers = 1, .depth = 4});
  Engine engine(g, EngineOptions{.store = &store});  // auto: block-major over a fetching store
  EXPECT_EQ(run_bfs(engine, source, false).ints, expected);
  EXPECT_EQ(store.counters().max_in_flight, 1u);  // the pool bounds the depth
  for (const auto& it : engine.stats()) EXPECT_EQ(it.schedule, Schedule::kBlock);
}

// Counts in-arcs: each message adds one to its target.
template <typename Id>
struct CountArcs {
  using Op = SumOp<uint64_t>;
  VertexArray<uint64_t> count;
  Id source_value(Id u) const { return u; }
  template <typename W>
  uint64_t message(Id, W) const {
    return 1;
  }
  VertexArray<uint64_t> target() const { return count; }
  bool apply(Id) const { return false; }
};

// An engine that masters part of the vertices (an MPI rank's share) passes block-major over
// only the rows of its masters: pushing from all() it sends exactly its masters' out-arcs,
// pulling it fills exactly its masters' in-degrees. Its share ends inside a range, so a row is
// shared; with blocks leased whole and in pieces through a small pool (a planned piece of the
// other vertices that no task meets would hold a buffer forever: the pass would hang).
TEST(CopyingStore, ABlockMajorPassOfPartOfTheVerticesReadsOnlyTheirRows) {
  auto file = kronecker_graph(12, false, GeneratedWeights::kNone, 2, "bs-owned");
  GraphView<uint32_t, NoWeight> g(file);
  omp_set_num_threads(2);
  const uint64_t n = g.num_vertices(), cut = g.ranges()[1] + 256;  // inside range 1
  for (auto [first, end] : {std::pair<uint64_t, uint64_t>{0, cut}, {cut, n}}) {
    for (Direction direction : {Direction::kPush, Direction::kPull}) {
      for (uint64_t buffer : {uint64_t{0}, kPieceBuffer}) {
        CopyingStore store(file, {.buffers = buffer ? 3u : 8u, .buffer_bytes = buffer, .depth = 2});
        if (buffer) {
          ASSERT_GT(store.blocks_in_pieces(), 0u);
        }
        Engine engine(g, EngineOptions{.direction = direction,
                                       .schedule = Schedule::kBlock,
                                       .store = &store,
                                       .owned = {first, end}});
        auto scope = engine.scope();
        CountArcs<uint32_t> program{engine.vertex_array(uint64_t{0})};
        engine.apply_pass(program, engine.combine_pass(program, engine.all()));
        uint64_t sent = 0, masters_out = 0;
        for (uint64_t v = 0; v < n; ++v) {
          sent += program.count[v];
          if (v >= first && v < end) masters_out += g.out_degree(v);
          if (direction == Direction::kPull) {
            EXPECT_EQ(program.count[v], v >= first && v < end ? g.in_degree(v) : 0u) << v;
          }
        }
        if (direction == Direction::kPush) {
          EXPECT_EQ(sent, masters_out) << "each master's out-arcs once, no one else's (masters "
                                       << first << " to " << end << ")";
        }
      }
    }
  }
}

TEST(CopyingStore, VertexMajorRefusesAPoolSmallerThanItsPass) {
  auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 4, "bs-refuse");
  GraphView<uint32_t, NoWeight> g(file);
  CopyingStore store(file, {.buffers = 15});  // one short of the 16 blocks of a grid
  Engine engine(g, EngineOptions{.schedule = Schedule::kVertex, .store = &store});
  try {
    run_bfs(engine, 1, false);
    FAIL() << "a vertex-major pass ran with 15 buffers for 16 blocks";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs 16 blocks"), std::string::npos) << e.what();
  }
}

TEST(CopyingStoreDeathTest, AReleasedBlockCannotBeRead) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto file = kronecker_graph(10, false, GeneratedWeights::kNone, 1, "bs-protect");
  auto read_after_release = [&] {
    CopyingStore store(file, {.buffers = 1});
    store.begin_pass(whole_grid(1));
    const BlockDecoder d = store.acquire(0);
    volatile uint64_t first = d.offset(1);  // held: readable
    (void)first;
    store.release(0);
    volatile uint64_t after = d.offset(1);  // released: PROT_NONE
    (void)after;
  };
  EXPECT_DEATH(read_after_release(), "");
}

TEST(CopyingStore, ABlockThatFailsItsCheckOnArrivalIsNamed) {
  auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 4, "bs-corrupt");
  ASSERT_NO_FATAL_FAILURE(flip_neighbour_byte(*file, 2, 1, 0x01));
  GraphView<uint32_t, NoWeight> g(file);
  CopyingStore store(file, {.buffers = 4, .depth = 2});
  Engine engine(
      g,
      EngineOptions{.direction = Direction::kPush, .schedule = Schedule::kBlock, .store = &store});
  try {
    PageRankOptions o;
    run_pagerank(engine, o);
    FAIL() << "a corrupted block was used";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("out-grid block (row 2, column 1)"), std::string::npos) << message;
    EXPECT_NE(message.find("checksum"), std::string::npos) << message;
  }
}

// The pieces of every block cover its directory entries and arcs exactly once, in order, each
// fits the buffer, and a vertex is cut only when its arcs alone do not fit; with DCSR blocks too.
TEST(BlockPieces, CoverEveryBlockExactlyAndFitTheBuffer) {
  uint64_t cut_vertices = 0, dcsr_cut = 0;
  for (uint32_t p : {1u, 4u, 16u}) {
    auto file = kronecker_graph(12, false, GeneratedWeights::kInteger, p,
                                "bs-pieces" + std::to_string(p), true);
    for (uint64_t capacity : {uint64_t{64}, uint64_t{700}, uint64_t{4096}}) {
      for (uint32_t weight_bytes : {0u, 4u}) {
        for (uint32_t i = 0; i < p; ++i)
          for (uint32_t j = 0; j < p; ++j) {
            const BlockDecoder d = file->decoder(Grid::kOut, i, j);
            const auto& e = file->entry(Grid::kOut, i, j);
            if (d.vertex_count == 0) continue;
            const auto pieces = cut_into_pieces(d, e, capacity, weight_bytes);
            const std::string what = fmt::format("P={} block ({}, {}) capacity {} weights {}", p, i,
                                                 j, capacity, weight_bytes);
            ASSERT_FALSE(pieces.empty()) << what;
            EXPECT_EQ(pieces.front().entry_first, 0u) << what;
            EXPECT_EQ(pieces.front().arc_first, 0u) << what;
            EXPECT_EQ(pieces.back().entry_last, d.vertex_count) << what;
            EXPECT_EQ(pieces.back().arc_last, d.edge_count) << what;
            for (size_t q = 0; q < pieces.size(); ++q) {
              const BlockPiece& x = pieces[q];
              const uint64_t entries = x.entry_last - x.entry_first,
                             arcs = x.arc_last - x.arc_first;
              ASSERT_GT(entries, 0u) << what;
              EXPECT_LE(piece_layout(e, entries, arcs, weight_bytes).end, capacity)
                  << what << " piece " << q;
              EXPECT_EQ(x.vertex_first, d.vertex(x.entry_first)) << what;
              EXPECT_EQ(x.vertex_last, d.vertex(x.entry_last - 1) + 1) << what;
              if (q == 0) continue;
              const BlockPiece& before = pieces[q - 1];
              ASSERT_EQ(x.arc_first, before.arc_last) << what;
              const bool cut = x.entry_first + 1 == before.entry_last;  // the same vertex continues
              if (cut) {
                ++cut_vertices;
                dcsr_cut += d.dcsr();
                // Only a vertex too big for a piece by itself is cut.
                const uint64_t degree = d.offset(x.entry_first + 1) - d.offset(x.entry_first);
                EXPECT_GT(piece_layout(e, 1, degree, weight_bytes).end, capacity) << what;
              } else {
                ASSERT_EQ(x.entry_first, before.entry_last) << what;
                EXPECT_EQ(x.arc_first, d.offset(x.entry_first)) << what;
              }
            }
          }
      }
    }
  }
  EXPECT_GT(cut_vertices, 0u);
  EXPECT_GT(dcsr_cut, 0u);
}

TEST(CopyingStore, VertexMajorRefusesBlocksInPieces) {
  auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 1, "bs-refuse-pieces", true);
  GraphView<uint32_t, NoWeight> g(file);
  CopyingStore store(file, {.buffers = 4, .buffer_bytes = kPieceBuffer});
  Engine engine(g, EngineOptions{.schedule = Schedule::kVertex, .store = &store});
  try {
    run_bfs(engine, 1, false);
    FAIL() << "a vertex-major pass ran over blocks in pieces";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("in pieces"), std::string::npos) << e.what();
  }
}

// A piece whose neighbour lies outside its column is named (block, piece, arcs) on arrival.
TEST(CopyingStore, APieceThatFailsItsCheckIsNamed) {
  auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 2, "bs-corrupt-piece", true);
  const auto& e = file->entry(Grid::kOut, 1, 0);
  const uint64_t at = e.offset + format::part_positions(e.part_bytes).at[format::kNeighbors] +
                      (e.edge_count / 2) * e.id_bytes;
  {
    const int fd = ::open(file->path().c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    const std::vector<unsigned char> ones(e.id_bytes,
                                          0xff);  // the largest local id: outside any column here
    ASSERT_EQ(::pwrite(fd, ones.data(), ones.size(), static_cast<off_t>(at)),
              static_cast<ssize_t>(ones.size()));
    ::close(fd);
  }
  GraphView<uint32_t, NoWeight> g(file);
  CopyingStore store(file, {.buffers = 3, .buffer_bytes = kPieceBuffer, .depth = 2});
  ASSERT_FALSE(store.pieces({Grid::kOut, 1, 0}).empty());
  Engine engine(
      g,
      EngineOptions{.direction = Direction::kPush, .schedule = Schedule::kBlock, .store = &store});
  try {
    run_pagerank(engine, PageRankOptions{});
    FAIL() << "a corrupted piece was used";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("out-grid block (row 1, column 0)"), std::string::npos) << message;
    EXPECT_NE(message.find("piece "), std::string::npos) << message;
    EXPECT_NE(message.find("outside its"), std::string::npos) << message;
  }
}

// The file tier reads the graph through a descriptor opened with O_DIRECT (no page cache), and
// its reads are whole 4 KiB units: bytes moved are a multiple of 4096 and at least the blocks'.
TEST(FileStore, ReadsWithODirectInWholePages) {
  if (!UringTransfer::built()) GTEST_SKIP() << "built without io_uring";
  auto file = kronecker_graph(12, false, GeneratedWeights::kNone, 4, "bs-odirect", true);
  GraphView<uint32_t, NoWeight> g(file);
  Engine reference(g, EngineOptions{});
  // From the hub (vertex 0, linked to all): its row spans pieces, which are read whole; a
  // source without arcs would read nothing at all.
  const auto expected = run_bfs(reference, 0, false).ints;
  CopyingStore store(file, {.buffers = 4, .buffer_bytes = 2048, .depth = 4},
                     std::make_unique<UringTransfer>(file->path(), 16));
  EXPECT_EQ(store.name(), "file");
  bool direct = false;  // an open descriptor of the graph file with O_DIRECT set
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (std::filesystem::read_symlink(fd.path(), ec) != std::filesystem::canonical(file->path()))
      continue;
    std::ifstream info("/proc/self/fdinfo/" + fd.path().filename().string());
    std::string key;
    unsigned long flags = 0;
    while (info >> key)
      if (key == "flags:") info >> std::oct >> flags;
    direct = direct || (flags & O_DIRECT) != 0;
  }
  EXPECT_TRUE(direct);
  Engine engine(g, EngineOptions{.schedule = Schedule::kBlock, .store = &store});
  EXPECT_EQ(run_bfs(engine, 0, false).ints, expected);
  const StoreCounters c = store.counters();
  EXPECT_GT(c.requests, 0u);
  EXPECT_EQ(c.bytes % UringTransfer::kAlignment, 0u);
  EXPECT_GT(store.blocks_in_pieces(), 0u);
}

}  // namespace
}  // namespace tg

namespace tg {
namespace {

// Half the blocks resident (mapped), half fetched (copying, shuffled completion): every
// algorithm gives the in-memory answer, and the copying tier read exactly what was routed to it.
TEST(CompositeStore, MixedTiersGiveTheInMemoryAnswer) {
  for (bool undirected : {false, true}) {
    auto file = kronecker_graph(10, undirected, GeneratedWeights::kInteger, 4,
                                undirected ? "bs-mixed-u" : "bs-mixed-d");
    GraphView<uint32_t, int32_t> g(file);
    const auto place = [](const BlockId& b) { return size_t{(b.major + b.minor) % 2}; };
    for (Schedule schedule : {Schedule::kBlock, Schedule::kVertex}) {
      for_each_kernel([&](const auto& kernel) {
        KernelArgs args;
        args.source = 1;
        args.sources = sampled_sources(g, 64, 7);
        Engine reference(g, EngineOptions{});
        const AlgorithmResult expected = kernel.run(reference, args);
        MappedStore mapped(g.grid(Grid::kOut), g.grid(Grid::kIn), g.blocks_per_side());
        CopyingStore copying(
            file, {.buffers = 2 * 16,
                   .depth = 2,
                   .completion = CopyingStoreOptions::Completion::kShuffled,
                   .with_weights = true});  // a weighted view reads weights in every kernel
        CompositeStore mixed({&mapped, &copying}, place);
        Engine engine(g, EngineOptions{.schedule = schedule, .store = &mixed});
        const AlgorithmResult r = kernel.run(engine, args);
        const std::string what = fmt::format("{}, {}, {}", kernel.name, schedule_name(schedule),
                                             undirected ? "undirected" : "directed");
        expect_same_answer(r, expected, what);
        EXPECT_GT(mixed.routed()[0], 0u) << what;
        EXPECT_GT(mixed.routed()[1], 0u) << what;
        EXPECT_EQ(copying.counters().leases, mixed.routed()[1])
            << what;  // each routed entry read once
        EXPECT_LE(copying.counters().blocks, copying.counters().leases) << what;
        EXPECT_FALSE(mixed.zero_copy());
      });
    }
  }
}

// A fetched block that fails its check cancels the pass even while other tasks read resident
// blocks and wait on fetched ones across both tiers.
TEST(CompositeStore, ABadFetchedBlockIsNamedAndEndsThePass) {
  auto file = kronecker_graph(11, false, GeneratedWeights::kNone, 4, "bs-mixed-corrupt");
  ASSERT_NO_FATAL_FAILURE(flip_neighbour_byte(*file, 3, 0, 0x10));
  GraphView<uint32_t, NoWeight> g(file);
  MappedStore mapped(g.grid(Grid::kOut), g.grid(Grid::kIn), g.blocks_per_side());
  CopyingStore copying(file, {.buffers = 2, .depth = 2, .delay_seconds = 0.001});
  CompositeStore mixed({&mapped, &copying}, [](const BlockId& b) { return size_t{b.major >= 2}; });
  Engine engine(
      g,
      EngineOptions{.direction = Direction::kPush, .schedule = Schedule::kBlock, .store = &mixed});
  try {
    run_pagerank(engine, PageRankOptions{});
    FAIL() << "a corrupted block was used";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("out-grid block (row 3, column 0)"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace tg
