// The CPU engine's edge passes as they meet a fetching block store (out-of-class members of
// Engine, engine.h): the block-major push and pull run tasks over the block grid (block_tasks.h),
// each block read as its lease arrives; vertex-major over a fetching store holds every block of
// the pass at once; the sampled pass reads the heads of a row's blocks. run_edges (pass_frame.h)
// picks among them; the vertex-major loops themselves are vertex_major.h's.
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <span>
#include <vector>

#include "engine/cpu/engine.h"

namespace tg {

// How many grids a pass reads: its direction's, and the other one too when a program follows
// edges both ways on a directed graph.
template <typename Id, typename W>
template <typename Program>
inline auto Engine<Id, W>::pass_grids(bool) const -> uint64_t {
  return BothDirections<Program> && g_.directed() ? 2 : 1;
}

// Vertex-major over a fetching store: every block of the pass's grids is leased for the whole
// pass (the pool must hold them all), and the vertex-major loops read the leased copies.
template <typename Id, typename W>
template <bool kFused, typename Program>
inline auto Engine<Id, W>::vertex_major_held(const Program& program, const Set& frontier,
                                             const PassOptions<Id>& pass, Changed<Id>& c) -> Set {
  const bool pushing = c.stats.direction == Direction::kPush;
  const uint32_t p = g_.blocks_per_side();
  const uint64_t per_grid = uint64_t{p} * p;
  // The undirected in grid is the out grid: its blocks are leased once.
  const Grid main =
      reads_in_grid(pushing, Reversed<Program>, g_.directed()) ? Grid::kIn : Grid::kOut;
  std::vector<Grid> grids{main};
  if (BothDirections<Program> && g_.directed())
    grids.push_back(main == Grid::kOut ? Grid::kIn : Grid::kOut);
  const uint64_t blocks = grids.size() * per_grid;
  if (blocks > store_->capacity_blocks()) {
    fail(
        "the vertex-major schedule holds every block of a pass at once: this pass needs {} blocks, "
        "but the {} "
        "store holds {}; use --schedule block (or auto), or a larger pool",
        blocks, store_->name(), store_->capacity_blocks());
  }
  std::vector<PlannedBlock> plan;
  for (Grid grid : grids)
    for (uint32_t i = 0; i < p; ++i)
      for (uint32_t j = 0; j < p; ++j) {
        if (!store_->pieces({grid, i, j}).empty()) {
          fail(
              "the vertex-major schedule reads whole blocks, but the {} store leases block (row "
              "{}, column {}) "
              "of the {} grid in pieces (it is larger than a buffer); use --schedule block (or "
              "auto), or larger "
              "buffers",
              store_->name(), grid == Grid::kOut ? i : j, grid == Grid::kOut ? j : i,
              grid_name(grid));
        }
        plan.push_back({.block = {grid, i, j}});
      }
  store_->begin_pass(std::move(plan));
  struct EndPass {
    BlockStore& store;
    ~EndPass() { store.end_pass(); }
  } end_pass{*store_};
  // Leased decoders, with the in-memory presence index of the same blocks (it depends only on
  // the block's vertex list, which the lease holds unchanged).
  std::vector<BlockDecoder> held_out(per_grid), held_in(per_grid);
  for (size_t gi = 0; gi < grids.size(); ++gi) {
    auto& held = grids[gi] == Grid::kOut ? held_out : held_in;
    const BlockDecoder* mapped = g_.grid(grids[gi]);
    for (uint64_t k = 0; k < per_grid; ++k) {
      held[k] = store_->acquire(gi * per_grid + k);
      held[k].presence = mapped[k].presence;
      held[k].presence_rank = mapped[k].presence_rank;
    }
  }
  if (!g_.directed()) held_in = held_out;
  // A grid the pass does not read keeps the mapped decoders, which it never dereferences.
  const bool have_out =
      std::find(grids.begin(), grids.end(), Grid::kOut) != grids.end() || !g_.directed();
  const bool have_in =
      std::find(grids.begin(), grids.end(), Grid::kIn) != grids.end() || !g_.directed();
  const BlockDecoder* out = have_out ? held_out.data() : g_.grid(Grid::kOut);
  const BlockDecoder* in = have_in ? held_in.data() : g_.grid(Grid::kIn);
  const Adjacency<Id, W> adj =
      Reversed<Program> ? Adjacency<Id, W>(g_, in, out) : Adjacency<Id, W>(g_, out, in);
  Set next = pushing ? push<kFused>(program, frontier, pass, c, adj)
                     : pull<kFused>(program, frontier, pass, c, adj);
  for (uint64_t k = 0; k < blocks; ++k) store_->release(k);
  return next;
}

template <typename Id, typename W>
inline auto Engine<Id, W>::block_slices(bool pushing) -> const Slices& {
  auto& slices = pushing ? push_slices_ : pull_slices_;
  if (!slices) {
    // A fetching store gets at most one slice per thread in a range (see block_tasks.h).
    const uint64_t cap = store_->zero_copy() ? ~uint64_t{0} : static_cast<uint64_t>(max_threads());
    slices = make_slices(
        g_.ranges(), g_.num_vertices(), max_threads(), cap,
        [&](uint64_t v) { return pushing ? g_.out_degree(v) : g_.in_degree(v); }, lo_, hi_);
  }
  return *slices;
}

// The plan of a block-major pass: for each major range in order, its blocks with arcs whose
// source side is active (push: the range itself; pull: the block's minor range), from the
// pass's grid (push: the out grid, pull: the in grid; the other way round for a pass against
// the arcs) and, for both-way programs on directed graphs, from the other. A block the store
// leases in pieces is planned as its pieces, each with the uses of the slices it meets.
//
// With `sources` (a sparse push over a fetching store), a block or piece holding none of the
// active sources is not planned, and one where reading only their entries moves fewer bytes
// (the store says) is planned as that selection.
template <typename Id, typename W>
inline auto Engine<Id, W>::plan_blocks(bool pushing, bool reversed, bool both,
                                       const std::vector<char>& active, const Slices& slices,
                                       bool in_turns, const ActiveSources* sources) -> PassPlan {
  const uint32_t p = g_.blocks_per_side();
  const Grid main = reads_in_grid(pushing, reversed, g_.directed()) ? Grid::kIn : Grid::kOut;
  const Grid other = main == Grid::kOut ? Grid::kIn : Grid::kOut;
  const auto ranges = g_.ranges();
  const bool zero_copy = store_->zero_copy();
  std::vector<PlannedBlock> plan;
  PassPlan pass;
  pass.of_range.assign(p + 1, 0);
  struct Selected {
    size_t entry, first, count;
  };
  std::vector<Selected> selected;
  std::vector<EntryRun> runs;
  PieceSelections by_piece;
  auto add = [&](Grid grid, uint32_t r, uint32_t m, uint32_t uses) {
    const BlockDecoder& d = g_.grid(grid)[uint64_t{r} * p + m];
    if (d.edge_count == 0) return;
    const BlockId block{grid, r, m};
    const auto pieces =
        zero_copy ? std::span<const BlockPiece>{} : store_->pieces(block);  // resident: whole
    const bool selecting = sources && (!d.dcsr() || d.presence);
    auto degree = [&](uint64_t v) {
      return grid == Grid::kOut ? g_.out_degree(v) : g_.in_degree(v);
    };
    // Plans the block (or piece) as selections of `chosen` when they pay, in as many leases as
    // the store asks for (it bounds the reads of one request), each with `lease_uses` uses, the
    // vertices [first, last) for the tasks' filter; says whether it did.
    auto select = [&](std::span<const EntryRun> chosen, uint64_t bound, uint32_t piece,
                      uint32_t lease_uses, uint64_t first, uint64_t last) {
      const uint64_t leases = store_->selection_leases(block, chosen, bound, piece);
      if (leases == 0) return false;
      const uint64_t per = (chosen.size() + leases - 1) / leases;
      for (uint64_t at = 0; at < chosen.size(); at += per) {
        const uint64_t count = std::min<uint64_t>(per, chosen.size() - at);
        selected.push_back({plan.size(), pass.selections.size(), count});
        pass.selections.insert(pass.selections.end(), chosen.begin() + at,
                               chosen.begin() + at + count);
        plan.push_back({.block = block, .uses = lease_uses, .piece = piece, .split = leases > 1});
        pass.vertex_first.push_back(first);
        pass.vertex_last.push_back(last);
      }
      return true;
    };
    if (selecting && pieces.empty()) {
      runs.clear();
      const uint64_t bound = select_entries(d, sources->of(r), degree, runs);
      if (runs.empty()) return;  // no active source has arcs here
      if (select(runs, bound, PlannedBlock::kWhole, uses, ranges[r], ranges[r + 1])) return;
    }
    if (selecting && !pieces.empty())
      select_piece_entries(d, pieces, sources->of(r), degree, by_piece);
    if (pieces.empty()) {
      plan.push_back({.block = block, .uses = uses});
      if (!zero_copy) {
        pass.vertex_first.push_back(ranges[r]);
        pass.vertex_last.push_back(ranges[r + 1]);
      }
      return;
    }
    // The slices of a range read different pieces at once, so the pieces are planned (and
    // fetched) taking turns between the slices, each slice's own in order: by the first slice
    // a piece meets, round-robin. A pass that reads its entries in plan order (not as they
    // arrive) takes them in order instead, so that what is fetched is what is read next.
    const uint64_t s0 = slices.of_range[r], s1 = slices.of_range[r + 1];
    std::vector<std::vector<uint32_t>> by_slice(in_turns ? s1 - s0 : 1);
    for (uint32_t q = 0; q < pieces.size(); ++q) {
      uint64_t t = s0;
      while (in_turns && t + 1 < s1 && slices.last[t] <= pieces[q].vertex_first) ++t;
      by_slice[t - s0].push_back(q);
    }
    for (size_t turn = 0, placed = 0; placed < pieces.size(); ++turn) {
      for (const auto& mine : by_slice) {
        if (turn >= mine.size()) continue;
        const uint32_t q = mine[turn];
        uint32_t meeting = 0;
        for (uint64_t t = s0; t < s1; ++t)
          meeting +=
              pieces[q].vertex_first < slices.last[t] && slices.first[t] < pieces[q].vertex_last;
        ++placed;
        // A piece of another MPI rank's vertices (the range is shared) meets no slice here:
        // planned, it would hold a buffer that no task releases.
        if (meeting == 0) continue;
        if (selecting && !by_piece.any(q)) continue;  // no active source has arcs here
        if (selecting && !by_piece.whole[q] &&
            select(by_piece.of(q), by_piece.bound[q], q, meeting, pieces[q].vertex_first,
                   pieces[q].vertex_last)) {
          continue;
        }
        plan.push_back({.block = block, .uses = meeting, .piece = q});
        pass.vertex_first.push_back(pieces[q].vertex_first);
        pass.vertex_last.push_back(pieces[q].vertex_last);
      }
    }
  };
  for (uint32_t r = 0; r < p; ++r) {
    pass.of_range[r] = plan.size();
    const uint32_t uses = static_cast<uint32_t>(slices.of_range[r + 1] - slices.of_range[r]);
    if (uses == 0 || (pushing && !active[r])) continue;
    for (uint32_t m = 0; m < p; ++m) {
      if (!pushing && !active[m]) continue;
      add(main, r, m, uses);
      if (both) add(other, r, m, uses);
    }
  }
  pass.of_range[p] = plan.size();
  for (const Selected& x : selected)
    plan[x.entry].selection = {pass.selections.data() + x.first, x.count};
  // Whole blocks meet every slice of their range: the tasks need no filter.
  const bool whole = std::all_of(plan.begin(), plan.end(), [](const PlannedBlock& b) {
    return b.piece == PlannedBlock::kWhole;
  });
  if (whole) pass.vertex_first.clear(), pass.vertex_last.clear();
  store_->begin_pass(std::move(plan));
  return pass;
}

// Runs every task of the ranges that have planned blocks, task(t, first_entry, last_entry) on
// worker threads, then ends the store's pass; an exception in a task (a block that failed its
// check on arrival) cancels the pass and is rethrown here.
// Tasks are handed out strictly in order from one counter, not by an OpenMP loop schedule:
// the deadlock-freedom argument of block_tasks.h needs a range's tasks to start before any
// later range's, and OpenMP's default dynamic schedule is nonmonotonic (LLVM's libomp splits
// the iterations between threads first and steals later, which hung a pass of 3 buffers).
template <typename Id, typename W>
template <typename Task>
inline auto Engine<Id, W>::run_block_tasks(const Slices& slices, const PassPlan& plan, Task task)
    -> void {
  const auto& planned = plan.of_range;
  std::vector<uint64_t> tasks;
  uint64_t widest = 0;  // the most tasks of one range
  for (uint32_t r = 0; r + 1 < planned.size(); ++r) {
    if (planned[r + 1] == planned[r]) continue;
    for (uint64_t t = slices.of_range[r]; t < slices.of_range[r + 1]; ++t) tasks.push_back(t);
    widest = std::max(widest, slices.of_range[r + 1] - slices.of_range[r]);
  }
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  std::atomic<size_t> next{0};
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
    // A team smaller than a range's task count could hold a range's blocks for tasks that
    // never start (the runtime may give fewer threads than asked, with OMP_DYNAMIC).
    if (!store_->zero_copy() && static_cast<uint64_t>(team) < widest) {
#pragma omp single nowait
      error = std::make_exception_ptr(Error(fmt::format(
          "block-major pass: {} threads ran where {} were planned; a fetching store needs them all "
          "(is OMP_DYNAMIC set?)",
          team, widest)));
    } else {
      for (size_t x; (x = next.fetch_add(1, std::memory_order_relaxed)) < tasks.size();) {
        if (failed.load(std::memory_order_relaxed)) continue;
        const uint64_t t = tasks[x];
        try {
          task(t, planned[slices.range[t]], planned[slices.range[t] + 1]);
        } catch (...) {
#pragma omp critical(tg_block_task_error)
          if (!error)
            error = std::current_exception();  // the first failure; those it causes are dropped
          if (!failed.exchange(true, std::memory_order_relaxed)) store_->cancel_pass();
        }
      }
    }
  }
  store_->end_pass();
  if (error) std::rethrow_exception(error);
}

