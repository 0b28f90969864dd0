// The engine's primitives one by one, each against a plain serial computation: vertex arrays and
// their scopes, reductions, selection, combines at an index, pointer jumping and linking, bins,
// collect, and the two-phase pass.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "algorithms/bfs.h"
#include "engine/cpu/engine.h"
#include "engine/mpi/sliced_push.h"
#include "test_graphs.h"

namespace tg {
namespace {

using testing::kronecker_graph;

class EnginePrimitives : public ::testing::TestWithParam<int> {  // threads
 protected:
  void SetUp() override { omp_set_num_threads(GetParam()); }
  void TearDown() override { omp_set_num_threads(2); }
  // Small work still runs in parallel here, so the tests exercise the threaded paths.
  EngineOptions options_{.serial_work = 0};
  std::shared_ptr<const GraphFile> file_ =
      kronecker_graph(12, true, GeneratedWeights::kNone, 1, "prim12");
};

static_assert(std::is_trivially_copyable_v<VertexArray<double>>);
static_assert(sizeof(VertexArray<uint32_t>) == 3 * sizeof(uint64_t),
              "a view is pointer, first id, size");
static_assert(std::is_trivially_copyable_v<BfsProgram<uint32_t>>);
static_assert(VertexProgram<BfsProgram<uint32_t>, uint32_t, NoWeight>);

TEST_P(EnginePrimitives, VertexArraysInitCopyAndScope) {
  with_unweighted_view(file_, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    Engine engine(g, options_);
    const uint64_t n = g.num_vertices();
    {
      auto scope = engine.scope();
      auto sevens = engine.vertex_array(int64_t{7});
      auto squares = engine.vertex_array_from([](Id v) { return uint64_t{v} * v; });
      auto copied = engine.copy(squares);
      EXPECT_EQ(sevens.size(), n);
      EXPECT_EQ(engine.vertex_bytes(), n * (8 + 8 + 8));
      for (uint64_t v = 0; v < n; ++v) {
        ASSERT_EQ(sevens[v], 7);
        ASSERT_EQ(squares[v], v * v);
        ASSERT_EQ(copied[v], v * v);
      }
      copied[3] = 1;
      EXPECT_EQ(squares[3], 9u) << "a copy is its own storage";
      EXPECT_TRUE(engine.update(copied, 3, uint64_t{1}) == false);
      EXPECT_TRUE(engine.update(copied, 3, uint64_t{2}));
      EXPECT_EQ(copied[3], 2u);
      EXPECT_EQ(engine.collect(copied, [](uint64_t x) { return x + 1; })[4], 17u);
      const auto values = engine.collect(squares);
      EXPECT_EQ(values.size(), n);
      EXPECT_EQ(values[9], 81u);
      EXPECT_EQ(engine.vertex_bytes(), n * 8) << "collecting consumes an array";
      EXPECT_THROW(engine.collect(squares), std::logic_error);
    }
    EXPECT_EQ(engine.vertex_bytes(), 0u) << "the scope frees what was made inside it";
    EXPECT_EQ(engine.peak_vertex_bytes(), n * 24);
  });
}

TEST_P(EnginePrimitives, ReductionsMatchSerial) {
  with_unweighted_view(file_, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    Engine engine(g, options_);
    uint64_t degree_sum = 0, max_degree = 0, min_degree = ~uint64_t{0}, odd = 0;
    for (uint64_t v = 0; v < g.num_vertices(); ++v) {
      degree_sum += g.out_degree(v);
      max_degree = std::max(max_degree, g.out_degree(v));
      min_degree = std::min(min_degree, g.out_degree(v));
      odd += v % 2;
    }
    EXPECT_EQ(engine.reduce(SumOp<uint64_t>{}, [&](Id v) { return g.out_degree(v); }), degree_sum);
    EXPECT_EQ(engine.reduce(MaxOp<uint64_t>{}, [&](Id v) { return g.out_degree(v); }), max_degree);
    EXPECT_EQ(engine.reduce(MinOp<uint64_t>{}, [&](Id v) { return g.out_degree(v); }), min_degree);
    const auto pair = engine.reduce(SumOp<Pair<double>>{}, [&](Id v) {
      return Pair<double>{1.0, v % 2 ? 1.0 : 0.0};
    });
    EXPECT_EQ(pair.first, static_cast<double>(g.num_vertices()));
    EXPECT_EQ(pair.second, static_cast<double>(odd));
    EXPECT_EQ(engine.reduce(OrOp<uint64_t>{}, [&](Id v) { return uint64_t{1} << (v % 64); }),
              ~uint64_t{0});
  });
}

