// Tests of the synthetic generators (src/ingest/generate.cc): determinism whatever the thread
// count, sizes and id ranges, the Graph500 Kronecker distribution (quadrant probabilities, degree
// skew, label permutation), uniform's flat degrees, generated weights, and option checking.
#include "ingest/generate.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "util/error.h"

namespace tg {
namespace {

GeneratorOptions options(GeneratorKind kind, int scale, int edge_factor = 16,
                         uint64_t seed = 27491095,
                         GeneratedWeights weights = GeneratedWeights::kNone) {
  GeneratorOptions o;
  o.kind = kind;
  o.scale = scale;
  o.edge_factor = edge_factor;
  o.seed = seed;
  o.weights = weights;
  return o;
}

// The raw bytes of the edge array, tagged with the variant alternative.
std::string bytes(const EdgeList& list) {
  return std::visit(
      [&](const auto& a) {
        return std::to_string(list.edges.index()) + ":" +
               std::string(reinterpret_cast<const char*>(a.data()), a.size() * sizeof(a[0]));
      },
      list.edges);
}

// Degree of every vertex, counting both endpoints of every edge.
std::vector<uint64_t> degrees(const EdgeList& list) {
  std::vector<uint64_t> deg(*list.declared_vertices);
  std::visit(
      [&](const auto& a) {
        for (const auto& e : a) {
          ++deg[e.u];
          ++deg[e.v];
        }
      },
      list.edges);
  return deg;
}

std::vector<double> weights_of(const EdgeList& list) {
  const auto& a = std::get<EdgeArray<uint32_t, double>>(list.edges);
  std::vector<double> w;
  for (const auto& e : a) w.push_back(e.w);
  return w;
}

template <typename F>
auto with_threads(int threads, F f) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  auto result = f();
  omp_set_num_threads(before);
  return result;
}

const GeneratorKind kKinds[] = {GeneratorKind::kKronecker, GeneratorKind::kUniform};
const GeneratedWeights kWeightKinds[] = {GeneratedWeights::kNone, GeneratedWeights::kInteger,
                                         GeneratedWeights::kReal};

TEST(Generate, DeterministicAcrossThreadCounts) {
  for (GeneratorKind kind : kKinds) {
    for (GeneratedWeights weights : kWeightKinds) {
      const GeneratorOptions o = options(kind, 12, 16, 7, weights);
      const std::string one = with_threads(1, [&] { return bytes(generate(o)); });
      EXPECT_EQ(one, with_threads(2, [&] { return bytes(generate(o)); }));
      EXPECT_EQ(one, with_threads(3, [&] { return bytes(generate(o)); }));
      GeneratorOptions other = o;
      other.seed = 8;
      EXPECT_NE(one, bytes(generate(other)));
    }
  }
}

TEST(Generate, CountsIdsAndMetadata) {
  for (GeneratorKind kind : kKinds) {
    const EdgeList list = generate(options(kind, 10, 5, 3));
    ASSERT_TRUE((std::holds_alternative<EdgeArray<uint32_t, NoWeight>>(list.edges)));
    EXPECT_EQ(list.size(), 5u * 1024);
    EXPECT_EQ(list.declared_vertices, 1024u);
    EXPECT_EQ(list.id_mode, IdMode::kIndex);
    EXPECT_EQ(list.id_base, 0u);
    EXPECT_FALSE(list.undirected_input);
    EXPECT_FALSE(list.weighted());
    for (const auto& e : std::get<EdgeArray<uint32_t, NoWeight>>(list.edges)) {
      ASSERT_LT(e.u, 1024u);
      ASSERT_LT(e.v, 1024u);
    }
  }
  EXPECT_EQ(generate(options(GeneratorKind::kKronecker, 6, 16, 27491095)).source_name,
            "kronecker scale 6 edge factor 16 seed 27491095");
  EXPECT_EQ(
      generate(options(GeneratorKind::kUniform, 6, 2, 1, GeneratedWeights::kReal)).source_name,
      "uniform scale 6 edge factor 2 seed 1 real weights");
}

// At scale 1 every edge is one quadrant draw. The label permutation may swap 0 and 1, which swaps
// A with D and B with C, so compare the sorted pairs.
TEST(Generate, KroneckerQuadrantProbabilities) {
  const EdgeList list = generate(options(GeneratorKind::kKronecker, 1, 200000));
  double q[2][2] = {};
  for (const auto& e : std::get<EdgeArray<uint32_t, NoWeight>>(list.edges)) q[e.u][e.v] += 1.0;
  const double m = static_cast<double>(list.size());
  // One standard deviation of a fraction here is at most 0.0008.
  EXPECT_NEAR(std::max(q[0][0], q[1][1]) / m, 0.57, 0.005);
  EXPECT_NEAR(std::min(q[0][0], q[1][1]) / m, 0.05, 0.005);
  EXPECT_NEAR(q[0][1] / m, 0.19, 0.005);
  EXPECT_NEAR(q[1][0] / m, 0.19, 0.005);
}

// Expected values at scale 16, edge factor 16 (M = 2^20): the hub, label 0 before permutation,
// has degree 2M * 0.76^16 ~ 25960 (each endpoint bit is 0 with probability A+B = 0.76), 811x the
// average of 32; a vertex with j one-bits has Poisson degree 2M 0.76^(16-j) 0.24^j, which makes
// 28.6% of the vertices isolated.
TEST(Generate, KroneckerDegreeSkew) {
  const std::vector<uint64_t> deg = degrees(generate(options(GeneratorKind::kKronecker, 16)));
  const double average = 32.0;
  const double max = static_cast<double>(*std::max_element(deg.begin(), deg.end()));
  EXPECT_GT(max, 20 * average);
  EXPECT_NEAR(max, 25960, 2000);
  const double isolated =
      static_cast<double>(std::count(deg.begin(), deg.end(), 0)) / static_cast<double>(deg.size());
  EXPECT_GT(isolated, 0.25);
  EXPECT_LT(isolated, 0.32);
}

// Out- and in-degrees are each Poisson(16): the maximum over 2^16 vertices is about 35, and
// P(0) = 1e-7, so no vertex lacks an out-edge or an in-edge; the total degree is below 4x 32.
TEST(Generate, UniformDegreesAreFlat) {
  const EdgeList list = generate(options(GeneratorKind::kUniform, 16));
  std::vector<uint64_t> out(*list.declared_vertices), in(*list.declared_vertices);
  for (const auto& e : std::get<EdgeArray<uint32_t, NoWeight>>(list.edges)) {
    ++out[e.u];
    ++in[e.v];
  }
  for (const std::vector<uint64_t>* deg : {&out, &in}) {
    EXPECT_LT(*std::max_element(deg->begin(), deg->end()), 4u * 16);
    EXPECT_LT(std::count(deg->begin(), deg->end(), 0), 5);
  }
  const std::vector<uint64_t> total = degrees(list);
  EXPECT_LT(*std::max_element(total.begin(), total.end()), 4u * 32);
}

// Every pre-permutation label occurs at scale 4 with this many edges (the rarest, all bits 1,
// about 200 times), so all 16 labels occur exactly when the permutation is a bijection.
TEST(Generate, KroneckerPermutationIsBijection) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const std::vector<uint64_t> deg =
        degrees(generate(options(GeneratorKind::kKronecker, 4, 2000, seed)));
    for (size_t v = 0; v < deg.size(); ++v)
      EXPECT_GT(deg[v], 0u) << "label " << v << " seed " << seed;
  }
}