// Block-major push: each task walks its source slice through the blocks of its row; messages
// combine atomically at the targets, as in the vertex-major push.
template <typename Id, typename W>
template <bool kFused, typename Program>
inline auto Engine<Id, W>::push_blocks(const Program& shared, const Set& frontier,
                                       const PassOptions<Id>& pass, Changed<Id>& c) -> Set {
  const Program program = shared;  // see push()
  const bool both = BothDirections<Program> && g_.directed();
  frontier.prepare_dense();
  const Bitmap* only = pass.targets ? pass.targets->membership() : nullptr;
  const Slices& slices = block_slices(true);
  // A sparse frontier over a fetching store reads only its sources' entries where that pays.
  std::optional<ActiveSources> sources;
  if (!store_->zero_copy() && frontier.kind() != Set::Kind::kAll &&
      frontier.size() * kSelectiveShare <= g_.num_vertices()) {
    sources = active_sources(frontier, g_.ranges());
  }
  const PassPlan planned = plan_blocks(true, Reversed<Program>, both, active_ranges(frontier, g_),
                                       slices, true, sources ? &*sources : nullptr);
  clear_found();
  std::atomic<uint64_t> examined{0};
  run_block_tasks(slices, planned, [&](uint64_t t, uint64_t first, uint64_t last) {
    OwnList<Id> own(found_[static_cast<size_t>(omp_get_thread_num())]);  // alone on its cache lines
    auto& mine = own.list();
    uint64_t read = 0;
    auto meets = [&](uint64_t k) { return planned.meets(k, slices.first[t], slices.last[t]); };
    for_each_arrived(*store_, first, last, meets, [&](const BlockDecoder& d) {
      for_each_vertex_in(
          d, slices.first[t], slices.last[t], [&](uint64_t u, uint64_t begin, uint64_t end) {
            if (!frontier.contains(u)) return;
            read += end - begin;
            auto deliver = push_edge(program, program.source_value(static_cast<Id>(u)), only, mine);
            for_arcs<Id, W>(d, begin, end, deliver);
          });
    });
    examined.fetch_add(read, std::memory_order_relaxed);
  });
  c.stats.edges_examined = examined.load();
  if constexpr (kFused) {
    uint64_t edges = 0;
    const bool claimed = !ActivatesOnce<Program>;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : edges)
    for (size_t t = 0; t < found_.size(); ++t) edges += apply_list(program, found_[t], claimed);
    return Set::sparse(g_.num_vertices(), concatenate(found_), edges);
  }
  return hand_found_to(c, !ActivatesOnce<Program>);
}