TEST_P(EnginePrimitives, SelectVisitsOnlyItsInput) {
  with_unweighted_view(file_, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    Engine engine(g, options_);
    auto multiples_of_3 = engine.select(engine.all(), [](Id v) { return v % 3 == 0; });
    uint64_t expected_edges = 0, expected_size = 0;
    for (uint64_t v = 0; v < g.num_vertices(); v += 3)
      expected_edges += g.out_degree(v), ++expected_size;
    EXPECT_EQ(multiples_of_3.size(), expected_size);
    EXPECT_EQ(multiples_of_3.out_edges(), expected_edges);
    // From a set: keep() runs once per member and never on anything else (O(|input|)).
    std::atomic<uint64_t> calls{0};
    auto multiples_of_6 = engine.select(multiples_of_3, [&](Id v) {
      calls.fetch_add(1, std::memory_order_relaxed);
      EXPECT_EQ(v % 3, 0u);
      return v % 2 == 0;
    });
    EXPECT_EQ(calls.load(), expected_size);
    std::set<Id> got(multiples_of_6.list().begin(), multiples_of_6.list().end());
    EXPECT_EQ(got.size(), multiples_of_6.size()) << "each member once";
    for (uint64_t v = 0; v < g.num_vertices(); ++v)
      ASSERT_EQ(got.count(static_cast<Id>(v)), v % 6 == 0 ? 1u : 0u);
    // for_each over a set touches exactly its members.
    auto marks = engine.vertex_array(uint8_t{0});
    engine.for_each(multiples_of_6, [&](Id v) { marks[v] = 1; });
    for (uint64_t v = 0; v < g.num_vertices(); ++v) ASSERT_EQ(marks[v], v % 6 == 0 ? 1 : 0);
  });
}

TEST_P(EnginePrimitives, CombineAtFromEveryThread) {
  with_unweighted_view(file_, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    Engine engine(g, options_);
    auto low = engine.vertex_array(MinOp<uint64_t>::identity());
    auto total = engine.vertex_array(uint64_t{0});
    auto bits = engine.vertex_array(uint64_t{0});
    // Every vertex combines into vertex 5 at once.
    engine.for_each([&](Id v) {
      engine.combine_at(MinOp<uint64_t>{}, low, 5, uint64_t{v} + 100);
      engine.combine_at(SumOp<uint64_t>{}, total, 5, uint64_t{1});
      engine.combine_at(OrOp<uint64_t>{}, bits, 5, uint64_t{1} << (v % 64));
    });
    EXPECT_EQ(low[5], 100u);
    EXPECT_EQ(total[5], g.num_vertices());
    EXPECT_EQ(bits[5], ~uint64_t{0});
    EXPECT_FALSE(engine.combine_at(MinOp<uint64_t>{}, low, 5, uint64_t{200}))
        << "no change, no report";
  });
}

