// The shared-memory engine: runs a vertex program's edge pass over a frontier, push or pull,
// over the block grid, and vertex passes over sets of vertices.
//
// A vertex program (see algorithms/) declares:
//   using Op = MinOp<T> | SumOp<T> | OrOp<T>;        how messages to one vertex combine
//   Op::Value scatter(Id u, W w) const;               the message an edge u->v carries
//   Op::Value& target(Id v);                          where v's messages are combined
//   bool apply(Id v);                                 v's target changed: should v be active?
// and optionally:
//   bool wants(Id v) const;                           v may still change (others are skipped)
//   bool saturated(Id v, Op::Value acc) const;        pull may stop reading v's in-edges
//   static constexpr bool kBothDirections = true;     follow edges both ways (weak connectivity)
// Nothing about push or pull, atomics, threads, blocks or tiers.
//
// Semantics: in push, messages are combined atomically into target(v) and apply(v) runs once per
// changed v after the pass; in pull, v's in-edges from the frontier are reduced locally, combined
// into target(v), and apply(v) runs at once. So scatter must not read what apply writes in the
// same pass (keep a separate "next" array, as Radii does); reading target() is fine.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/combine.h"
#include "engine/frontier.h"
#include "engine/stats.h"
#include "graph/graph_view.h"
#include "util/timer.h"

namespace tg {

struct EngineOptions {
  Direction direction = Direction::kAuto;
  // Auto direction, as direction-optimizing BFS (Beamer et al.) chooses: switch from push to pull
  // when the frontier's out-edges exceed the edges still unexplored divided by alpha; switch back
  // when the frontier holds fewer than n / beta vertices. Programs whose vertices activate at most
  // once (kActivatesOnce) let the engine count unexplored edges; for the others every edge counts
  // as unexplored, which gives Ligra's rule (pull when the frontier's edges exceed arcs / alpha).
  double alpha = 15.0;
  double beta = 18.0;
  // A program with no saturation point reads every in-edge of every vertex when it pulls, so it
  // pulls only when the frontier's edges exceed this share of all arcs (push pays atomics, about
  // twice a plain read; delta-stepping SSSP and FastSV rounds are the cases this protects).
  double pull_share = 0.5;
  bool record_stats = true;
  // Push passes with less work than this (frontier vertices + their edges) run on one thread.
  uint64_t serial_work = 4096;
};

template <typename P, typename Id>
concept HasWants = requires(const P& p, Id v) { { p.wants(v) } -> std::convertible_to<bool>; };
template <typename P, typename Id>
concept HasSaturated = requires(const P& p, Id v, typename P::Op::Value x) { { p.saturated(v, x) } -> std::convertible_to<bool>; };
template <typename P>
concept BothDirections = requires { requires P::kBothDirections; };
template <typename P>
concept ActivatesOnce = requires { requires P::kActivatesOnce; };

template <typename Id, typename W>
class Engine {
 public:
  using Graph = GraphView<Id, W>;

  Engine(const Graph& graph, EngineOptions options) : g_(graph), options_(options), claimed_(graph.num_vertices()) {
    p_ = g_.blocks_per_side();
    pull_chunks_ = balanced_chunks([&](uint64_t v) { return g_.in_degree(v) + (g_.directed() ? g_.out_degree(v) : 0); });
  }

  const Graph& graph() const { return g_; }
  uint64_t num_vertices() const { return g_.num_vertices(); }
  std::vector<IterationStats>& stats() { return stats_; }
  void reset_stats() { stats_.clear(); }

  Frontier<Id> all() const { return Frontier<Id>::all(g_.num_vertices(), g_.num_arcs()); }
  Frontier<Id> from_list(std::vector<Id> list) const {
    uint64_t edges = 0;
#pragma omp parallel for reduction(+ : edges) if (list.size() > 4096)
    for (size_t k = 0; k < list.size(); ++k) edges += g_.out_degree(list[k]);
    return Frontier<Id>::sparse(g_.num_vertices(), std::move(list), edges);
  }

  // One pass of messages along the edges out of `frontier`; returns the vertices apply() activated.
  template <typename Program>
  Frontier<Id> edge_pass(Program& program, Frontier<Id>& frontier) {
    return edge_pass_in(program, frontier, Direction::kAuto);
  }