// Block-major pull: each task owns a 64-aligned destination slice and reduces the messages of
// the slice's in-edges block by block into a slice-local accumulator (plain stores; a vertex
// that saturates is skipped in later blocks), then combines each vertex's result into its
// target once: one writer, no atomics.
template <typename Id, typename W>
template <bool kFused, typename Program>
inline auto Engine<Id, W>::pull_blocks(const Program& shared, const Set& frontier,
                                       const PassOptions<Id>& pass, Changed<Id>& c) -> Set {
  using Op = typename Program::Op;
  using Value = typename Op::Value;
  const Program program = shared;  // see push()
  constexpr bool kTargetFirst = HasWants<Program> || HasSaturated<Program>;
  const bool both = BothDirections<Program> && g_.directed();
  frontier.prepare_dense();
  const bool everyone = frontier.kind() == Set::Kind::kAll;
  const auto target = program.target();
  const Bitmap* only = pass.targets ? pass.targets->membership() : nullptr;
  const Slices& slices = block_slices(false);
  const PassPlan planned =
      plan_blocks(false, Reversed<Program>, both, active_ranges(frontier, g_), slices);
  Bitmap next(kFused ? g_.num_vertices() : 0);
  clear_found();
  std::atomic<uint64_t> examined{0}, size{0}, edges{0};
  enum : uint8_t { kOpen = 0, kSaturated = 1, kSkipped = 2 };
  run_block_tasks(slices, planned, [&](uint64_t t, uint64_t first, uint64_t last) {
    const uint64_t a = slices.first[t], len = slices.last[t] - a;
    std::vector<Value> acc(len, Op::identity()), current(kTargetFirst ? len : 0);
    std::vector<uint8_t> state(len, kOpen);
    const PullScratchCount::Held held(
        pull_scratch_, len * ((kTargetFirst ? 2 : 1) * sizeof(Value) + sizeof(uint8_t)));
    for (uint64_t x = 0; x < len; ++x) {
      if (only && !only->get(a + x)) state[x] = kSkipped;
      if constexpr (kTargetFirst) current[x] = target[a + x];
      if constexpr (HasWants<Program>) {
        if (!program.wants(current[x])) state[x] = kSkipped;
      }
    }
    uint64_t read = 0;
    auto meets = [&](uint64_t k) { return planned.meets(k, a, a + len); };
    for_each_arrived(*store_, first, last, meets, [&](const BlockDecoder& d) {
      for_each_vertex_in(d, a, a + len, [&](uint64_t v, uint64_t begin, uint64_t end) {
        const uint64_t x = v - a;
        if (state[x] != kOpen) return;
        Value reduced = acc[x];
        auto visit = [&](Id u, W w) -> bool {
          if (!everyone && !frontier.contains(u)) return false;
          reduced = Op::combine(reduced, program.message(program.source_value(u), w));
          if constexpr (HasSaturated<Program>) {
            return program.saturated(Op::combine(current[x], reduced));
          } else {
            return false;
          }
        };
        bool stopped = false;
        read += for_arcs<Id, W>(d, begin, end, visit, stopped);
        acc[x] = reduced;
        if (stopped) state[x] = kSaturated;
      });
    });
    uint64_t activated = 0, activated_edges = 0;
    OwnList<Id> own(found_[static_cast<size_t>(omp_get_thread_num())]);  // alone on its cache lines
    auto& mine = own.list();
    for (uint64_t x = 0; x < len; ++x) {
      if (state[x] == kSkipped) continue;
      const uint64_t v = a + x;
      Value now{};
      if constexpr (kTargetFirst)
        now = current[x];
      else
        now = target[v];
      const Value combined = Op::combine(now, acc[x]);
      if (combined == now) continue;
      if constexpr (SourceReadsTarget<Program>) {
        target.store(v, combined);
      } else {
        target[v] = combined;
      }
      if constexpr (kFused) {
        if (program.apply(static_cast<Id>(v))) {
          next.set(v);  // the slice owns whole bitmap words
          ++activated;
          activated_edges += g_.out_degree(v);
        }
      } else {
        mine.push_back(static_cast<Id>(v));
      }
    }
    examined.fetch_add(read, std::memory_order_relaxed);
    size.fetch_add(activated, std::memory_order_relaxed);
    edges.fetch_add(activated_edges, std::memory_order_relaxed);
  });
  c.stats.edges_examined = examined.load();
  if constexpr (kFused)
    return Set::dense(g_.num_vertices(), std::move(next), size.load(), edges.load());
  return hand_found_to(c, false);
}

