// The shared-memory engine. It owns everything an algorithm touches: vertex state (VertexArray),
// frontiers, every loop over vertices and edges, reductions, and the priority bins; an algorithm
// only says what flows along an edge and how values combine (see program.h for the contract).
// Because no algorithm runs a loop of its own, the same algorithm text can run where the loops
// are issued differently: over a block store, across MPI ranks, on a GPU.
//
// The primitives are engine/concept.h's, each named after what a distributed or device backend
// issues for it: vertex arrays are engine-placed state (a window, device memory), reduce an
// allreduce, combine_at an atomic at an index (MPI_Accumulate, atomicMin), link a compare-and-
// swap hook, gather_then an edge pass whose vertex step may run inside the pass where the pass
// gathers at one vertex at a time, collect a gather.
//
// The files, one job each (all in engine/cpu/):
//   engine.h          this class, the facade: the edge passes' interface and the engine's state.
//   vertex_arrays.h   its base: the vertex arrays it hands out and what a vertex function does
//                     to one (combine_at, root, link), collect, scopes.
//   vertex_passes.h   that base's base: vertex sets, passes over them, and the priority bins.
//   vertex_state.h    the arrays' storage, and the bytes they hold.
//   engine_types.h    the options and figures its interface takes and returns.
//   engine_setup.h    its construction (the store, the pull's chunks) and memory().
//   vertex_major.h    push and pull walked vertex by vertex.
//   pass_frame.h      every edge pass opened (direction, schedule), walked and closed.
//   block_major.h     push and pull walked block by block over the block store.
//   triangle_pass.h   every triangle once, from degree-ordered lists (oriented_adjacency.h).
//   gather_pass.h     rounds of each vertex's value from its neighbours' (neighbour_lists.h).
//                     (These six: out-of-class members.)
//   block_tasks.h     the tasks of a block-major pass and the store plan they read.
//   adjacency.h       a vertex's edges across the block grid; balanced vertex chunks.
//   frontier.h, bins.h, vertex_ops.h  vertex sets, delta-stepping's bins, the handle a vertex
//                     function reaches the engine through.
//   working_memory.h, pull_scratch.h  what it declares it holds, and what a pull's accumulators
//                     held (measured).
// What only MPI ranks need (a push in slices, messages from other ranks) is engine/mpi's
// (sliced_push.h), over the few primitives for backends this engine offers.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/combine.h"
#include "engine/concept.h"
#include "engine/cpu/adjacency.h"
#include "engine/cpu/bins.h"
#include "engine/cpu/block_tasks.h"
#include "engine/cpu/engine_types.h"
#include "engine/cpu/frontier.h"
#include "engine/cpu/neighbour_lists.h"
#include "engine/cpu/oriented_adjacency.h"
#include "engine/cpu/pull_scratch.h"
#include "engine/cpu/vertex_arrays.h"
#include "engine/cpu/vertex_ops.h"
#include "engine/program.h"
#include "engine/schedule.h"
#include "engine/stats.h"
#include "engine/vertex_array.h"
#include "graph/graph_view.h"
#include "store/block_store.h"
#include "store/mapped_store.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/timer.h"

namespace tg {

template <typename Id, typename W>
class Engine : public VertexArrays<Id, W> {
  using Vertices = VertexArrays<Id, W>;

 public:
  using Graph = GraphView<Id, W>;
  using Set = Frontier<Id>;
  using VertexId = Id;
  using Weight = W;
  using Vertices::owns;  // (a name of the dependent base, found unqualified in the passes)

  Engine(const Graph& graph, const EngineOptions& options);

  const Graph& graph() const { return g_; }
  BlockStore& store() const { return *store_; }
  uint64_t num_vertices() const { return g_.num_vertices(); }
  uint64_t num_arcs() const { return g_.num_arcs(); }
  uint64_t out_degree(uint64_t v) const { return g_.out_degree(v); }
  std::vector<IterationStats>& stats() { return stats_; }
  const EngineOptions& options() const { return options_; }
  // Starts a trial's figures: pass stats, and the peak of the vertex state and results held.
  void reset_stats() {
    stats_.clear();
    this->reset_held_bytes();
  }
  // The most a block-major pull's slice accumulators held at once (working_memory.h's
  // pull_scratch_bytes promises this), since the engine was made.
  uint64_t peak_pull_scratch_bytes() const { return pull_scratch_.peak(); }
  // What the run holds now, by class. Frontiers an algorithm keeps are its own (they hold at
  // most one id per vertex, or a bitmap) and are not counted here.
  MemoryUse memory() const;

  // The handle a vertex function reaches the engine through (engine/cpu/vertex_ops.h).
  EngineOps<Engine> ops() { return {this}; }

  // ---- edges ---------------------------------------------------------------------------------

  // Afforest's links (block_major.h). sample_pass calls f(u, v) for out-arc r (from 0, across
  // u's row) of every vertex u that has one (a tier fetches only the heads of the blocks);
  // arc_pass for every other arc at each member u of set in the undirected view: u's out-arcs
  // after its first `skip` and, on a directed graph, its in-arcs (v the source).
  template <typename F>
  void sample_pass(uint32_t r, F f);
  template <typename F>
  void arc_pass(const Set& set, uint32_t skip, F f);

