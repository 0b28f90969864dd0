// The CPU engine's vertex-major edge passes: push (each active source's value along its
// out-edges, combined atomically into the targets), pull (each target reduces the messages of
// its in-edges from the frontier, one writer, no atomics), the apply that follows, and the edge
// balance of push's tasks. They walk whatever adjacency they are handed: the mapped file's, or
// the leased blocks of a block-major pass (engine/cpu/block_major.h). Member definitions of
// Engine, declared in engine/cpu/engine.h, which includes this file at its end. Each is marked
// inline, as a definition inside the class is, so the compiler weighs inlining them the same.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <vector>

#include "engine/cpu/engine.h"

namespace tg {

// apply() for each vertex of a changed list, keeping the activated ones in place; returns
// their out-edges.
template <typename Id, typename W>
template <typename Program>
inline uint64_t Engine<Id, W>::apply_list(const Program& program, std::vector<Id>& list,
                                          bool claimed) {
  size_t kept = 0;
  uint64_t edges = 0;
  for (Id v : list) {
    if (claimed) claimed_.clear_atomic(v);
    if (!owns(v)) continue;  // another rank's vertex: its message went to its owner
    if (program.apply(v)) {
      list[kept++] = v;
      edges += g_.out_degree(v);
    }
  }
  list.resize(kept);
  return edges;
}

// A push's edge body, vertex-major and block-major alike: the message of a source's value
// along an edge (v, w) combines atomically into v's target; a vertex it activates joins `mine`
// (the thread's list). Everything is captured by value, the list aside: the atomics are a
// barrier to the compiler, which otherwise reloaded each captured variable through the closure
// after every edge (22 instructions around the one random load where 13 remain; SSSP on
// kron-22 took 0.76 of its time once they stayed in registers).
template <typename Id, typename W>
template <typename Program, typename Value>
inline auto Engine<Id, W>::push_edge(const Program& program, Value value, const Bitmap* only,
                                     std::vector<Id>& mine) {
  using Op = typename Program::Op;
  return [&mine, claimed = &claimed_, program, value, only, target = program.target()](Id v, W w) {
    if (only && !only->get(v)) return;
    if constexpr (HasWants<Program>) {
      if (!program.wants(target.load(v))) return;
    }
    const auto message = program.message(value, w);
    if constexpr (ActivatesOnce<Program>) {
      // A target leaves its identity once: the message that moves it is the activation, so
      // one compare-and-swap decides it (later messages still combine).
      (void)claimed;
      auto expected = Op::identity();
      if (std::atomic_ref(target[v]).compare_exchange_strong(expected, message,
                                                             std::memory_order_relaxed)) {
        mine.push_back(v);
      } else {
        Op::atomic_combine(target[v], message);
      }
    } else if (Op::atomic_combine(target[v], message) && claimed->set_atomic(v)) {
      mine.push_back(v);
    }
  };
}

// Push: each active source's value travels along its out-edges and is combined atomically
// into the targets; with kFused, each thread applies the vertices it changed after the barrier.
template <typename Id, typename W>
template <bool kFused, typename Program>
inline auto Engine<Id, W>::push(const Program& shared, const Set& frontier,
                                const PassOptions<Id>& pass, Changed<Id>& c,
                                const Adjacency<Id, W>& shared_adj) -> Set {
  // The pass works on its own copy of the program and of the adjacency, as a rank or a device
  // would: the views they hold then stay in registers instead of being reloaded after every
  // store (see pull_loop).
  const Program program = shared;
  const Adjacency<Id, W> adj = shared_adj;
  constexpr bool kBoth = BothDirections<Program>;
  const auto& list = frontier.list();
  const Bitmap* only = pass.targets ? pass.targets->membership() : nullptr;
  const int threads = max_threads();
  const bool small = frontier.size() + frontier.out_edges() < options_.serial_work;
  clear_found();
  uint64_t edges = 0;
  const auto tasks = edge_balanced_tasks(list);
  const size_t task_count = tasks.size() - 1;
#pragma omp parallel num_threads(small ? 1 : threads) reduction(+ : edges)
  {
    OwnList<Id> own(found_[static_cast<size_t>(omp_get_thread_num())]);  // alone on its cache lines
    auto& mine = own.list();
#pragma omp for schedule(dynamic, 1)
    for (size_t task = 0; task < task_count; ++task) {
      for (size_t k = tasks[task]; k < tasks[task + 1]; ++k) {
        const Id u = list[k];
        adj.template for_out<kBoth>(u, push_edge(program, program.source_value(u), only, mine));
      }
    }
    // After the barrier every message has landed.
    if constexpr (kFused) edges += apply_list(program, mine, !ActivatesOnce<Program>);
  }
  c.stats.edges_examined = frontier.out_edges() * (kBoth && g_.directed() ? 2 : 1);
  if constexpr (kFused) return Set::sparse(g_.num_vertices(), concatenate(found_), edges);
  return hand_found_to(c, !ActivatesOnce<Program>);
}

// Pull: each vertex reduces the messages of its in-edges from the frontier locally (stopping
// once saturated) and combines the result into its own target: one writer, no atomics.
template <typename Id, typename W>
template <bool kFused, typename Program>
inline auto Engine<Id, W>::pull(const Program& program, const Set& frontier,
                                const PassOptions<Id>& pass, Changed<Id>& c,
                                const Adjacency<Id, W>& adj) -> Set {
  frontier.prepare_dense();
  // Separately compiled loops: with every vertex active there is no membership test per
  // edge, and without a target set no test per vertex.
  const Bitmap* only = pass.targets ? pass.targets->membership() : nullptr;
  const bool everyone = frontier.kind() == Set::Kind::kAll;
  if (only) {
    return everyone ? pull_loop<kFused, true, true>(program, frontier, only, c, adj)
                    : pull_loop<kFused, false, true>(program, frontier, only, c, adj);
  }
  return everyone ? pull_loop<kFused, true, false>(program, frontier, only, c, adj)
                  : pull_loop<kFused, false, false>(program, frontier, only, c, adj);
}

template <typename Id, typename W>
template <bool kFused, bool kEveryone, bool kOnlyTargets, typename Program>
inline auto Engine<Id, W>::pull_loop(const Program& shared, const Set& frontier, const Bitmap* only,
                                     Changed<Id>& c, const Adjacency<Id, W>& shared_adj) -> Set {
  // A copy on the stack: through a reference the compiler reloaded the adjacency's fields after
  // every store to the target (PageRank's pull was 1.17x slower than with the member that the
  // reference replaced, when the block store came).
  const Adjacency<Id, W> adj = shared_adj;
  using Op = typename Program::Op;
  const Program program = shared;  // see push()
  using Value = typename Op::Value;
  constexpr bool kBoth = BothDirections<Program>;
  // Programs that look at the target before reading edges load it first; the others after
  // the scan, so it holds no register through the edge loop.
  constexpr bool kTargetFirst = HasWants<Program> || HasSaturated<Program>;
  const auto target = program.target();
  Bitmap next(kFused ? g_.num_vertices() : 0);
  if constexpr (!kFused) clear_found();
  uint64_t size = 0, edges = 0, examined = 0;
  const size_t chunk_count = pull_chunks_.size() - 1;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : size, edges, examined)
  for (size_t chunk = 0; chunk < chunk_count; ++chunk) {
    // Chunks cover whole 64-vertex words, so each thread owns the bitmap words it writes.
    const uint64_t end = pull_chunks_[chunk + 1];
    for (uint64_t v = pull_chunks_[chunk]; v < end; ++v) {
      if constexpr (kOnlyTargets) {
        // To the next target: a word of the bitmap at a time, so a pass into a few targets
        // (betweenness's backward step) costs n / 64 words, not n tests.
        const uint64_t rest = only->word(v / 64) >> (v % 64);
        if (rest == 0) {
          v |= 63;  // the loop's ++v goes to the next word
          continue;
        }
        v += static_cast<uint64_t>(std::countr_zero(rest));
        if (v >= end) break;
      }
      Value current{};  // v's target; only this thread writes it during the pass
      if constexpr (kTargetFirst) current = target[v];
      if constexpr (HasWants<Program>) {
        if (!program.wants(current)) continue;
      }
      Value acc = Op::identity();
      examined += adj.template for_in_until<kBoth>(v, [&](Id u, W w) {
        if constexpr (!kEveryone) {
          if (!frontier.contains(u)) return false;
        }
        acc = Op::combine(acc, program.message(program.source_value(u), w));
        if constexpr (HasSaturated<Program>) {
          return program.saturated(Op::combine(current, acc));
        } else {
          return false;
        }
      });
      if constexpr (!kTargetFirst) current = target[v];
      const Value combined = Op::combine(current, acc);
      if (combined == current) continue;
      // Other threads read the target as a source value only if the program says so; the atomic
      // store costs the others 12% of PageRank's pull instructions (GCC reloads around it).
      if constexpr (SourceReadsTarget<Program>) {
        target.store(v, combined);
      } else {
        target[v] = combined;
      }
      if constexpr (kFused) {
        if (program.apply(static_cast<Id>(v))) {
          next.set(v);
          ++size;
          edges += g_.out_degree(v);
        }
      } else {
        found_[static_cast<size_t>(omp_get_thread_num())].push_back(static_cast<Id>(v));
      }
    }
  }
  c.stats.edges_examined = examined;
  if constexpr (kFused) return Set::dense(g_.num_vertices(), std::move(next), size, edges);
  return hand_found_to(c, false);
}

