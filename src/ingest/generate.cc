// Synthetic graph generators: Kronecker and uniform random edge lists (interface in generate.h).
//
// Kronecker follows the Graph500 specification, section 3 "Graph Generation"
// (https://graph500.org/?page_id=12), and its reference octave kronecker_generator.m: initiator
// probabilities A = 0.57, B = 0.19, C = 0.19 (D = 0.05), N = 2^scale vertices, M = edge_factor * N
// edges. Each of the scale bit levels of an edge picks one quadrant of the adjacency matrix, and
// the vertex labels then go through a uniformly random permutation so that the hubs are not the
// low ids (the spec permutes the edge order too, which a builder that sorts does not need).
// Uniform draws both endpoints of every edge uniformly from [0, N).
//
// Determinism: there is no sequential random stream to share between threads. Every draw is the
// splitmix64 output at a counter that names what it is for (edge k, bit level, endpoint), under a
// key derived from (seed, purpose), so the list is byte-identical for any number of threads.
#include "ingest/generate.h"

#include <fmt/format.h>
#include <omp.h>

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "util/error.h"
#include "util/parallel.h"

namespace tg {
namespace {

// Graph500 initiator, and the two conditional thresholds of the reference generator.
constexpr double kA = 0.57, kB = 0.19, kC = 0.19;
constexpr double kAB = kA + kB;              // P(source bit = 0)
constexpr double kCNorm = kC / (1.0 - kAB);  // P(destination bit = 0 | source bit = 1)
constexpr double kANorm = kA / kAB;          // P(destination bit = 0 | source bit = 0)

// octave's `rand > p`, with rand = (h >> 11) * 2^-53 (53 random bits), compared on integers in
// the hot loop: scaling by 2^53 is exact, so it is exactly (h >> 11) > floor(p * 2^53).
constexpr uint64_t threshold(double p) { return static_cast<uint64_t>(p * 0x1p53); }
constexpr uint64_t kABBits = threshold(kAB), kCNormBits = threshold(kCNorm),
                   kANormBits = threshold(kANorm);

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15;  // splitmix64's counter increment

// splitmix64's finalizer: a bijection on 64-bit words in which every output bit depends on every
// input bit; over a counter stepping by kGolden it is splitmix64, which passes BigCrush.
uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
  x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

// Each purpose has its own key, so that, e.g., weights are independent of endpoints.
enum class Purpose : uint64_t { kKronecker = 1, kUniform, kPermutation, kWeight };

// A counter-based random stream: at(i) is a pure function of (seed, purpose, i).
class Stream {
 public:
  Stream(uint64_t seed, Purpose purpose)
      : key_(mix(seed ^ mix(static_cast<uint64_t>(purpose) * kGolden))) {}
  uint64_t at(uint64_t i) const { return mix(key_ + i * kGolden); }

 private:
  uint64_t key_;
};

// [0, n) by Lemire's multiply-shift; its bias (n / 2^64) is far below anything measurable here.
uint64_t bounded(uint64_t h, uint64_t n) {
  __extension__ using u128 = unsigned __int128;
  return static_cast<uint64_t>((static_cast<u128>(h) * n) >> 64);
}

// Edge k's weight from its draw: integers uniform in [1, 255] as GAP does, or reals in (0, 1]
// (never 0, which shortest-path codes may treat as "no edge").
double weight_of(GeneratedWeights kind, uint64_t h) {
  if (kind == GeneratedWeights::kInteger) return static_cast<double>(1 + bounded(h, 255));
  return static_cast<double>((h >> 11) + 1) * 0x1p-53;
}

// A uniformly random permutation of 0..n-1 by Fisher-Yates, step i drawing from counter i, so it
// depends on the seed alone. It is serial but O(n), small next to the O(n * edge_factor * scale)
// draws of the edges.
template <typename Id>
MappedVector<Id> random_permutation(uint64_t n, uint64_t seed) {
  MappedVector<Id> perm(n);
#pragma omp parallel for schedule(static)
  for (uint64_t i = 0; i < n; ++i) perm[i] = static_cast<Id>(i);
  const Stream stream(seed, Purpose::kPermutation);
  for (uint64_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[bounded(stream.at(i), i + 1)]);
  return perm;
}

// Edge k of a generated graph, a pure function of (options, k).
template <typename Id>
class EdgeDrawer {
 public:
  explicit EdgeDrawer(const GeneratorOptions& o)
      : o_(o),
        kronecker_(o.kind == GeneratorKind::kKronecker),
        perm_(kronecker_ ? random_permutation<Id>(uint64_t{1} << o.scale, o.seed)
                         : MappedVector<Id>()),
        endpoints_(o.seed, kronecker_ ? Purpose::kKronecker : Purpose::kUniform),
        weights_(o.seed, Purpose::kWeight),
        draws_per_edge_(kronecker_ ? 2 * static_cast<uint64_t>(o.scale) : 2) {}