  // f(Triangle) for every triangle of the graph's undirected view, once, and each vertex's sum
  // of the CornerShares f gave it (engine/triangles.h), from lists ordered by degree that the
  // pass builds from the stored arcs and frees after it (engine/cpu/triangle_pass.h); they
  // count as vertex state while it runs.
  template <typename F>
  VertexArray<int64_t> triangle_sums(F f);
  // Each vertex's number of neighbours in the undirected view, itself excluded.
  VertexArray<int64_t> neighbour_counts();
  // The same for the masters only, into counts, where the store maps the file and so a vertex's
  // arcs both ways are at hand: counted without building the lists. False, writing nothing, over
  // a fetching store. (MPI ranks count their masters so too.)
  bool count_neighbours_in_place(VertexArray<int64_t> counts);
  // `rounds` synchronous rounds of values[v] = f(values[v], the values at v's neighbours, as a
  // std::span<T> f may reorder), each round reading only the last one's values
  // (engine/cpu/gather_pass.h): through neighbour lists the pass builds from the stored arcs and
  // frees after it, counted as vertex state while it runs, with a second array of values.
  template <typename T, typename F>
  void gather_rounds(VertexArray<T> values, uint32_t rounds, F f);
  // The same over this engine's masters only, share(a) after each round making the array `a`
  // whole (an MPI rank gathers the other ranks' slices of it; engine/mpi/dist_engine.h).
  template <typename T, typename F, typename Share>
  void gather_rounds(VertexArray<T> values, uint32_t rounds, F f, Share share);

  // One pass of messages along the edges out of `frontier`; returns the vertices apply() activated.
  template <typename Program>
  Set edge_pass(const Program& program, const Set& frontier, PassOptions<Id> pass = {});

  // An edge pass over every vertex, then then(v, gathered) at each vertex, gathered being the
  // combination of the messages the pass sent v (the identity if none); returns the
  // op-combination of the then() values. The program's target holds the identity before and
  // after. then(v) may write v's own state, but nothing the pass's messages read: the vertex-major
  // pull runs it as soon as v's in-edges are read, writing no target (pass_frame.h).
  template <typename Op, typename Program, typename Then>
  typename Op::Value gather_then(Op op, const Program& program, Then then);

  // The same pass in two phases: combine every message into its target, then (after whatever
  // barrier the backend needs) apply once per changed vertex.
  template <typename Program>
  Changed<Id> combine_pass(const Program& program, const Set& frontier, PassOptions<Id> pass = {});
  template <typename Program>
  Set apply_pass(const Program& program, Changed<Id> c);

  // ---- for backends built on this engine (engine/mpi/sliced_push.h) ---------------------------

  // Opens a pass as combine_pass does (direction, schedule, the begin hook) and runs nothing.
  template <typename Program>
  Changed<Id> open_pass(const Set& frontier, const PassOptions<Id>& pass) const;
  // The combine phase of the messages out of `sources` only, in the direction and schedule an
  // opened pass chose (`opened`): the vertices it changed, per worker, with its figures.
  template <typename Program>
  Changed<Id> combine_sources(const Program& program, const Set& sources,
                              const PassOptions<Id>& pass, const IterationStats& opened);
  // The claim bit a changed vertex holds until apply_pass: true if this call set it (any thread).
  bool claim(Id v) { return claimed_.set_atomic(v); }
  void unclaim(Id v) { claimed_.clear(v); }  // a vertex handed to another rank's apply

  // visit(u, v) for every stored out-arc (with `in`: in-arc, of a directed graph) of every
  // master, a vertex's arcs from one thread (engine/cpu/triangle_pass.h): the lists the triangle
  // and gather passes build are built from it, here and on MPI ranks.
  template <typename Visit>
  void for_each_stored_arc(bool in, Visit visit);

  // The direction a pass of `program` over `frontier` takes (the same on every rank: it looks at
  // the frontier's job-wide counts only). `listed`: the pass's targets where its pull would visit
  // only them (a one-process vertex-major pass over the mapped file; ranks never name them, as
  // whether a rank's store is mapped is its own).
  template <typename Program>
  Direction direction_for(const Set& frontier, const PassOptions<Id>& pass,
                          const Set* listed = nullptr) const;

 private:
  using Vertices::hi_;  // the masters (EngineOptions::owned), the vertex side's
  using Vertices::lo_;

  // Every edge pass's frame: opened (direction, schedule, figures, hooks), walked in the chosen
  // schedule, closed (engine/cpu/pass_frame.h).
  template <typename Program>
  Changed<Id> begin_pass(const Set& frontier, const PassOptions<Id>& pass) const;
  Set finish_pass(Set next, Changed<Id>& c, double seconds);
  template <typename Program>
  Direction choose_direction(const Set& frontier, const Set* listed) const;
  Schedule choose_schedule(const char*& reason) const;
  // The pass's targets, where its pull in `schedule` visits only the targets (pull_loop).
  const Set* listed_targets(const PassOptions<Id>& pass, Schedule schedule) const;
  template <bool kFused, typename Program>
  Set run_edges(const Program& program, const Set& frontier, const PassOptions<Id>& pass,
                Changed<Id>& c);