// sample_pass: over the mapped file, each vertex's out-arc r in its adjacency, in chunks of many
// vertices (a thread's links then seldom touch the cache lines of another's where ids are
// local, as a road network's: with chunks of 1,024, two threads' WCC took 1.0-1.2x the time it
// takes with 16,384 on road-pace-NE and web-cnr-2000); over a fetching store, block by block
// (arcs_by_blocks).
template <typename Id, typename W>
template <typename F>
inline void Engine<Id, W>::sample_pass(uint32_t r, F f) {
  const TeamSize team(options_.threads);
  if (store_->zero_copy()) {
#pragma omp parallel for schedule(dynamic, 16384)
    for (uint64_t u = lo_; u < hi_; ++u)
      adj_.for_out_arc(u, r, [&](Id v) { f(static_cast<Id>(u), v); });
    return;
  }
  arcs_by_blocks(r, 1, false, nullptr, f);
}

// arc_pass: over the mapped file, each member's arcs in its adjacency (a member's arcs are few
// or many, hence the dynamic schedule; chunks as sample_pass's); over a fetching store, the out
// grid's blocks and then, on a directed graph, the in grid's (arcs_by_blocks).
template <typename Id, typename W>
template <typename F>
inline void Engine<Id, W>::arc_pass(const Set& set, uint32_t skip, F f) {
  const TeamSize team(options_.threads);
  const bool in = g_.directed();
  if (store_->zero_copy()) {
    auto visit = [&](uint64_t u) {
      adj_.for_arcs_after(u, skip, in, [&](Id v) { f(static_cast<Id>(u), v); });
    };
    if (set.kind() == Set::Kind::kAll) {
#pragma omp parallel for schedule(dynamic, 16384)
      for (uint64_t u = lo_; u < hi_; ++u) visit(u);
    } else {
      const auto& list = set.list();
#pragma omp parallel for schedule(dynamic, 1024)
      for (size_t k = 0; k < list.size(); ++k) visit(list[k]);
    }
    return;
  }
  set.prepare_dense();
  arcs_by_blocks(skip, kEveryArc, false, &set, f);
  if (in) arcs_by_blocks(0, kEveryArc, true, &set, f);
  set.drop_dense();  // a set the algorithm keeps holds its list, not n bits (as an edge pass)
}