  // The same in a direction the algorithm needs (kAuto: the engine's choice). The run's
  // --direction option still wins, so forced push or pull runs stay what they say.
  template <typename Program>
  Frontier<Id> edge_pass_in(Program& program, Frontier<Id>& frontier, Direction wanted) {
    Timer timer;
    IterationStats s;
    s.iteration = stats_.size();
    s.frontier_size = frontier.size();
    s.frontier_edges = frontier.out_edges();
    const Direction d = options_.direction == Direction::kAuto && wanted != Direction::kAuto
                            ? wanted
                            : choose_direction<Program>(frontier);
    s.direction = d;
    Frontier<Id> next = d == Direction::kPush ? push(program, frontier, s) : pull(program, frontier, s);
    // As in GAPBS, only push passes count as exploring: after a pull phase the traversal goes
    // back to push and stays there until the frontier's edges are again a large share.
    const uint64_t explored = frontier.explored_edges() + (d == Direction::kPush ? frontier.out_edges() : 0);
    next.set_history(explored, d == Direction::kPull, frontier.size());
    s.activated = next.size();
    s.seconds = timer.seconds();
    if (options_.record_stats) stats_.push_back(s);
    return next;
  }

  // Calls f(u, v) for the first `k` out-edges of every vertex u, in parallel: the sampled
  // subgraph that Afforest-style connectivity links first (a tier fetches only the blocks' heads).
  template <typename F>
  void sample_pass(uint32_t k, F f) const {
    const uint64_t n = g_.num_vertices();
#pragma omp parallel for schedule(dynamic, 1024)
    for (uint64_t u = 0; u < n; ++u) {
      uint32_t taken = 0;
      const uint32_t i = p_ == 1 ? 0 : range_of(u);
      for (uint32_t j = 0; j < p_ && taken < k; ++j) {
        const auto& b = g_.out_block(i, j);
        for (uint32_t e = b.begin(u); e < b.end(u) && taken < k; ++e, ++taken) f(static_cast<Id>(u), b.neighbors[e]);
      }
    }
  }

  // Runs f(v) for every vertex, in parallel.
  template <typename F>
  void vertex_pass(F f) const {
    const uint64_t n = g_.num_vertices();
#pragma omp parallel for schedule(static)
    for (uint64_t v = 0; v < n; ++v) f(static_cast<Id>(v));
  }
  // Runs f(v) for every member of the frontier, in parallel.
  template <typename F>
  void vertex_pass(Frontier<Id>& frontier, F f) const {
    if (frontier.kind() == Frontier<Id>::Kind::kAll) return vertex_pass(f);
    const auto& list = frontier.list();
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < list.size(); ++k) f(list[k]);
  }

 private:
  template <typename Program>
  Direction choose_direction(const Frontier<Id>& frontier) const {
    if (options_.direction != Direction::kAuto) return options_.direction;
    const double arcs = static_cast<double>(g_.num_arcs());
    if constexpr (!HasSaturated<Program, Id>) {
      const double edges = static_cast<double>(frontier.out_edges());
      return edges > arcs * options_.pull_share ? Direction::kPull : Direction::kPush;
    }
    const double explored = ActivatesOnce<Program> ? static_cast<double>(frontier.explored_edges()) : 0.0;
    const double unexplored = std::max(arcs - explored, 0.0);
    const double work = static_cast<double>(frontier.size() + frontier.out_edges());
    if (frontier.came_from_pull()) {
      // Stay in pull while the frontier grows or is still large (Beamer's beta test).
      const bool growing = frontier.size() >= frontier.previous_size();
      const bool large = static_cast<double>(frontier.size()) > static_cast<double>(g_.num_vertices()) / options_.beta;
      return growing || large ? Direction::kPull : Direction::kPush;
    }
    return work > unexplored / options_.alpha ? Direction::kPull : Direction::kPush;
  }

  uint32_t range_of(uint64_t v) const {
    const auto r = g_.ranges();
    return static_cast<uint32_t>(std::upper_bound(r.begin() + 1, r.end(), v) - r.begin() - 1);
  }