TEST_P(EnginePrimitives, LinkRootAndCompressGiveComponents) {
  with_unweighted_view(file_, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    Engine engine(g, options_);
    const uint64_t n = g.num_vertices();
    std::mt19937_64 rng(3);
    std::vector<std::pair<Id, Id>> edges;
    for (int k = 0; k < 3000; ++k)
      edges.emplace_back(static_cast<Id>(rng() % n), static_cast<Id>(rng() % n));
    auto parent = engine.vertex_array_from([](Id v) { return v; });
    engine.for_each([&](Id k) {  // edges linked concurrently
      if (k < edges.size()) engine.link(parent, edges[k].first, edges[k].second);
    });
    engine.compress(parent);
    // Serial union-find with the least member as root.
    std::vector<uint64_t> up(n);
    std::iota(up.begin(), up.end(), 0);
    auto find = [&](uint64_t x) {
      while (up[x] != x) x = up[x] = up[up[x]];
      return x;
    };
    for (auto [a, b] : edges) {
      const uint64_t x = find(a), y = find(b);
      if (x != y) up[std::max(x, y)] = std::min(x, y);
    }
    for (uint64_t v = 0; v < n; ++v) {
      ASSERT_EQ(parent[v], find(v)) << "vertex " << v;
      ASSERT_EQ(engine.root(parent, static_cast<Id>(v)), find(v));
    }
  });
}

TEST_P(EnginePrimitives, BinsGiveLowestBinFirstEachVertexOnceAndDropStaleEntries) {
  with_unweighted_view(file_, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    Engine engine(g, options_);
    const uint64_t n = g.num_vertices();
    auto key =
        engine.vertex_array_from([&](Id v) { return static_cast<uint64_t>((v * 7919) % 13); });
    auto bins = engine.bins();
    // Every vertex inserted twice (duplicates), then a third of them moved to a lower bin.
    engine.to_bins(bins, engine.all(), [&](Id v) { return key[v]; });
    engine.to_bins(bins, engine.all(), [&](Id v) { return key[v]; });
    std::map<uint64_t, std::set<Id>> expected;
    for (uint64_t v = 0; v < n; ++v) {
      if (v % 3 == 0 && key[v] > 0) {
        key[v] = key[v] - 1;
        engine.to_bins(bins, engine.frontier_of(v), [&](Id u) { return key[u]; });
      }
      expected[key[v]].insert(static_cast<Id>(v));
    }
    uint64_t previous = 0;
    size_t taken = 0;
    for (auto set = engine.next_bin(bins, [&](Id v) { return key[v]; }); !set.empty();
         set = engine.next_bin(bins, [&](Id v) { return key[v]; })) {
      const uint64_t b = bins.current();
      EXPECT_GE(b, previous) << "bins come out in increasing order";
      previous = b;
      std::set<Id> got(set.list().begin(), set.list().end());
      EXPECT_EQ(got.size(), set.size()) << "each vertex once";
      EXPECT_EQ(got, expected[b]) << "bin " << b << ": exactly the vertices whose key names it";
      ++taken;
    }
    EXPECT_EQ(taken, expected.size());
  });
}

// The two-phase pass: after combine_pass the targets hold the messages but apply has not run;
// apply_pass then gives the same next frontier as the fused pass.
TEST_P(EnginePrimitives, TwoPhasePassEqualsFusedPass) {
  with_unweighted_view(file_, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    for (Direction d : {Direction::kPush, Direction::kPull}) {
      Engine engine(g, EngineOptions{.direction = d, .serial_work = 0});
      auto run_level = [&](bool two_phase, std::vector<int64_t>& depth_before_apply) {
        auto scope = engine.scope();
        BfsTreeProgram<Id> bfs{engine.vertex_array(BfsTreeProgram<Id>::kNone),
                               engine.vertex_array(kUnreached), 0};
        engine.set(bfs.parent, 0, Id{0});
        engine.set(bfs.depth, 0, int64_t{0});
        auto level1 = engine.edge_pass(bfs, engine.frontier_of(0));
        bfs.level = 1;
        Frontier<Id> level2 = engine.all();
        if (two_phase) {
          auto changed = engine.combine_pass(bfs, level1);
          depth_before_apply = engine.collect(engine.copy(bfs.depth));
          level2 = engine.apply_pass(bfs, std::move(changed));
        } else {
          level2 = engine.edge_pass(bfs, level1);
        }
        return std::make_pair(std::set<Id>(level2.list().begin(), level2.list().end()),
                              engine.collect(bfs.depth));
      };
      std::vector<int64_t> unused, before_apply;
      const auto fused = run_level(false, unused);
      const auto phased = run_level(true, before_apply);
      EXPECT_EQ(fused.first, phased.first) << direction_name(d);
      EXPECT_EQ(fused.second, phased.second) << direction_name(d);
      ASSERT_FALSE(phased.first.empty());
      for (Id v : phased.first)
        EXPECT_EQ(before_apply[v], kUnreached) << "apply ran before apply_pass";
    }
  });
}

