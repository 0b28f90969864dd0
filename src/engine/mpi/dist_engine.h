// The engine on MPI ranks: the same primitives as engine/cpu/engine.h, so the same algorithm text
// runs on one rank or many (kernels take `auto& engine`). Each rank masters a contiguous vertex
// range (engine/mpi/partition.h) and runs a shared-memory Engine restricted to it: its vertex
// passes, its pull targets and the sources it pushes from are its masters; it reads only its rows
// of the graph file's blocks.
//
// Vertex arrays are allocated whole on every rank (n values); a rank's values for its masters
// are the truth, the rest are replicas that the engine keeps as follows:
//   - created consistent: vertex_array(init) everywhere; vertex_array_from fills the masters
//     and gathers every slice (so copies and identity forests start equal on all ranks);
//   - written the same by every rank in the algorithm's sequential code (set, combine_at
//     outside a pass: every rank executes it);
//   - kept whole when the algorithm treats the array as a pointer forest (link, root, compress,
//     most_frequent read any vertex): such an array is re-gathered after every vertex pass that
//     changed some rank's slice of it (each rank hashes its slice to tell), and
//     merged with the combine operator after a pass that combined into other ranks' vertices
//     (merge_combined sends the slices and the improved entries, as an
//     allreduce would merge them); a forest linked into (Afforest's links) is merged so
//     that no rank's link is lost (merge_forest);
//   - as a combine target, a replica entry is this rank's mirror of a remote vertex: a push pass
//     combines messages into it and the engine sends each changed mirror to its owner once per
//     pass, combined (Gemini's mirrors). Min/or mirrors keep what was sent (a message that does
//     not improve on it need not travel); sum mirrors are reset to zero once sent.
// Edge passes: push sends the changed mirrors to their owners (collective: one MPI_Alltoallv of
// (vertex, value) records per pass; ring: batches into per-peer rings; accumulate: remote
// atomics), which combine them as a local push would and apply them. With the ring or
// accumulate and DistOptions::slices > 1, a push pass runs in slices of its frontier and each
// slice's changed mirrors go out before the next slice is computed, so they travel while the
// ranks compute (engine/mpi/sliced_push.h).
// Pull first ships every active master's source value (the program's source_value, computed by
// its owner: "what a rank sends once per vertex") and the frontier's bitmap to all ranks, then
// each rank reduces its masters' in-edges locally (a program whose source value is the source's
// own id, BFS, ships only the bitmap). Direction, empty(), bins and reductions are
// decided on job-wide figures, so every rank takes the same branch.
//
// The files, one job each (all in engine/mpi/):
//   dist_engine.h    this class, the facade: its edge passes' interface and its state.
//   rank_vertices.h  its base: vertex arrays, sets, vertex passes, Afforest's links and bins on a
//                    rank, kept consistent across ranks, and job-wide reductions and counts.
//   pull_exchange.h  an edge pass's direction, pull over shipped values, the job-wide sets
//                    (out-of-class members).
//   dist_types.h     its options and per-pass figures; the program a pull runs on shipped values.
//   replicas.h       the vertex arrays' standing across ranks, and the syncs after vertex passes.
//   push_exchange.h  push, whole or in slices with stealing, and its three exchanges
//                    (out-of-class members).
//   triangle_ring.h, master_lists.h  the triangle pass: each rank's masters' lists, passed round.
//   sliced_push.h    a push pass's combine phase slice by slice, over the rank's CPU engine.
//   ring.h, inbox.h, steal.h  the rings, the accumulate inboxes, the task board (one-sided).
//   ops.h            the combine operators' MPI operations and datatypes.
//   partition.h, rank_calibration.h, rank_memory.h  ranges, rates and memory of ranks.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/concept.h"
#include "engine/cpu/engine.h"
#include "engine/degree_ranking.h"
#include "engine/mpi/dist_types.h"
#include "engine/mpi/inbox.h"
#include "engine/mpi/master_lists.h"
#include "engine/mpi/ops.h"
#include "engine/mpi/rank_vertices.h"
#include "engine/mpi/replicas.h"
#include "engine/mpi/ring.h"
#include "engine/mpi/sliced_push.h"
#include "engine/mpi/steal.h"
#include "mpi/comm.h"
#include "util/error.h"
#include "util/timer.h"

namespace tg {

template <typename Id, typename W>
class DistEngine : public dist::RankVertices<Id, W> {
  using Vertices = dist::RankVertices<Id, W>;

 public:
  using Local = Engine<Id, W>;
  using Graph = GraphView<Id, W>;
  using Set = Frontier<Id>;
  using VertexId = Id;
  using Weight = W;
  using Vertices::num_vertices;  // (names of the dependent base, found unqualified below)
  using Vertices::reduce;

