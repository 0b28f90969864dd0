// The MPI engine's options and figures: how a push pass's updates travel, what one rank did in
// one edge pass, and the program a pull runs over source values shipped from their owners.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/program.h"
#include "engine/vertex_array.h"
#include "mpi/comm.h"

namespace tg {

// How a push pass's updates reach their owners: one MPI_Alltoallv of (vertex, value) records,
// batches of them written one-sidedly into per-peer rings (engine/mpi/ring.h), or remote atomics
// into the owners' inboxes (engine/mpi/inbox.h).
enum class Exchange { kCollective, kRing, kAccumulate };

struct DistOptions {
  Exchange exchange = Exchange::kCollective;
  // What the exchange's buffers may hold at once per rank (collective: sent and received
  // records; ring: the window and the staging batches; accumulate: the values an epoch stages).
  uint64_t exchange_bytes = uint64_t{64} << 20;
  uint32_t ring_batch = 128;  // records per ring batch
  double ring_hurried = 0.8;  // how full a ring is before its batches are hurried
  // ring and accumulate: a push pass runs in this many slices of its frontier, each slice's
  // updates sent before the next is computed (1: all sent after the pass).
  uint32_t slices = 1;
  // With slices: a rank whose own slices are taken steals its peers' (engine/mpi/steal.h).
  bool steal = false;
};

// What one rank did in one edge pass.
struct RankPassStats {
  mpi::CommCounters comm;
  double seconds = 0;               // the whole pass
  uint64_t updates_sent = 0;        // changed mirrors sent to their owners (push)
  uint64_t updates_sent_early = 0;  // of them, sent before the pass's last slice was computed
  uint64_t slices_stolen = 0;       // slices this rank took from its peers and pushed
  uint64_t updates_held = 0;  // of those sent, held to the pass's end: the sent-once list was full
  double compute_seconds() const {
    return std::max(0.0, seconds - comm.communication_seconds - comm.wait_seconds);
  }
};

// A program whose source values were computed by their owners and shipped here: the pull pass
// reads them from `shipped` instead of calling the program's source_value.
template <typename P, typename Id, typename S>
struct ShippedSources {
  using Op = typename P::Op;
  using Value = typename Op::Value;
  static constexpr bool kBothDirections = BothDirections<P>;
  static constexpr bool kReversed = Reversed<P>;
  static constexpr bool kActivatesOnce = ActivatesOnce<P>;
  P program;
  VertexArray<S> shipped;

  S source_value(Id u) const { return shipped[u]; }
  template <typename W>
  Value message(S s, W w) const {
    return program.message(s, w);
  }
  VertexArray<Value> target() const { return program.target(); }
  bool apply(Id v) const { return program.apply(v); }
  bool wants(Value x) const requires HasWants<P> { return program.wants(x); }
  bool saturated(Value x) const requires HasSaturated<P> { return program.saturated(x); }
};

}  // namespace tg