// Counts the messages each vertex receives: its in-arcs from the frontier.
template <typename Id>
struct CountMessages {
  using Op = SumOp<uint64_t>;
  VertexArray<uint64_t> count;
  uint64_t source_value(Id) const { return 1; }
  template <typename W>
  uint64_t message(uint64_t one, W) const {
    return one;
  }
  VertexArray<uint64_t> target() const { return count; }
  bool apply(Id) const { return false; }
};

// A pass that names a few targets pulls over them alone (the bitmap's empty words skipped) and
// gives every named target exactly its messages, as push and a plain pull do; the rule keeps
// pushing where the targets have far more arcs than the frontier.
TEST_P(EnginePrimitives, APassIntoFewTargetsPullsOverThemAloneAndCountsAsPushDoes) {
  auto directed = kronecker_graph(12, false, GeneratedWeights::kNone, 1, "fewtargets12");
  with_unweighted_view(directed, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    const uint64_t n = g.num_vertices();
    // A few targets: every 97th vertex, a run inside one word, and both ends of the id range.
    const auto few = [n](uint64_t v) { return v % 97 == 0 || (v >= 64 && v < 70) || v + 1 == n; };
    const auto many = [few](uint64_t v) { return !few(v); };
    for (bool into_few : {true, false}) {
      const auto in_frontier = [&](uint64_t u) { return into_few ? u % 2 == 0 : few(u); };
      const auto is_target = [&](uint64_t v) { return into_few ? few(v) : many(v); };
      std::vector<uint64_t> want(n, 0);
      Engine serial(g, options_);
      std::vector<std::atomic<uint64_t>> counted(n);
      serial.for_each_stored_arc(false, [&](uint64_t u, Id v) {
        if (in_frontier(u) && is_target(v)) counted[v].fetch_add(1, std::memory_order_relaxed);
      });
      for (uint64_t v = 0; v < n; ++v) want[v] = counted[v].load();
      ASSERT_GT(std::accumulate(want.begin(), want.end(), uint64_t{0}), 100u);
      for (Direction d : {Direction::kAuto, Direction::kPush, Direction::kPull}) {
        Engine engine(g, EngineOptions{.direction = d, .serial_work = 0});
        auto scope = engine.scope();
        const CountMessages<Id> program{engine.vertex_array(uint64_t{0})};
        const auto frontier = engine.select(engine.all(), [&](Id u) { return in_frontier(u); });
        const auto targets = engine.select(engine.all(), [&](Id v) { return is_target(v); });
        engine.edge_pass(program, frontier, {.targets = &targets});
        EXPECT_EQ(engine.collect(program.count), want)
            << direction_name(d) << (into_few ? " into few targets" : " into many");
        if (d == Direction::kAuto) {
          EXPECT_EQ(engine.stats().back().direction, into_few ? Direction::kPull : Direction::kPush)
              << (into_few ? "into few targets" : "into many");
        }
      }
    }
  });
}