// Without the permutation the hub would always be vertex 0; with it, it lands anywhere.
TEST(Generate, KroneckerPermutationMovesHub) {
  std::set<size_t> hubs;
  int at_zero = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::vector<uint64_t> deg =
        degrees(generate(options(GeneratorKind::kKronecker, 10, 16, seed)));
    const size_t hub = static_cast<size_t>(std::max_element(deg.begin(), deg.end()) - deg.begin());
    hubs.insert(hub);
    at_zero += hub == 0;
  }
  EXPECT_LE(at_zero, 1);
  EXPECT_GE(hubs.size(), 15u);
}

TEST(Generate, IntegerWeights) {
  const EdgeList list =
      generate(options(GeneratorKind::kUniform, 14, 16, 5, GeneratedWeights::kInteger));
  ASSERT_TRUE(list.weighted());
  std::vector<int> seen(256);
  for (double w : weights_of(list)) {
    ASSERT_EQ(w, std::floor(w));
    ASSERT_GE(w, 1);
    ASSERT_LE(w, 255);
    ++seen[static_cast<size_t>(w)];
  }
  // 2^18 draws, about 1028 per value: every value in [1, 255] occurs.
  for (int w = 1; w <= 255; ++w) EXPECT_GT(seen[static_cast<size_t>(w)], 800) << w;
  EXPECT_TRUE(list.weight_info.all_integral);
  EXPECT_EQ(list.weight_info.min, 1);
  EXPECT_EQ(list.weight_info.max, 255);
}