  DistEngine(const Graph& graph, EngineOptions options, mpi::Comm& comm, DistOptions dist = {})
      : Vertices(graph, std::move(options), comm), sliced_(local_), dist_(dist) {}

  BlockStore& store() const { return local_.store(); }
  std::vector<IterationStats>& stats() { return local_.stats(); }
  void reset_stats() {
    local_.reset_stats();
    passes_.clear();
    comm_.take_counters();
    between_edge_passes_ = {};
    if (rings_) rings_at_reset_ = rings_->counters();
  }
  // The ring exchange's figures since reset_stats(), and its shape; null without rings.
  struct RingReport {
    dist::RingCounters counters;
    uint32_t slots, batch_records;
    uint64_t bytes;
  };
  std::optional<RingReport> ring_report() const {
    if (!rings_) return std::nullopt;
    const auto& now = rings_->counters();
    const auto& then = rings_at_reset_;
    return RingReport{{now.batches - then.batches, now.hurried - then.hurried,
                       now.full_waits - then.full_waits, now.clears - then.clears},
                      rings_->slots(),
                      rings_->batch_records(),
                      rings_->bytes()};
  }
  // What the accumulate exchange's inbox windows hold on this rank (a value and a bit per master
  // each: vertex state, not traffic, so outside the exchange's bound); 0 without them.
  uint64_t inbox_window_bytes() const {
    uint64_t bytes = 0;
    for (const auto& [key, inbox] : inboxes_) bytes += inbox->window_bytes();
    return bytes;
  }
  // What this rank held at most for the algorithm's own exchanges, in bytes: the source values
  // its pulls shipped (and a stolen slice's), a linked forest's copy while the ranks merged it
  // (both planned per vertex by the kernel table's exchange_state), and the lists of hooks the
  // merge replaced, every rank's (not planned: they hold a pair per link two ranks made apart).
  struct ExchangeHeld {
    uint64_t shipped_values = 0, forest_copy = 0, forest_hooks = 0;
  };
  ExchangeHeld exchange_held() const {
    return {shipped_.capacity(), replicas_.forest_copy_peak(), replicas_.forest_hooks_peak()};
  }
  uint64_t vertex_bytes() const { return local_.vertex_bytes(); }
  uint64_t peak_vertex_bytes() const { return local_.peak_vertex_bytes(); }
  MemoryUse memory() const { return local_.memory(); }
  mpi::Comm& comm() { return comm_; }
  const std::vector<RankPassStats>& rank_passes() const { return passes_; }
  // The handle a vertex function reaches the engine through (engine/cpu/vertex_ops.h).
  EngineOps<DistEngine> ops() { return {this}; }
  // What this rank sent and spent outside edge passes (vertex passes' array syncs, reductions,
  // gathers) since reset_stats(), up to the last edge pass; the rest is still in comm().
  const mpi::CommCounters& between_edge_passes() const { return between_edge_passes_; }

  // ---- edges ---------------------------------------------------------------------------------

  // The gather pass (engine/cpu/gather_pass.h) over this rank's masters' neighbour lists, built
  // from its rows; each round's values, whose masters' slices the ranks computed apart, are
  // gathered whole on every rank (one in-place MPI_Allgatherv) before the next round reads any
  // neighbour's.
  template <typename T, typename F>
  void gather_rounds(VertexArray<T> values, uint32_t rounds, F f) {
    pass([&] {
      local_.gather_rounds(values, rounds, f, [&](VertexArray<T> round) {
        comm_.allgather_slices(round.data(), sizeof(T));
      });
    });
  }

  // The triangle pass over the ranks' lists, passed round (engine/mpi/triangle_ring.h): the
  // same sums as one process's, whole on every rank.
  template <typename F>
  VertexArray<int64_t> triangle_sums(F f);
  VertexArray<int64_t> neighbour_counts();

  // The direction from job-wide figures, then pull over shipped source values or push
  // (engine/mpi/pull_exchange.h).
  template <typename Program>
  Set edge_pass(const Program& program, const Set& frontier, PassOptions<Id> options = {});

  // The edge pass into the program's target, then then(v, v's sum) on every rank's masters as a
  // vertex pass that resets the target (engine/program.h's ThenFromTarget), reduced job-wide.
  template <typename Op, typename Program, typename Then>
  typename Op::Value gather_then(Op op, const Program& program, Then then) {
    edge_pass(program, this->all());
    return reduce(op, ThenFromTarget<Id, typename Program::Op, Then>{program.target(), then});
  }