// f(u, v) over a fetching store for the arcs of every vertex u (of `members` only, when given)
// from its skip-th on, k of them at most, counted across its row: its out-arcs or (`in`) its
// in-arcs. Each task walks its source slice through the blocks of its row of that grid in
// column order (a vertex's arcs across the row are in that order), counting per vertex the arcs
// it has passed. sample_pass takes one out-arc, arc_pass the rest and the in-arcs, the
// triangle pass every arc (kEveryArc) of both grids.
template <typename Id, typename W>
template <typename F>
inline auto Engine<Id, W>::arcs_by_blocks(uint32_t skip, uint32_t k, bool in, const Set* members,
                                          F& f) -> void {
  const Slices& slices = block_slices(true);
  std::vector<char> every(g_.blocks_per_side(), 1);
  // Pushing against the arcs reads the in grid, a row of it a vertex range's in-arcs.
  const PassPlan planned = plan_blocks(true, in, false, every, slices, false);
  const uint64_t stop_at = uint64_t{skip} + k;  // past the last arc taken (no overflow)
  run_block_tasks(slices, planned, [&](uint64_t t, uint64_t first, uint64_t last) {
    const uint64_t a = slices.first[t];
    std::vector<uint32_t> passed(slices.last[t] - a, 0);
    // In block and arc order, not as they arrive: a cut vertex's pieces in turn.
    for (uint64_t e = first; e < last; ++e) {
      if (!planned.meets(e, a, slices.last[t])) continue;
      const BlockDecoder& d = store_->acquire(e);
      for_each_vertex_in(d, a, slices.last[t], [&](uint64_t u, uint64_t begin, uint64_t end) {
        if (members && !members->contains(u)) return;
        const uint64_t seen = passed[u - a];  // u's arcs in the blocks before this one
        // The arcs [lo, hi) of u's row, counted from its first, lie in this block.
        const uint64_t lo = std::max<uint64_t>(seen, skip),
                       hi = std::min(seen + (end - begin), stop_at);
        auto take = [&](Id v, W) { f(static_cast<Id>(u), v); };
        if (lo < hi) for_arcs<Id, W>(d, begin + (lo - seen), begin + (hi - seen), take);
        passed[u - a] = static_cast<uint32_t>(seen + (end - begin));
      });
      store_->release(e);
    }
  });
}

}  // namespace tg