TEST(Generate, RealWeights) {
  const EdgeList list =
      generate(options(GeneratorKind::kKronecker, 14, 16, 5, GeneratedWeights::kReal));
  const std::vector<double> w = weights_of(list);
  double sum = 0, min = 2, max = -1;
  for (double x : w) {
    ASSERT_GT(x, 0);
    ASSERT_LE(x, 1);
    sum += x;
    min = std::min(min, x);
    max = std::max(max, x);
  }
  EXPECT_NEAR(sum / static_cast<double>(w.size()), 0.5, 0.005);
  EXPECT_FALSE(list.weight_info.all_integral);
  EXPECT_EQ(list.weight_info.min, min);
  EXPECT_EQ(list.weight_info.max, max);
}

// Edge k's weight depends on (seed, k) only, so weighting afterwards equals generating weighted.
TEST(Generate, AddGeneratedWeightsMatchesGenerate) {
  for (GeneratedWeights kind : {GeneratedWeights::kInteger, GeneratedWeights::kReal}) {
    const EdgeList direct = generate(options(GeneratorKind::kKronecker, 12, 16, 9, kind));
    EdgeList later = generate(options(GeneratorKind::kKronecker, 12, 16, 9));
    add_generated_weights(later, kind, 9);
    EXPECT_EQ(bytes(direct), bytes(later));
    EXPECT_EQ(direct.weight_info.min, later.weight_info.min);
    EXPECT_EQ(direct.weight_info.max, later.weight_info.max);
    EXPECT_EQ(direct.weight_info.all_integral, later.weight_info.all_integral);
  }
}

TEST(Generate, AddGeneratedWeightsDeterministicAndReplaces) {
  const GeneratorOptions o = options(GeneratorKind::kUniform, 12);
  auto weighted = [&](int threads, std::vector<uint64_t> seeds) {
    return with_threads(threads, [&] {
      EdgeList list = generate(o);
      for (uint64_t seed : seeds) add_generated_weights(list, GeneratedWeights::kReal, seed);
      return bytes(list);
    });
  };
  const std::string one = weighted(1, {4});
  EXPECT_EQ(one, weighted(2, {4}));
  EXPECT_EQ(one, weighted(3, {4}));
  EXPECT_EQ(one, weighted(2, {3, 4}));  // replacing weights leaves no trace of the old ones
  EXPECT_NE(one, weighted(2, {5}));
}

TEST(Generate, AddGeneratedWeightsKeepsWideIds) {
  EdgeList list;
  EdgeArray<uint64_t, NoWeight> a(3);
  a[0] = {uint64_t{1} << 40, 2, {}};
  a[1] = {5, uint64_t{1} << 35, {}};
  a[2] = {7, 7, {}};
  list.edges = std::move(a);
  add_generated_weights(list, GeneratedWeights::kInteger, 1);
  const auto& w = std::get<EdgeArray<uint64_t, double>>(list.edges);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].u, uint64_t{1} << 40);
  EXPECT_EQ(w[1].v, uint64_t{1} << 35);
  EXPECT_EQ(w[2].u, 7u);
  for (const auto& e : w) EXPECT_TRUE(e.w >= 1 && e.w <= 255 && e.w == std::floor(e.w));
}

TEST(Generate, RejectsBadOptions) {
  auto throws = [](const GeneratorOptions& o, const std::string& message) {
    try {
      generate(o);
      ADD_FAILURE() << "no error for: " << message;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  throws(options(GeneratorKind::kKronecker, 0), "scale must be in [1, 40], got 0");
  throws(options(GeneratorKind::kUniform, 41), "scale must be in [1, 40], got 41");
  throws(options(GeneratorKind::kKronecker, -3), "scale");
  throws(options(GeneratorKind::kKronecker, 10, 0), "edge factor must be at least 1, got 0");
  throws(options(GeneratorKind::kUniform, 10, -16), "edge factor must be at least 1");
  throws(options(GeneratorKind::kKronecker, 40, INT_MAX), "too many edges");
  throws(options(GeneratorKind::kUniform, 40, 1 << 20), "too many edges");

  EdgeList list = generate(options(GeneratorKind::kUniform, 4));
  EXPECT_THROW(add_generated_weights(list, GeneratedWeights::kNone, 1), Error);
}

}  // namespace
}  // namespace tg
