// The engine gives one answer whatever the direction, the thread count and the block grid; and
// each verifier rejects a corrupted result.
#include "engine/cpu/engine.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>

#include "algorithms/sources.h"
#include "engine/degree_ranking.h"
#include "engine/mpi/master_lists.h"
#include "run/kernels.h"
#include "store/copying_store.h"
#include "test_graphs.h"
#include "test_results.h"

namespace tg {
namespace {

using testing::kronecker_graph;
using testing::uniform_graph;

struct Config {
  Direction direction;
  int threads;
  bool two_phase = false;  // every pass as combine_pass then apply_pass
};

const Config kConfigs[] = {
    {Direction::kAuto, 1},       {Direction::kAuto, 2},       {Direction::kPush, 2},
    {Direction::kPull, 2},       {Direction::kPush, 1},       {Direction::kPull, 1},
    {Direction::kAuto, 2, true}, {Direction::kPush, 2, true}, {Direction::kPull, 2, true}};

// Runs `algo` on every configuration and the given grids and checks every answer equals the first.
template <typename Run>
void expect_same_everywhere(const std::vector<std::shared_ptr<const GraphFile>>& grids, Run run) {
  std::optional<AlgorithmResult> first;
  for (const auto& file : grids) {
    for (const auto& c : kConfigs) {
      omp_set_num_threads(c.threads);
      with_unweighted_view(file, [&](const auto& g) {
        Engine engine(g, EngineOptions{.direction = c.direction, .two_phase = c.two_phase});
        AlgorithmResult r = run(engine);
        if (!first) {
          first = std::move(r);
          return;
        }
        testing::expect_same_answer(
            r, *first,
            fmt::format("direction {} threads {} blocks {}", direction_name(c.direction), c.threads,
                        file->blocks_per_side()));
      });
    }
  }
  omp_set_num_threads(2);
}

class EngineTest : public ::testing::TestWithParam<bool> {  // undirected?
 protected:
  void SetUp() override {
    const bool undirected = GetParam();
    const std::string tag = undirected ? "u" : "d";
    for (uint32_t p : {1u, 4u, 64u}) {  // 64 is capped at the 32 ranges 2048 vertices allow
      grids_.push_back(kronecker_graph(11, undirected, GeneratedWeights::kNone, p,
                                       "kron11" + tag + std::to_string(p)));
    }
  }
  std::vector<std::shared_ptr<const GraphFile>> grids_;
};

TEST_P(EngineTest, BfsSameEverywhereAndVerified) {
  expect_same_everywhere(grids_, [](auto& engine) {
    auto r = run_bfs(engine, 1, false);
    EXPECT_TRUE(verify_bfs(engine.graph(), 1, r).ok);
    return r;
  });
}

TEST_P(EngineTest, WccSameEverywhereAndVerified) {
  expect_same_everywhere(grids_, [](auto& engine) {
    auto r = run_wcc(engine);
    EXPECT_TRUE(verify_wcc(engine.graph(), r).ok);
    return r;
  });
}

TEST_P(EngineTest, PageRankSameEverywhereAndVerified) {
  expect_same_everywhere(grids_, [](auto& engine) {
    PageRankOptions o;
    auto r = run_pagerank(engine, o);
    EXPECT_TRUE(verify_pagerank(engine.graph(), o, r).ok);
    return r;
  });
}

TEST_P(EngineTest, RadiiSameEverywhereAndVerified) {
  expect_same_everywhere(grids_, [](auto& engine) {
    const auto sources = sampled_sources(engine.graph(), 64, 7);
    auto r = run_radii(engine, sources);
    EXPECT_TRUE(verify_radii(engine.graph(), sources, r).ok);
    return r;
  });
}

TEST_P(EngineTest, UnitWeightSsspEqualsBfs) {
  expect_same_everywhere(grids_, [](auto& engine) {
    auto r = run_sssp(engine, 1, int64_t{1});
    EXPECT_TRUE(verify_sssp(engine.graph(), 1, r).ok);
    auto b = run_bfs(engine, 1, false);
    EXPECT_EQ(r.ints, b.ints);
    return r;
  });
}

TEST_P(EngineTest, BetweennessSameEverywhereAndVerified) {
  expect_same_everywhere(grids_, [](auto& engine) {
    const auto sources = sampled_sources(engine.graph(), 5, 3);
    auto r = run_bc(engine, sources);
    const Verdict v = verify_bc(engine.graph(), sources, r);
    EXPECT_TRUE(v.ok) << v.message;
    return r;
  });
}

// A pass against the arcs (kReversed): each vertex takes the least id among the heads of its
// out-arcs, which the in-arcs of those heads carry back; checked against the stored arcs.
template <typename Id>
struct LeastHeadProgram {
  using Op = MinOp<Id>;
  static constexpr bool kReversed = true;
  VertexArray<Id> least;
  TG_HOST_DEVICE Id source_value(Id v) const { return v; }
  TG_HOST_DEVICE Id message(Id v, auto) const { return v; }
  TG_HOST_DEVICE VertexArray<Id> target() const { return least; }
  TG_HOST_DEVICE bool apply(Id) const { return true; }
};

TEST_P(EngineTest, ReversedPassFollowsArcsBackwards) {
  expect_same_everywhere(grids_, [](auto& engine) {
    using Id = typename std::decay_t<decltype(engine)>::VertexId;
    const auto& g = engine.graph();
    std::vector<int64_t> want(g.num_vertices(), std::numeric_limits<int64_t>::max());
    g.for_each_arc([&](uint64_t u, uint64_t v, auto) {
      want[u] = std::min(want[u], static_cast<int64_t>(v));
    });
    auto scope = engine.scope();
    const LeastHeadProgram<Id> program{engine.vertex_array(MinOp<Id>::identity())};
    engine.edge_pass(program, engine.all());
    AlgorithmResult r(engine.collect(program.least, [](Id x) {
      return x == MinOp<Id>::identity() ? std::numeric_limits<int64_t>::max()
                                        : static_cast<int64_t>(x);
    }));
    EXPECT_EQ(r.ints, want);
    return r;
  });
}

TEST_P(EngineTest, TriangleCountSameEverywhereAndVerified) {
  expect_same_everywhere(grids_, [](auto& engine) {
    auto r = run_tc(engine);
    EXPECT_TRUE(verify_tc(engine.graph(), r).ok);
    EXPECT_GT(r.summary["triangles"].template get<uint64_t>(), 0u);
    return r;
  });
}

// Verified once (the others must equal the first answer: the coefficients are one division of
// integers, the same double on every setup).
TEST_P(EngineTest, ClusteringSameEverywhereAndVerified) {
  bool verified = false;
  expect_same_everywhere(grids_, [&](auto& engine) {
    auto r = run_lcc(engine);
    if (!verified) {
      const Verdict verdict = verify_lcc(engine.graph(), r);
      EXPECT_TRUE(verdict.ok) << verdict.message;
      EXPECT_GT(r.summary["average"].template get<double>(), 0.0);
      verified = true;
    }
    return r;
  });
}

TEST_P(EngineTest, LabelPropagationSameEverywhereAndVerified) {
  bool verified = false;
  expect_same_everywhere(grids_, [&](auto& engine) {
    auto r = run_cdlp(engine, kDefaultCdlpRounds);
    if (!verified) {
      const Verdict verdict = verify_cdlp(engine.graph(), kDefaultCdlpRounds, r);
      EXPECT_TRUE(verdict.ok) << verdict.message;
      verified = true;
    }
    return r;
  });
}

// The gather pass hands each vertex its own value and its neighbours' in the undirected view,
// one per stored arc at it (a directed graph's in- and out-arcs), self-loops left out, from the
// last round only; over the mapped file and over a copying store of two buffers (the lists
// built from blocks leased one at a time), on each grid and thread count.
TEST_P(EngineTest, GatherRoundsSeeEachArcAtBothEnds) {
  const std::string tag = GetParam() ? "u" : "d";
  for (const auto& file :
       {kronecker_graph(8, GetParam(), GeneratedWeights::kNone, 1, "ga8k1" + tag),
        kronecker_graph(8, GetParam(), GeneratedWeights::kNone, 4, "ga8k4" + tag)}) {
    with_unweighted_view(file, [&](const auto& g) {
      using Id = typename std::decay_t<decltype(g)>::IdType;
      const uint64_t n = g.num_vertices();
      // Round one: a vertex's sum of its neighbours' ids, one per arc; round two: of their sums.
      std::vector<int64_t> once(n, 0), twice(n, 0);
      std::vector<std::vector<uint64_t>> near(n);
      g.for_each_arc([&](uint64_t u, uint64_t v, auto) {
        if (u == v) return;
        near[u].push_back(v);
        if (g.directed()) near[v].push_back(u);
      });
      for (uint64_t v = 0; v < n; ++v)
        for (uint64_t u : near[v]) once[v] += static_cast<int64_t>(u);
      for (uint64_t v = 0; v < n; ++v)
        for (uint64_t u : near[v]) twice[v] += once[u];
      for (int threads : {1, 2, 4}) {
        for (bool copying : {false, true}) {
          omp_set_num_threads(threads);
          CopyingStore store(file, {.buffers = 2});
          Engine engine(g, EngineOptions{.store = copying ? &store : nullptr});
          auto scope = engine.scope();
          const std::string where = fmt::format("threads {} blocks {} copying {}", threads,
                                                file->blocks_per_side(), copying);
          for (uint32_t rounds : {1u, 2u}) {
            auto values = engine.vertex_array_from([](Id v) { return static_cast<int64_t>(v); });
            // The sum, or -1 where the values did not come sorted, as the contract says.
            engine.gather_rounds(values, rounds, [](int64_t, std::span<const int64_t> near_values) {
              if (!std::is_sorted(near_values.begin(), near_values.end())) return int64_t{-1};
              return std::accumulate(near_values.begin(), near_values.end(), int64_t{0});
            });
            EXPECT_EQ(engine.collect(values), rounds == 1 ? once : twice) << where;
            EXPECT_EQ(engine.stats().size(), rounds) << where;
            engine.reset_stats();
          }
        }
      }
    });
  }
  omp_set_num_threads(2);
}

// Every triple of a small graph tried: its triangles (in the undirected view, corners sorted),
// how many each vertex is on, and the arcs stored between any two vertices.
struct TrianglesOfTriples {
  template <typename Graph>
  explicit TrianglesOfTriples(const Graph& g) : n(g.num_vertices()), arc(n * n, 0), at(n, 0) {
    g.for_each_arc([&](uint64_t u, uint64_t v, auto) { arc[u * n + v] = 1; });
    for (uint64_t a = 0; a < n; ++a)
      for (uint64_t b = a + 1; b < n; ++b)
        for (uint64_t c = b + 1; c < n && between(a, b); ++c)
          if (between(a, c) && between(b, c)) {
            want.push_back({a, b, c});
            for (uint64_t x : {a, b, c}) ++at[x];
          }
  }
  uint8_t between(uint64_t a, uint64_t b) const {
    return static_cast<uint8_t>(arc[a * n + b] * kArcForward + arc[b * n + a] * kArcBackward);
  }
  int64_t neighbours(uint64_t x) const {
    int64_t k = 0;
    for (uint64_t y = 0; y < n; ++y) k += y != x && between(x, y) != 0;
    return k;
  }
  uint64_t n;
  std::vector<uint8_t> arc;
  std::vector<std::array<uint64_t, 3>> want;
  std::vector<int64_t> at;
};

// The triangle pass against every triple of a small graph: each triangle of the undirected view
// once, with the arcs the file stores between each pair of its corners, and each corner's share
// added to its vertex, on each grid and thread count, over the mapped file and over a copying
// store of two buffers (the lists built from blocks leased one at a time); on a Kronecker graph
// (skewed degrees: the lists are ranked by degree) and a uniform one (ordered by id).
TEST_P(EngineTest, TriangleSumsSeeEachTriangleOnceWithItsArcs) {
  const std::string tag = GetParam() ? "u" : "d";
  for (const auto& file :
       {kronecker_graph(8, GetParam(), GeneratedWeights::kNone, 1, "tri8k1" + tag),
        kronecker_graph(8, GetParam(), GeneratedWeights::kNone, 4, "tri8k4" + tag),
        uniform_graph(8, GetParam(), 1, "tri8u1" + tag),
        uniform_graph(8, GetParam(), 4, "tri8u4" + tag)}) {
    const uint32_t p = file->blocks_per_side();
    with_unweighted_view(file, [&](const auto& g) {
      using Id = typename std::decay_t<decltype(g)>::IdType;
      const uint64_t n = g.num_vertices();
      const TrianglesOfTriples triples(g);
      const auto& want = triples.want;
      const auto& triangles_at = triples.at;
      const auto between = [&](uint64_t a, uint64_t b) { return triples.between(a, b); };
      ASSERT_GT(want.size(), 100u);
      for (int threads : {1, 2, 4}) {
        for (bool copying : {false, true}) {
          omp_set_num_threads(threads);
          CopyingStore store(file, {.buffers = 2});
          Engine engine(g, EngineOptions{.store = copying ? &store : nullptr});
          std::vector<std::array<uint64_t, 3>> got;
          // Shares that tell the roles apart: a vertex's sum counts, in its three digit groups,
          // the triangles it was the first, second and third corner of.
          const auto sums = engine.triangle_sums([&](const Triangle<Id>& t) {
            EXPECT_EQ(t.uv, between(t.u, t.v)) << t.u << " " << t.v;
            EXPECT_EQ(t.uw, between(t.u, t.w)) << t.u << " " << t.w;
            EXPECT_EQ(t.vw, between(t.v, t.w)) << t.v << " " << t.w;
            std::array<uint64_t, 3> c{t.u, t.v, t.w};
            std::sort(c.begin(), c.end());
#pragma omp critical
            got.push_back(c);
            return CornerShares{1, 1000, 1000000};
          });
          std::sort(got.begin(), got.end());
          const std::string where =
              fmt::format("threads {} blocks {} copying {}", threads, p, copying);
          EXPECT_EQ(got, want) << where;
          const std::vector<int64_t> summed = engine.collect(sums);
          int64_t total = 0;
          for (uint64_t x = 0; x < n; ++x) {
            const int64_t s = summed[x];
            total += s;
            EXPECT_EQ(s % 1000 + s / 1000 % 1000 + s / 1000000, triangles_at[x])
                << where << " vertex " << x;
          }
          EXPECT_EQ(total, static_cast<int64_t>(want.size()) * 1001001) << where;
          const std::vector<int64_t> neighbours = engine.collect(engine.neighbour_counts());
          for (uint64_t x = 0; x < n; ++x)
            EXPECT_EQ(neighbours[x], triples.neighbours(x)) << where << " vertex " << x;
          EXPECT_EQ(engine.memory().vertex_state, 0u) << "the pass's lists are freed";
        }
      }
    });
  }
  omp_set_num_threads(2);
}

// Afforest's two passes: sample_pass(0) and sample_pass(1) give each vertex's first two out-arcs
// (one each while it has one, each an arc of the file), and arc_pass(set, 2) the rest of its
// members' arcs in the undirected view (the other out-arcs and, on a directed graph, every
// in-arc, as (member, source)): together each member's arcs once, whatever the grid, the thread
// count or the store (the mapped file, or a copying store of two buffers, whose blocks arrive
// one at a time); with skip 0 over every vertex, every arc of the view.
TEST_P(EngineTest, SampleAndArcPassesVisitEachArcOfTheMembersOnce) {
  const std::string tag = GetParam() ? "u" : "d";
  for (const auto& file :
       {kronecker_graph(9, GetParam(), GeneratedWeights::kNone, 1, "arc9k1" + tag),
        kronecker_graph(9, GetParam(), GeneratedWeights::kNone, 4, "arc9k4" + tag)}) {
    with_unweighted_view(file, [&](const auto& g) {
      using Id = typename std::decay_t<decltype(g)>::IdType;
      using Arc = std::pair<uint64_t, uint64_t>;
      const uint64_t n = g.num_vertices();
      std::vector<Arc> out_arcs,
          view;  // the file's arcs; each vertex's arcs in the undirected view
      g.for_each_arc([&](uint64_t u, uint64_t v, auto) {
        out_arcs.emplace_back(u, v);
        view.emplace_back(u, v);
        if (g.directed()) view.emplace_back(v, u);
      });
      std::sort(out_arcs.begin(), out_arcs.end());
      std::sort(view.begin(), view.end());
      const auto member = [](uint64_t v) { return v % 3 == 1; };
      std::vector<Arc> members_view;
      for (const Arc& a : view)
        if (member(a.first)) members_view.push_back(a);
      ASSERT_GT(members_view.size(), 1000u);
      for (int threads : {1, 2}) {
        for (bool copying : {false, true}) {
          omp_set_num_threads(threads);
          CopyingStore store(file, {.buffers = 2});
          Engine engine(g, EngineOptions{.serial_work = 0, .store = copying ? &store : nullptr});
          const std::string where = fmt::format("threads {} blocks {} copying {}", threads,
                                                file->blocks_per_side(), copying);
          auto into = [](std::vector<Arc>& to) {
            return [&to](Id u, Id v) {
#pragma omp critical
              to.emplace_back(u, v);
            };
          };
          std::vector<Arc> first, second, rest, every;
          engine.sample_pass(0, into(first));
          engine.sample_pass(1, into(second));
          const auto members = engine.select(engine.all(), [&](Id v) { return member(v); });
          engine.arc_pass(members, 2, into(rest));
          engine.arc_pass(engine.all(), 0, into(every));
          std::vector<uint64_t> out_degree(n, 0), firsts(n, 0), seconds(n, 0);
          for (const Arc& a : out_arcs) ++out_degree[a.first];
          for (const Arc& a : first) ++firsts[a.first];
          for (const Arc& a : second) ++seconds[a.first];
          for (uint64_t v = 0; v < n; ++v) {
            ASSERT_EQ(firsts[v], out_degree[v] > 0 ? 1u : 0u) << where << " vertex " << v;
            ASSERT_EQ(seconds[v], out_degree[v] > 1 ? 1u : 0u) << where << " vertex " << v;
          }
          for (const auto* sample : {&first, &second}) {
            for (const Arc& a : *sample) {
              EXPECT_TRUE(std::binary_search(out_arcs.begin(), out_arcs.end(), a)) << where;
              if (member(a.first)) rest.push_back(a);
            }
          }
          std::sort(rest.begin(), rest.end());
          EXPECT_EQ(rest, members_view) << where;
          std::sort(every.begin(), every.end());
          EXPECT_EQ(every, view) << where;
        }
      }
    });
  }
  omp_set_num_threads(2);
}

// The MPI ranks' triangle pass (engine/mpi/master_lists.h), its arithmetic without MPI: the
// vertices split into three ranges, each range's lists built by an engine mastering it (from
// its rows only, over a copying store of two buffers), each pair of ranges' lists merged as the
// ranks' shifts pair them. Every triangle once, its arcs, each corner's share; the neighbour
// counts summed over the ranges.
TEST_P(EngineTest, MasterListsOfSplitRangesSeeEachTriangleOnce) {
  const std::string tag = GetParam() ? "u" : "d";
  for (const auto& file : {kronecker_graph(8, GetParam(), GeneratedWeights::kNone, 4, "mtk" + tag),
                           uniform_graph(8, GetParam(), 1, "mtu" + tag)}) {
    with_unweighted_view(file, [&](const auto& g) {
      using Id = typename std::decay_t<decltype(g)>::IdType;
      const uint64_t n = g.num_vertices();
      const TrianglesOfTriples triples(g);
      ASSERT_GT(triples.want.size(), 100u);
      const DegreeRanking<Id> ranking(
          n, [&](uint64_t v) { return g.out_degree(v) + (g.directed() ? g.in_degree(v) : 0); });
      ASSERT_EQ(n, 256u);
      const std::array<uint64_t, 4> bounds{0, 64, 192, n};  // uneven, in whole bitmap words
      std::vector<MasterLists<Id>> lists;
      for (size_t r = 0; r < 3; ++r) {
        CopyingStore store(file, {.buffers = 2});
        Engine engine(g, EngineOptions{.store = &store, .owned = {bounds[r], bounds[r + 1]}});
        lists.push_back(MasterLists<Id>::build(
            bounds[r], bounds[r + 1], g.directed(), ranking,
            [&](bool in, auto visit) { engine.for_each_stored_arc(in, visit); }));
        lists.back().index_slots(bounds[r], bounds[r + 1], ranking);  // also read as a peer's
      }
      std::vector<std::array<uint64_t, 3>> got;
      std::vector<int64_t> sums(n, 0), neighbours(n, 0);
      for (const auto& near : lists) {
        add_neighbour_counts(near, ranking, neighbours.data());
        for (const auto& far : lists) {
          add_triangles(
              near, far, ranking,
              [&](const Triangle<Id>& t) {
                EXPECT_EQ(t.uv, triples.between(t.u, t.v)) << t.u << " " << t.v;
                EXPECT_EQ(t.uw, triples.between(t.u, t.w)) << t.u << " " << t.w;
                EXPECT_EQ(t.vw, triples.between(t.v, t.w)) << t.v << " " << t.w;
                std::array<uint64_t, 3> c{t.u, t.v, t.w};
                std::sort(c.begin(), c.end());
#pragma omp critical
                got.push_back(c);
                return CornerShares{1, 1000, 1000000};
              },
              sums.data());
        }
      }
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, triples.want);
      for (uint64_t x = 0; x < n; ++x) {
        const int64_t s = sums[x];
        EXPECT_EQ(s % 1000 + s / 1000 % 1000 + s / 1000000, triples.at[x]) << "vertex " << x;
        EXPECT_EQ(neighbours[x], triples.neighbours(x)) << "vertex " << x;
      }
    });
  }
}

INSTANTIATE_TEST_SUITE_P(DirectedAndUndirected, EngineTest, ::testing::Bool());

TEST(EngineTest, AutoDirectionUsesBothOnKronecker) {
  auto file = kronecker_graph(12, true, GeneratedWeights::kNone, 1, "kron12dir");
  with_unweighted_view(file, [&](const auto& g) {
    Engine engine(g, EngineOptions{});
    run_bfs(engine, 0, false);
    bool pushed = false, pulled = false;
    for (const auto& s : engine.stats()) {
      pushed |= s.direction == Direction::kPush;
      pulled |= s.direction == Direction::kPull;
    }
    EXPECT_TRUE(pushed);
    EXPECT_TRUE(pulled);
  });
}

TEST(WeightedSssp, SameEverywhereForIntAndRealWeights) {
  for (auto weights : {GeneratedWeights::kInteger, GeneratedWeights::kReal}) {
    std::vector<std::shared_ptr<const GraphFile>> grids;
    for (uint32_t p : {1u, 4u, 64u}) {
      grids.push_back(kronecker_graph(11, false, weights, p,
                                      "wkron" + std::to_string(int(weights)) + std::to_string(p)));
    }
    std::optional<AlgorithmResult> first;
    for (const auto& file : grids) {
      for (const auto& c : kConfigs) {
        omp_set_num_threads(c.threads);
        with_weighted_view(file, [&](const auto& g) {
          using W = typename std::decay_t<decltype(g)>::WeightType;
          Engine engine(g, EngineOptions{.direction = c.direction, .two_phase = c.two_phase});
          auto r = run_sssp(engine, 3, default_delta<W>(*file));
          EXPECT_TRUE(verify_sssp(g, 3, r).ok);
          if (!first) first = r;
          if (r.real) {
            for (size_t v = 0; v < r.reals.size(); ++v) {
              if (std::isinf(first->reals[v]))
                EXPECT_TRUE(std::isinf(r.reals[v]));
              else
                EXPECT_NEAR(r.reals[v], first->reals[v], 1e-9);
            }
          } else {
            EXPECT_EQ(r.ints, first->ints);
          }
        });
      }
    }
  }
  omp_set_num_threads(2);
}

// ---- verifiers reject corrupted results -----------------------------------------------------

class VerifierTest : public ::testing::Test {
 protected:
  std::shared_ptr<const GraphFile> file_ =
      kronecker_graph(10, true, GeneratedWeights::kInteger, 1, "verify10");
};

TEST_F(VerifierTest, BfsCorruptedDepthFails) {
  with_unweighted_view(file_, [&](const auto& g) {
    Engine engine(g, EngineOptions{});
    auto r = run_bfs(engine, 0, true);
    ASSERT_TRUE(verify_bfs(g, 0, r).ok);
    for (uint64_t v = 1; v < r.ints.size(); ++v) {
      if (r.ints[v] != kUnreached && r.ints[v] > 1) {
        auto bad = r;
        bad.ints[v] += 1;
        EXPECT_FALSE(verify_bfs(g, 0, bad).ok);
        bad = r;
        bad.ints[v] = kUnreached;
        EXPECT_FALSE(verify_bfs(g, 0, bad).ok);
        bad = r;
        bad.parents[v] = static_cast<int64_t>(v);  // a parent that is no tree edge
        EXPECT_FALSE(verify_bfs(g, 0, bad).ok);
        break;
      }
    }
  });
}

TEST_F(VerifierTest, SsspCorruptedDistanceFails) {
  with_weighted_view(file_, [&](const auto& g) {
    using W = typename std::decay_t<decltype(g)>::WeightType;
    Engine engine(g, EngineOptions{});
    auto r = run_sssp(engine, 0, default_delta<W>(*file_));
    ASSERT_TRUE(verify_sssp(g, 0, r).ok);
    for (uint64_t v = 1; v < r.ints.size(); ++v) {
      if (r.ints[v] != kUnreached) {
        auto bad = r;
        bad.ints[v] -= 1;  // too short: no tight edge
        EXPECT_FALSE(verify_sssp(g, 0, bad).ok);
        bad = r;
        bad.ints[v] += 1;  // too long: an edge is not relaxed
        EXPECT_FALSE(verify_sssp(g, 0, bad).ok);
        break;
      }
    }
  });
}

TEST_F(VerifierTest, BetweennessCorruptedFails) {
  with_unweighted_view(file_, [&](const auto& g) {
    Engine engine(g, EngineOptions{});
    const auto sources = sampled_sources(g, 3, 2);
    const auto r = run_bc(engine, sources);
    ASSERT_TRUE(verify_bc(g, sources, r).ok);
    const auto top =
        static_cast<size_t>(std::max_element(r.reals.begin(), r.reals.end()) - r.reals.begin());
    ASSERT_GT(r.reals[top], 0);
    auto bad = r;
    bad.reals[top] *= 1 + 1e-6;
    EXPECT_FALSE(verify_bc(g, sources, bad).ok);
    const std::vector<uint64_t> others{sources[0], sources[1]};  // one source fewer
    EXPECT_FALSE(verify_bc(g, others, r).ok);
  });
}

TEST_F(VerifierTest, TriangleCountAndClusteringCorruptedFail) {
  for (bool undirected : {true, false}) {
    auto file = kronecker_graph(9, undirected, GeneratedWeights::kNone, 1,
                                std::string("verify-tri") + (undirected ? "u" : "d"));
    with_unweighted_view(file, [&](const auto& g) {
      Engine engine(g, EngineOptions{});
      const auto t = run_tc(engine);
      ASSERT_TRUE(verify_tc(g, t).ok);
      const auto top =
          static_cast<size_t>(std::max_element(t.ints.begin(), t.ints.end()) - t.ints.begin());
      auto bad = t;
      bad.ints[top] -= 1;
      EXPECT_FALSE(verify_tc(g, bad).ok);
      bad = t;
      bad.summary["triangles"] = t.summary["triangles"].template get<uint64_t>() + 1;
      EXPECT_FALSE(verify_tc(g, bad).ok);
      const auto c = run_lcc(engine);
      ASSERT_TRUE(verify_lcc(g, c).ok);
      auto off = c;
      off.reals[top] = std::nextafter(c.reals[top], 1.0);  // one ulp: the same double or wrong
      EXPECT_FALSE(verify_lcc(g, off).ok);
    });
  }
}

TEST_F(VerifierTest, LabelPropagationCorruptedFails) {
  with_unweighted_view(file_, [&](const auto& g) {
    Engine engine(g, EngineOptions{});
    const auto r = run_cdlp(engine, 3);
    ASSERT_TRUE(verify_cdlp(g, 3, r).ok);
    EXPECT_FALSE(verify_cdlp(g, 4, r).ok);  // another round moves labels
    for (uint64_t v = 0; v < r.ints.size(); ++v) {
      if (r.ints[v] != static_cast<int64_t>(v)) {
        auto bad = r;
        bad.ints[v] = static_cast<int64_t>(v);  // a vertex that kept its own label
        EXPECT_FALSE(verify_cdlp(g, 3, bad).ok);
        break;
      }
    }
  });
}

TEST_F(VerifierTest, WccPageRankRadiiCorruptedFail) {
  with_unweighted_view(file_, [&](const auto& g) {
    Engine engine(g, EngineOptions{});
    auto w = run_wcc(engine);
    ASSERT_TRUE(verify_wcc(g, w).ok);
    w.ints[5] = w.ints[5] + 1;
    EXPECT_FALSE(verify_wcc(g, w).ok);

    PageRankOptions o;
    auto p = run_pagerank(engine, o);
    ASSERT_TRUE(verify_pagerank(g, o, p).ok);
    p.reals[3] += 1e-3;
    p.reals[4] -= 1e-3;  // still sums to 1, but is no longer a fixed point
    EXPECT_FALSE(verify_pagerank(g, o, p).ok);

    const auto sources = sampled_sources(g, 16, 1);
    const auto r = run_radii(engine, sources);
    ASSERT_TRUE(verify_radii(g, sources, r).ok);
    // Every kind of wrong estimate: one too high or too low, a reached vertex called unreached,
    // an unreached one given a depth (when the graph has one).
    auto wrong = [&](uint64_t v, int64_t e) {
      auto bad = r;
      bad.ints[v] = e;
      return verify_radii(g, sources, bad);
    };
    EXPECT_FALSE(wrong(sources[0], r.ints[sources[0]] + 1).ok);
    EXPECT_FALSE(wrong(sources[0], r.ints[sources[0]] - 1).ok);
    EXPECT_FALSE(wrong(sources[0], kUnreached).ok);
    const auto deepest = std::max_element(r.ints.begin(), r.ints.end(), [](int64_t a, int64_t b) {
      return (a == kUnreached ? -1 : a) < (b == kUnreached ? -1 : b);
    });
    const uint64_t far = static_cast<uint64_t>(deepest - r.ints.begin());
    EXPECT_FALSE(wrong(far, *deepest + 1).ok) << "past the searches' last level";
    EXPECT_FALSE(wrong(far, *deepest - 1).ok);
    const auto unreached = std::find(r.ints.begin(), r.ints.end(), kUnreached);
    if (unreached != r.ints.end()) {
      EXPECT_FALSE(wrong(static_cast<uint64_t>(unreached - r.ints.begin()), 1).ok);
    }
  });
}

}  // namespace
}  // namespace tg