// A min-label program whose later sources carry smaller labels: a vertex that an early slice
// reaches is improved by a later one.
template <typename Id>
struct FallingLabel {
  using Op = MinOp<uint64_t>;
  VertexArray<uint64_t> label;
  uint64_t n = 0;
  Id source_value(Id u) const { return u; }
  template <typename W>
  uint64_t message(Id u, W) const {
    return n - u;
  }
  VertexArray<uint64_t> target() const { return label; }
  bool apply(Id) const { return true; }
};

// A sliced push pass on an engine that masters half the vertices (a rank's share) combines what
// the whole pass combines; the masters it changed stay listed for apply_pass; every other vertex
// it changed is handed on, again after any later slice improves it, and the last value handed
// on is the vertex's final value (what its owner must receive).
TEST_P(EnginePrimitives, SlicedPushHandsOnOtherVerticesUntilTheirLastChange) {
  with_unweighted_view(file_, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    const uint64_t n = g.num_vertices(), half = n / 2 / 64 * 64;
    EngineOptions o = options_;
    o.direction = Direction::kPush;
    o.owned = {0, half};
    auto run = [&](size_t slices, std::map<Id, std::vector<uint64_t>>& handed, std::set<Id>& kept) {
      Engine engine(g, o);
      auto scope = engine.scope();
      FallingLabel<Id> program{engine.vertex_array(MinOp<uint64_t>::identity()), n};
      Changed<Id> c;
      if (slices == 0) {
        c = engine.combine_pass(program, engine.all());
      } else {
        dist::SlicedPush sliced(engine);
        c = sliced.combine_in_slices(program, engine.all(), {}, slices,
                                     [&](const std::vector<Id>& others) {
                                       for (Id v : others) handed[v].push_back(program.label[v]);
                                     });
      }
      for (const auto& list : c.lists) kept.insert(list.begin(), list.end());
      engine.apply_pass(program, std::move(c));
      return engine.collect(program.label);
    };
    std::map<Id, std::vector<uint64_t>> unused, handed;
    std::set<Id> whole_pass, kept;
    const auto want = run(0, unused, whole_pass);
    const auto got = run(8, handed, kept);
    EXPECT_EQ(got, want) << "the same values everywhere";
    std::set<Id> masters_changed, others_changed;
    for (Id v : whole_pass) (v < half ? masters_changed : others_changed).insert(v);
    EXPECT_EQ(kept, masters_changed) << "only masters stay for apply_pass";
    ASSERT_FALSE(others_changed.empty());
    std::set<Id> handed_set;
    size_t twice = 0;
    for (const auto& [v, values] : handed) {
      handed_set.insert(v);
      EXPECT_EQ(values.back(), want[v])
          << "vertex " << v << ": its last value handed on is its final value";
      twice += values.size() > 1;
    }
    EXPECT_EQ(handed_set, others_changed) << "every other vertex changed is handed on";
    EXPECT_GT(twice, 0u) << "a vertex improved by a later slice is handed on again";
  });
}

// A program that sums its sources' values (u + 1) into its targets.
template <typename Id>
struct ValueSum {
  using Op = SumOp<uint64_t>;
  VertexArray<uint64_t> values;
  VertexArray<uint64_t> sums;
  uint64_t source_value(Id u) const { return values[u]; }
  template <typename W>
  uint64_t message(uint64_t s, W) const {
    return s;
  }
  VertexArray<uint64_t> target() const { return sums; }
  bool apply(Id) const { return false; }
};