 private:
  using typename Vertices::ArrayInfo;
  using Vertices::across_ranks;
  using Vertices::comm_;
  using Vertices::count_globally;
  using Vertices::local_;
  using Vertices::pass;
  using Vertices::replicas_;

  // Pull over shipped source values, and every rank's members of a set
  // (engine/mpi/pull_exchange.h).
  template <typename Program>
  Set pull(const Program& program, const Set& frontier, const PassOptions<Id>& options);
  Set whole(const Set& s);

  // The triangle pass's ranking (every rank's the same) and this rank's lists
  // (engine/mpi/triangle_ring.h).
  DegreeRanking<Id> degree_ranking() const;
  MasterLists<Id> master_lists(const DegreeRanking<Id>& ranking);

  // Push and the exchanges that carry its updates (engine/mpi/push_exchange.h).
  template <typename Program>
  Set push(const Program& program, const Set& frontier, const PassOptions<Id>& options);
  template <typename Program>
  Set push_in_slices(const Program& program, const Set& frontier, const PassOptions<Id>& options);
  template <typename Task, typename Program>
  void publish_tasks(const Program& program, const std::vector<Id>& list,
                     std::span<const size_t> cuts);
  template <typename Program, typename Body>
  std::vector<Id> one_sided(const Program& program, Body body);
  template <typename Program>
  std::vector<Id> send_collectively(const Program& program,
                                    const std::vector<std::vector<Id>>& changed);
  template <typename Op>
  dist::Inbox& inbox_for();
  static constexpr size_t kRingRecordBytes = 16;  // a vertex id and a value, padded
  static constexpr size_t kTaskRecordBytes = 16;  // a vertex id and its source value, padded
  // With stealing, the task board gets an eighth of the exchange's memory bound, as much again
  // is left for a stolen slice (never larger than a peer's board), and the rings get what the
  // sent-once list below leaves.
  uint64_t board_bytes() const { return dist_.steal ? dist_.exchange_bytes / 8 : 0; }
  // With slices, another eighth holds the mirrors a pass of a program that activates once sent
  // (to send again those a later slice improved).
  uint64_t sent_once_bytes() const { return dist_.slices > 1 ? dist_.exchange_bytes / 8 : 0; }
  // The rings' window and batches, or the values an inbox's epoch stages: the rest.
  uint64_t one_sided_bytes() const {
    return dist_.exchange_bytes - 2 * board_bytes() - sent_once_bytes();
  }
  // A mirror sent: sum mirrors start again from zero (min and or ones keep what was sent).
  template <typename Program>
  static void sent(const Program& program, Id v) {
    using Op = typename Program::Op;
    if constexpr (std::is_same_v<Op, SumOp<typename Op::Value>>)
      program.target()[v] = Op::identity();
  }

  struct InboxKey {
    mpi::ReduceOp op;
    mpi::Scalar scalar;
  };

  dist::SlicedPush<Id, W> sliced_;  // push passes in slices, and messages from other ranks
  DistOptions dist_;
  std::unique_ptr<dist::Rings> rings_;
  dist::RingCounters rings_at_reset_;
  std::unique_ptr<std::byte[]> send_buffer_;  // per peer a stride of packed records
  size_t send_capacity_ = 0;
  std::vector<std::pair<InboxKey, std::unique_ptr<dist::Inbox>>> inboxes_;
  uint64_t inbox_staged_peak_ = 0;  // the most values an inbox epoch staged, in bytes
  mpi::CommCounters between_edge_passes_;
  std::vector<std::byte> shipped_;  // source values shipped for pull passes, reused
  std::vector<RankPassStats> passes_;
  uint64_t updates_sent_ = 0, updates_sent_early_ = 0, slices_stolen_ = 0,
           updates_held_ = 0;  // in the edge pass under way
  std::unique_ptr<dist::TaskBoard> board_;
  uint64_t push_passes_ = 0;       // sliced push passes so far: the task board's pass numbers
  std::vector<std::byte> stolen_;  // a stolen slice's records
};

static_assert(GraphEngine<DistEngine<uint32_t, NoWeight>>);
static_assert(GraphEngine<DistEngine<uint64_t, double>>);
static_assert(GatheringEngine<DistEngine<uint32_t, NoWeight>>);
static_assert(IntersectingEngine<DistEngine<uint32_t, NoWeight>>);

}  // namespace tg

#include "engine/mpi/pull_exchange.h"  // the definitions of an edge pass, pull, the job-wide sets
#include "engine/mpi/push_exchange.h"  // the definitions of push and its exchanges
#include "engine/mpi/triangle_ring.h"  // the definitions of the triangle pass on ranks