// gather_then's pull (pass_frame.h): every vertex reduces its in-edges' messages and hands the
// result straight to then(); each chunk's values combine in chunk order, so the result does not
// depend on which thread took which chunk.
template <typename Id, typename W>
template <typename Op, typename Program, typename Then>
inline auto Engine<Id, W>::pull_then(const Program& shared, const Then& shared_then, Changed<Id>& c,
                                     const Adjacency<Id, W>& shared_adj) -> typename Op::Value {
  using Combine = typename Program::Op;
  using Value = typename Op::Value;
  constexpr bool kBoth = BothDirections<Program>;
  const size_t chunk_count = pull_chunks_.size() - 1;
  std::vector<Value> per_chunk(chunk_count, Op::identity());
  uint64_t examined = 0;
#pragma omp parallel reduction(+ : examined)
  {
    // A thread's own copies: through the shared ones every vertex reloaded their fields.
    const Adjacency<Id, W> adj = shared_adj;
    const Program program = shared;
    const Then then = shared_then;
#pragma omp for schedule(dynamic, 1)
    for (size_t chunk = 0; chunk < chunk_count; ++chunk) {
      Value mine = Op::identity();
      const uint64_t end = pull_chunks_[chunk + 1];
      for (uint64_t v = pull_chunks_[chunk]; v < end; ++v) {
        const auto acc = adj.template combine_in<kBoth, Combine>(
            v, [&](Id u, W w) { return program.message(program.source_value(u), w); }, examined);
        mine = Op::combine(mine, then(static_cast<Id>(v), acc));
      }
      per_chunk[chunk] = mine;
    }
  }
  c.stats.edges_examined = examined;
  Value total = Op::identity();
  for (const Value& x : per_chunk) total = Op::combine(total, x);
  return total;
}

// Splits a frontier list into tasks of roughly equal out-edge counts.
template <typename Id, typename W>
inline std::vector<size_t> Engine<Id, W>::edge_balanced_tasks(const std::vector<Id>& list) const {
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
    const size_t at = static_cast<size_t>(std::lower_bound(prefix.begin(), prefix.end(), target) -
                                          prefix.begin());
    if (at > tasks.back() && at < list.size()) tasks.push_back(at);
  }
  tasks.push_back(list.size());
  return tasks;
}

}  // namespace tg