  // Calls f(neighbor, weight) for the out-edges of u (and its in-edges when both is set).
  template <bool kBoth, typename F>
  void for_out(uint64_t u, F&& f) const {
    if (p_ == 1) {
      scan(g_.out_block(0, 0), u, f);
      if constexpr (kBoth) {
        if (g_.directed()) scan(g_.in_block(0, 0), u, f);
      }
      return;
    }
    const uint32_t i = range_of(u);
    for (uint32_t j = 0; j < p_; ++j) scan(g_.out_block(i, j), u, f);
    if constexpr (kBoth) {
      if (g_.directed())
        for (uint32_t j = 0; j < p_; ++j) scan(g_.in_block(j, i), u, f);
    }
  }
  // Calls f(neighbor, weight) for the in-edges of v (and its out-edges when both is set) until f
  // returns true (saturated).
  template <bool kBoth, typename F>
  uint64_t for_in_until(uint64_t v, F&& f) const {
    uint64_t examined = 0;
    if (p_ == 1) {
      if (scan_until(g_.in_block(0, 0), v, f, examined)) return examined;
      if constexpr (kBoth) {
        if (g_.directed()) scan_until(g_.out_block(0, 0), v, f, examined);
      }
      return examined;
    }
    const uint32_t j = range_of(v);
    for (uint32_t i = 0; i < p_; ++i)
      if (scan_until(g_.in_block(i, j), v, f, examined)) return examined;
    if constexpr (kBoth) {
      if (g_.directed())
        for (uint32_t i = 0; i < p_; ++i)
          if (scan_until(g_.out_block(j, i), v, f, examined)) return examined;
    }
    return examined;
  }
  template <typename F>
  static void scan(const BlockView<Id, W>& b, uint64_t u, F& f) {
    const uint32_t end = b.end(u);
    for (uint32_t k = b.begin(u); k < end; ++k) f(b.neighbors[k], b.weight(k));
  }
  template <typename F>
  static bool scan_until(const BlockView<Id, W>& b, uint64_t v, F& f, uint64_t& examined) {
    const uint32_t begin = b.begin(v), end = b.end(v);
    const Id* nbrs = b.neighbors;
    for (uint32_t k = begin; k < end; ++k) {
      if (f(nbrs[k], b.weight(k))) {
        examined += k - begin + 1;
        return true;
      }
    }
    examined += end - begin;
    return false;
  }

  template <typename Program>
  Frontier<Id> push(Program& program, Frontier<Id>& frontier, IterationStats& s) {
    using Op = typename Program::Op;
    constexpr bool kBoth = BothDirections<Program>;
    const auto& list = frontier.list();
    const int threads = max_threads();
    // A small frontier (a road graph's thousands of levels) is cheaper done by one thread than
    // paying for waking the team; that is what keeps high-diameter traversals fast.
    const bool small = frontier.size() + frontier.out_edges() < options_.serial_work;
    // Per-thread scratch, kept across passes so a long traversal does not allocate per level.
    auto& found = found_;
    found.resize(static_cast<size_t>(threads));
    for (auto& f : found) f.clear();
    std::vector<uint64_t> activated_edges(threads, 0);
    // Work division balanced by edges: tasks of about equal out-degree sums.
    const auto tasks = edge_balanced_tasks(list);
    const size_t task_count = tasks.size() - 1;
#pragma omp parallel num_threads(small ? 1 : threads)
    {
      const int t = omp_get_thread_num();
      auto& mine = found[t];
#pragma omp for schedule(dynamic, 1)
      for (size_t task = 0; task < task_count; ++task) {
        for (size_t k = tasks[task]; k < tasks[task + 1]; ++k) {
          const Id u = list[k];
          for_out<kBoth>(u, [&](Id v, W w) {
            if constexpr (HasWants<Program, Id>) {
              if (!program.wants(v)) return;
            }
            if constexpr (ActivatesOnce<Program>) {
              // A target leaves its identity once: the message that moves it is the activation,
              // so one compare-and-swap decides it (later messages still combine).
              auto& target = program.target(v);
              auto expected = Op::identity();
              const auto message = program.scatter(u, w);
              if (std::atomic_ref(target).compare_exchange_strong(expected, message, std::memory_order_relaxed)) {
                mine.push_back(v);
              } else {
                Op::atomic_combine(target, message);
              }
            } else if (Op::atomic_combine(program.target(v), program.scatter(u, w)) && claimed_.set_atomic(v)) {
              mine.push_back(v);
            }
          });
        }
      }
      // After the barrier every message has landed: apply() decides which changed vertices
      // become active; each thread keeps its own in place.
      size_t kept = 0;
      for (Id v : mine) {
        if constexpr (!ActivatesOnce<Program>) claimed_.clear_atomic(v);
        if (program.apply(v)) {
          mine[kept++] = v;
          activated_edges[t] += g_.out_degree(v);
        }
      }
      mine.resize(kept);
    }
    s.edges_examined = frontier.out_edges() * (kBoth && g_.directed() ? 2 : 1);
    size_t total = 0;
    uint64_t edges = 0;
    for (int t = 0; t < threads; ++t) {
      total += found[t].size();
      edges += activated_edges[t];
    }
    std::vector<Id> next;
    next.reserve(total);
    for (int t = 0; t < threads; ++t) next.insert(next.end(), found[t].begin(), found[t].end());
    return Frontier<Id>::sparse(g_.num_vertices(), std::move(next), edges);
  }

  template <typename Program>
  Frontier<Id> pull(Program& program, Frontier<Id>& frontier, IterationStats& s) {
    frontier.prepare_dense();
    // Two compiled loops: with every vertex active there is no membership test per edge.
    if (frontier.kind() == Frontier<Id>::Kind::kAll) return pull_loop<true>(program, frontier, s);
    return pull_loop<false>(program, frontier, s);
  }