  // The lists of a pass's changed vertices, one per thread (found_), emptied for a new pass.
  void clear_found() {
    found_.resize(static_cast<size_t>(max_threads()));
    for (auto& f : found_) f.clear();
  }
  // An unfused pass's end: what its threads found becomes the pass's changed lists, applied by
  // apply_pass after the backend's barrier (claimed: the vertices were claimed, as push does).
  Set hand_found_to(Changed<Id>& c, bool claimed) {
    c.lists = std::move(found_);
    c.claimed = claimed;
    return Set::sparse(g_.num_vertices(), {}, 0);
  }

  // Vertex-major edge passes and their helpers (engine/cpu/vertex_major.h).
  template <typename Program>
  uint64_t apply_list(const Program& program, std::vector<Id>& list, bool claimed);
  template <typename Program, typename Value>
  auto push_edge(const Program& program, Value value, const Bitmap* only, std::vector<Id>& mine);
  template <bool kFused, typename Program>
  Set push(const Program& shared, const Set& frontier, const PassOptions<Id>& pass, Changed<Id>& c,
           const Adjacency<Id, W>& shared_adj);
  template <bool kFused, typename Program>
  Set pull(const Program& program, const Set& frontier, const PassOptions<Id>& pass, Changed<Id>& c,
           const Adjacency<Id, W>& adj);
  template <bool kFused, bool kEveryone, bool kOnlyTargets, typename Program>
  Set pull_loop(const Program& shared, const Set& frontier, const Bitmap* only, Changed<Id>& c,
                const Adjacency<Id, W>& shared_adj);
  template <typename Op, typename Program, typename Then>
  typename Op::Value pull_then(const Program& shared, const Then& shared_then, Changed<Id>& c,
                               const Adjacency<Id, W>& adj);

  std::vector<size_t> edge_balanced_tasks(const std::vector<Id>& list) const;

  // Block-major edge passes, and vertex-major ones over a fetching store
  // (engine/cpu/block_major.h).
  template <typename Program>
  uint64_t pass_grids(bool) const;
  template <bool kFused, typename Program>
  Set vertex_major_held(const Program& program, const Set& frontier, const PassOptions<Id>& pass,
                        Changed<Id>& c);
  const Slices& block_slices(bool pushing);
  PassPlan plan_blocks(bool pushing, bool reversed, bool both, const std::vector<char>& active,
                       const Slices& slices, bool in_turns = true,
                       const ActiveSources* sources = nullptr);
  template <typename Task>
  void run_block_tasks(const Slices& slices, const PassPlan& plan, Task task);
  template <bool kFused, typename Program>
  Set push_blocks(const Program& shared, const Set& frontier, const PassOptions<Id>& pass,
                  Changed<Id>& c);
  template <bool kFused, typename Program>
  Set pull_blocks(const Program& shared, const Set& frontier, const PassOptions<Id>& pass,
                  Changed<Id>& c);
  template <typename F>
  void arcs_by_blocks(uint32_t skip, uint32_t k, bool in, const Set* members, F& f);
  static constexpr uint32_t kEveryArc = UINT32_MAX;
  OrientedAdjacency<Id> oriented_lists();
  template <typename T, typename F>
  void gather_round(const NeighbourLists<Id>& lists, VertexArray<T> from, VertexArray<T> to, F& f);

  const Graph& g_;
  Adjacency<Id, W> adj_;
  // The transposed graph's adjacency, for passes against the arcs (engine/program.h's
  // kReversed): its out-grid is this graph's in-grid, both stored major-first.
  Adjacency<Id, W> reversed_adj_;
  EngineOptions options_;
  std::unique_ptr<MappedStore> own_store_;
  BlockStore* store_ = nullptr;
  std::optional<Slices> push_slices_, pull_slices_;
  Bitmap claimed_;
  std::vector<std::vector<Id>> found_;
  std::vector<uint64_t> pull_chunks_;
  std::vector<IterationStats> stats_;
  PullScratchCount pull_scratch_;
};

// Checked here, where the engine is defined, as well as at every driver that runs on it.
static_assert(GraphEngine<Engine<uint32_t, NoWeight>>);
static_assert(GraphEngine<Engine<uint64_t, double>>);
static_assert(IntersectingEngine<Engine<uint32_t, NoWeight>>);
static_assert(GatheringEngine<Engine<uint32_t, NoWeight>>);

}  // namespace tg

#include "engine/cpu/block_major.h"    // the definitions of the block-major passes
#include "engine/cpu/engine_setup.h"   // the definitions of its construction and memory()
#include "engine/cpu/gather_pass.h"    // the definition of the gather pass
#include "engine/cpu/pass_frame.h"     // the definitions of a pass's frame
#include "engine/cpu/triangle_pass.h"  // the definition of the triangle pass
#include "engine/cpu/vertex_major.h"   // the definitions of the vertex-major passes