  template <typename W>
  Edge<Id, W> at(uint64_t k) const {
    // This edge's counters are first .. first + draws_per_edge - 1.
    const uint64_t first = k * draws_per_edge_;
    const int scale = o_.scale;
    uint64_t u = 0, v = 0;
    if (kronecker_) {
      // One quadrant per bit level, as kronecker_generator.m, with rand = (h >> 11) 2^-53:
      //   ii_bit = rand > (A+B); jj_bit = rand > (ii_bit ? C/(1-(A+B)) : A/(A+B)).
      for (int level = 0; level < scale; ++level) {
        const uint64_t at = first + 2 * static_cast<uint64_t>(level);
        const bool ii = (endpoints_.at(at) >> 11) > kABBits;
        const bool jj = (endpoints_.at(at + 1) >> 11) > (ii ? kCNormBits : kANormBits);
        u |= uint64_t{ii} << level;
        v |= uint64_t{jj} << level;
      }
      u = perm_[u];
      v = perm_[v];
    } else {
      // N is a power of two, so the top scale bits are exactly uniform on [0, N).
      u = endpoints_.at(first) >> (64 - scale);
      v = endpoints_.at(first + 1) >> (64 - scale);
    }
    Edge<Id, W> e;
    e.u = static_cast<Id>(u);
    e.v = static_cast<Id>(v);
    if constexpr (std::is_same_v<W, double>) e.w = weight_of(o_.weights, weights_.at(k));
    return e;
  }