// gather_then: then(v, gathered) runs once per vertex with the sum of every message into v, its
// values reduce, and the target holds the identity after as before. Pushed, pulled vertex-major
// (then() inside the pull) and pulled block-major (then() after it).
TEST_P(EnginePrimitives, GatherThenHandsEachVertexItsWholeSumOnce) {
  with_unweighted_view(file_, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    const uint64_t n = g.num_vertices();
    std::vector<uint64_t> want(n, 0);
    g.for_each_arc([&](uint64_t u, uint64_t v, auto) { want[v] += u + 1; });
    uint64_t total = 0;
    for (const uint64_t x : want) total += x;
    for (const auto& [direction, schedule] : {std::pair{Direction::kPush, Schedule::kVertex},
                                              std::pair{Direction::kPull, Schedule::kVertex},
                                              std::pair{Direction::kPull, Schedule::kBlock}}) {
      EngineOptions o = options_;
      o.direction = direction;
      o.schedule = schedule;
      Engine engine(g, o);
      auto scope = engine.scope();
      ValueSum<Id> program{engine.vertex_array_from([](Id u) { return uint64_t{u} + 1; }),
                           engine.vertex_array(uint64_t{0})};
      auto seen = engine.vertex_array(uint64_t{0});
      auto calls = engine.vertex_array(uint64_t{0});
      const uint64_t sum = engine.gather_then(SumOp<uint64_t>{}, program, [&](Id v, uint64_t got) {
        seen[v] = got;
        ++calls[v];
        return got;
      });
      const char* how = direction == Direction::kPush   ? " (push)"
                        : schedule == Schedule::kVertex ? " (pull, fused)"
                                                        : " (pull, block-major)";
      EXPECT_EQ(sum, total) << how;
      for (uint64_t v = 0; v < n; ++v) {
        ASSERT_EQ(calls[v], 1u) << "vertex " << v << how;
        ASSERT_EQ(seen[v], want[v]) << "vertex " << v << how;
        ASSERT_EQ(program.sums[v], 0u) << "vertex " << v << ": the target is back to 0" << how;
      }
    }
  });
}

// Slices of a block-major push pass are runs of whole block rows: the sources grouped by row in
// row order, every cut on a row boundary, so no block row is read by two slices; vertex-major
// slices keep the frontier's order.
TEST_P(EnginePrimitives, BlockMajorSlicesAreRunsOfWholeRows) {
  const auto file = kronecker_graph(12, true, GeneratedWeights::kNone, 8, "prim12x8");
  with_unweighted_view(file, [&](const auto& g) {
    using Id = typename std::decay_t<decltype(g)>::IdType;
    Engine engine(g, options_);
    dist::SlicedPush sliced(engine);
    std::vector<Id> list(g.num_vertices());
    std::iota(list.begin(), list.end(), Id{0});
    std::shuffle(list.begin(), list.end(), std::mt19937(5));
    list.resize(list.size() / 2);  // a frontier of half the vertices, in no order
    for (size_t slices : {1, 3, 5, 8, 40}) {
      const auto [grouped, cuts] = sliced.slice_sources(list, slices, Schedule::kBlock);
      EXPECT_TRUE(std::is_permutation(grouped.begin(), grouped.end(), list.begin(), list.end()));
      ASSERT_GE(cuts.size(), 2u);
      EXPECT_LE(cuts.size() - 1, std::min<size_t>(slices, g.blocks_per_side()));
      EXPECT_EQ(cuts.front(), 0u);
      EXPECT_EQ(cuts.back(), grouped.size());
      for (size_t k = 1; k < grouped.size(); ++k)
        ASSERT_LE(g.range_of(grouped[k - 1]), g.range_of(grouped[k])) << "grouped by row";
      for (size_t k = 1; k + 1 < cuts.size(); ++k) {
        EXPECT_LT(g.range_of(grouped[cuts[k] - 1]), g.range_of(grouped[cuts[k]]))
            << "slice " << k << " starts a row";
      }
      const auto [same, vertex_cuts] = sliced.slice_sources(list, slices, Schedule::kVertex);
      EXPECT_EQ(same, list);
      EXPECT_EQ(vertex_cuts.size() - 1, std::min(slices, list.size()));
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Threads, EnginePrimitives, ::testing::Values(1, 2, 4));

}  // namespace
}  // namespace tg