  template <bool kEveryone, typename Program>
  Frontier<Id> pull_loop(Program& program, const Frontier<Id>& frontier, IterationStats& s) {
    using Op = typename Program::Op;
    using Value = typename Op::Value;
    constexpr bool kBoth = BothDirections<Program>;
    Bitmap next(g_.num_vertices());
    uint64_t size = 0, edges = 0, examined = 0;
    const size_t chunk_count = pull_chunks_.size() - 1;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : size, edges, examined)
    for (size_t c = 0; c < chunk_count; ++c) {
      // Chunks cover whole 64-vertex words, so each thread owns the bitmap words it writes.
      for (uint64_t v = pull_chunks_[c]; v < pull_chunks_[c + 1]; ++v) {
        if constexpr (HasWants<Program, Id>) {
          if (!program.wants(static_cast<Id>(v))) continue;
        }
        Value acc = Op::identity();
        examined += for_in_until<kBoth>(v, [&](Id u, W w) {
          if constexpr (!kEveryone) {
            if (!frontier.contains(u)) return false;
          }
          acc = Op::combine(acc, program.scatter(u, w));
          if constexpr (HasSaturated<Program, Id>) {
            return program.saturated(static_cast<Id>(v), acc);
          } else {
            return false;
          }
        });
        Value& target = program.target(static_cast<Id>(v));
        const Value combined = Op::combine(target, acc);
        if (combined == target) continue;
        target = combined;
        if (program.apply(static_cast<Id>(v))) {
          next.set(v);
          ++size;
          edges += g_.out_degree(v);
        }
      }
    }
    s.edges_examined = examined;
    return Frontier<Id>::dense(g_.num_vertices(), std::move(next), size, edges);
  }

  // Splits a frontier list into tasks of roughly equal out-edge counts.
  std::vector<size_t> edge_balanced_tasks(const std::vector<Id>& list) const {
    const size_t threads = static_cast<size_t>(max_threads());
    std::vector<size_t> tasks{0};
    if (list.size() <= 64) {
      tasks.push_back(list.size());
      return tasks;
    }
    if (list.size() < 8192) {
      for (size_t k = 64; k < list.size(); k += 64) tasks.push_back(k);
      tasks.push_back(list.size());
      return tasks;
    }
    std::vector<uint64_t> prefix(list.size() + 1, 0);
#pragma omp parallel for
    for (size_t k = 0; k < list.size(); ++k) prefix[k + 1] = g_.out_degree(list[k]) + 1;
    for (size_t k = 0; k < list.size(); ++k) prefix[k + 1] += prefix[k];
    const uint64_t total = prefix.back();
    const size_t count = threads * 16;
    for (size_t t = 1; t < count; ++t) {
      const uint64_t target = total * t / count;
      const size_t at = static_cast<size_t>(std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin());
      if (at > tasks.back() && at < list.size()) tasks.push_back(at);
    }
    tasks.push_back(list.size());
    return tasks;
  }

  // Vertex chunks (multiples of 64 vertices) of about equal cost for pull passes.
  template <typename Cost>
  std::vector<uint64_t> balanced_chunks(Cost cost) const {
    const uint64_t n = g_.num_vertices();
    const uint64_t words = (n + 63) / 64;
    std::vector<uint64_t> word_cost(words + 1, 0);
#pragma omp parallel for
    for (uint64_t w = 0; w < words; ++w) {
      uint64_t c = 0;
      for (uint64_t v = w * 64; v < std::min(n, w * 64 + 64); ++v) c += cost(v) + 1;
      word_cost[w + 1] = c;
    }
    for (uint64_t w = 0; w < words; ++w) word_cost[w + 1] += word_cost[w];
    const uint64_t total = word_cost.back();
    const uint64_t count = static_cast<uint64_t>(max_threads()) * 32;
    std::vector<uint64_t> chunks{0};
    for (uint64_t t = 1; t < count; ++t) {
      const uint64_t target = total * t / count;
      const uint64_t w = static_cast<uint64_t>(std::lower_bound(word_cost.begin(), word_cost.end(), target) - word_cost.begin());
      const uint64_t v = std::min(n, w * 64);
      if (v > chunks.back() && v < n) chunks.push_back(v);
    }
    chunks.push_back(n);
    return chunks;
  }

  const Graph& g_;
  EngineOptions options_;
  uint32_t p_ = 1;
  Bitmap claimed_;
  std::vector<std::vector<Id>> found_;
  std::vector<uint64_t> pull_chunks_;
  std::vector<IterationStats> stats_;
};

}  // namespace tg