 private:
  const GeneratorOptions& o_;
  bool kronecker_;
  MappedVector<Id> perm_;
  Stream endpoints_, weights_;
  uint64_t draws_per_edge_;
};

template <typename Id, typename W>
EdgeArray<Id, W> make_edges(const GeneratorOptions& o, uint64_t m, WeightInfo& info) {
  const EdgeDrawer<Id> draw(o);
  EdgeArray<Id, W> edges(m);
#pragma omp parallel
  {
    WeightInfo local;
#pragma omp for schedule(static)
    for (uint64_t k = 0; k < m; ++k) {
      edges[k] = draw.template at<W>(k);
      if constexpr (std::is_same_v<W, double>) local.add(edges[k].w);
    }
#pragma omp critical(tg_generate_weight_info)
    info.merge(local);  // min, max and "all integral" do not depend on the merge order
  }
  return edges;
}

const char* kind_name(GeneratorKind kind) {
  switch (kind) {
    case GeneratorKind::kKronecker:
      return "kronecker";
    case GeneratorKind::kUniform:
      return "uniform";
  }
  fail("unknown generator kind {}", static_cast<int>(kind));
}

}  // namespace

namespace {

// Checks the options; returns the number of edges.
uint64_t generated_edges(const GeneratorOptions& o) {
  const char* name = kind_name(o.kind);
  if (o.scale < 1 || o.scale > 40)
    fail("{} generator: scale must be in [1, 40], got {}", name, o.scale);
  if (o.edge_factor < 1)
    fail("{} generator: edge factor must be at least 1, got {}", name, o.edge_factor);
  const uint64_t n = uint64_t{1} << o.scale;
  // The widest edge (two 64-bit ids and a weight) must still have a byte size that fits size_t.
  const uint64_t max_edges = std::numeric_limits<size_t>::max() / sizeof(Edge<uint64_t, double>);
  if (static_cast<uint64_t>(o.edge_factor) > max_edges / n) {
    fail("{} generator: edge factor {} * 2^{} vertices is too many edges (at most {})", name,
         o.edge_factor, o.scale, max_edges);
  }
  return static_cast<uint64_t>(o.edge_factor) * n;
}

// The list's description, without edges.
EdgeList describe_generated(const GeneratorOptions& o) {
  EdgeList list;
  list.declared_vertices = uint64_t{1} << o.scale;
  list.id_base = 0;
  list.undirected_input = false;
  list.id_mode = IdMode::kIndex;
  list.source_name = fmt::format("{} scale {} edge factor {} seed {}{}", kind_name(o.kind), o.scale,
                                 o.edge_factor, o.seed,
                                 o.weights == GeneratedWeights::kInteger ? " integer weights"
                                 : o.weights == GeneratedWeights::kReal  ? " real weights"
                                                                         : "");
  return list;
}

}  // namespace

EdgeList generate(const GeneratorOptions& o) {
  const uint64_t m = generated_edges(o);
  EdgeList list = describe_generated(o);
  const bool weighted = o.weights != GeneratedWeights::kNone;
  auto build = [&](auto id_tag) {
    using Id = typename decltype(id_tag)::type;
    if (weighted) {
      list.edges = make_edges<Id, double>(o, m, list.weight_info);
    } else {
      list.edges = make_edges<Id, NoWeight>(o, m, list.weight_info);
    }
  };
  // Ids 0..N-1 fit 32 bits up to N = 2^32.
  if (o.scale <= 32) {
    build(std::type_identity<uint32_t>{});
  } else {
    build(std::type_identity<uint64_t>{});
  }
  return list;
}

uint64_t generated_edge_count(const GeneratorOptions& o) { return generated_edges(o); }

namespace {

// The edges generate_into draws at once: as asked, but at least one per thread.
uint64_t drawn_batch(uint64_t batch_edges) {
  return std::max<uint64_t>(batch_edges, static_cast<uint64_t>(max_threads()));
}

// generate_into with the permutation's ids as narrow as the vertex count allows (a Kronecker
// graph of 2^27 vertices: 512 MiB of permutation, not 1 GiB), the edges handed on as 64-bit.
template <typename Id>
void draw_into(const GeneratorOptions& o, uint64_t m, EdgeList& list, EdgeBatchSink& sink,
               uint64_t batch_edges) {
  const bool weighted = o.weights != GeneratedWeights::kNone;
  const EdgeDrawer<Id> draw(o);
  const uint64_t threads = static_cast<uint64_t>(max_threads());
  batch_edges = drawn_batch(batch_edges);
  std::vector<std::vector<Edge<uint64_t, double>>> parts(threads);
  for (uint64_t first = 0; first < m; first += batch_edges) {
    const uint64_t count = std::min(batch_edges, m - first);
    // Each thread draws a contiguous stretch: the sink takes them in order.
#pragma omp parallel num_threads(static_cast <int>(threads))
    {
      const uint64_t t = static_cast<uint64_t>(omp_get_thread_num());
      const uint64_t a = first + count * t / threads, b = first + count * (t + 1) / threads;
      auto& part = parts[t];
      part.resize(b - a);
      WeightInfo local;
      for (uint64_t k = a; k < b; ++k) {
        if (weighted) {
          const auto e = draw.template at<double>(k);
          part[k - a] = {e.u, e.v, e.w};
          local.add(e.w);
        } else {
          const auto e = draw.template at<NoWeight>(k);
          part[k - a] = {e.u, e.v, 0.0};
        }
      }
#pragma omp critical(tg_generate_weight_info)
      list.weight_info.merge(local);
    }
    std::vector<EdgeBatch> batches(parts.begin(), parts.end());
    sink.add(batches, (uint64_t{1} << o.scale) - 1);
  }
}

}  // namespace

EdgeList generate_into(const GeneratorOptions& o, EdgeBatchSink& sink, uint64_t batch_edges) {
  const uint64_t m = generated_edges(o);
  EdgeList list = describe_generated(o);
  sink.start(o.weights != GeneratedWeights::kNone, false);
  if (o.scale <= 32) {
    draw_into<uint32_t>(o, m, list, sink, batch_edges);
  } else {
    draw_into<uint64_t>(o, m, list, sink, batch_edges);
  }
  return list;
}

uint64_t generate_into_bytes(const GeneratorOptions& o, uint64_t batch_edges) {
  const uint64_t permutation =
      o.kind == GeneratorKind::kKronecker ? (uint64_t{1} << o.scale) * (o.scale <= 32 ? 4 : 8) : 0;
  return permutation + drawn_batch(batch_edges) * sizeof(Edge<uint64_t, double>);
}

double generated_weight(GeneratedWeights kind, uint64_t seed, uint64_t k) {
  return weight_of(kind, Stream(seed, Purpose::kWeight).at(k));
}

void add_generated_weights(EdgeList& list, GeneratedWeights kind, uint64_t seed) {
  if (kind != GeneratedWeights::kInteger && kind != GeneratedWeights::kReal) {
    fail("generated weights: kind must be integer or real, got {}", static_cast<int>(kind));
  }
  const Stream weights(seed, Purpose::kWeight);
  WeightInfo info;
  // Weighted input is overwritten in place; unweighted input is copied into a new weighted array,
  // which then replaces it in the variant.
  list.edges = std::visit(
      [&](auto& in) -> AnyEdgeArray {
        using E = std::remove_reference_t<decltype(in[0])>;
        using Id = decltype(E::u);
        const uint64_t m = in.size();
        EdgeArray<Id, double> out;
        if constexpr (std::is_same_v<decltype(E::w), double>) {
          out = std::move(in);
        } else {
          out.resize(m);
        }
#pragma omp parallel
        {
          WeightInfo local;
#pragma omp for schedule(static)
          for (uint64_t k = 0; k < m; ++k) {
            if constexpr (!std::is_same_v<decltype(E::w), double>) {
              out[k].u = in[k].u;
              out[k].v = in[k].v;
            }
            out[k].w = weight_of(kind, weights.at(k));
            local.add(out[k].w);
          }
#pragma omp critical(tg_generate_weight_info)
          info.merge(local);
        }
        return out;
      },
      list.edges);
  list.weight_info = info;
}

}  // namespace tg
