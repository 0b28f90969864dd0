// The device engine's functors: what its Thrust algorithms run per index, vertex or arc, and the
// pass state the edge-pass functors share (PassState, deliver). They live at namespace scope,
// not in DeviceEngine, because nvcc's generated kernel stubs name their types from outside the
// class (as members they had to be public); they are not part of the engine's interface.
#pragma once

#include <cstdint>

#include "engine/cuda/atomics.h"
#include "engine/cuda/device_grid.h"
#include "engine/cuda/device_ops.h"
#include "engine/program.h"
#include "engine/vertex_array.h"
#include "graph/block_decoder.h"
#include "util/host_device.h"

namespace tg::device {

// The sources and targets an edge pass may read, as flat views (a functor's members).
template <typename Id>
struct PassState {
  uint32_t* claimed = nullptr;          // per vertex: listed as changed in this pass
  Id* changed = nullptr;                // the changed vertices, in any order
  unsigned long long* count = nullptr;  // how many are listed
  const uint32_t* active = nullptr;     // bitmap of active sources (pull); null: every vertex
  const uint32_t* targets = nullptr;  // bitmap of the vertices that may receive; null: every vertex
  TG_HOST_DEVICE static bool bit(const uint32_t* map, uint64_t v) {
    return (map[v / 32] >> (v % 32)) & 1;
  }
  TG_HOST_DEVICE bool may_receive(uint64_t v) const { return !targets || bit(targets, v); }
  TG_HOST_DEVICE bool is_active(uint64_t v) const { return !active || bit(active, v); }
  // Lists v as changed, once per pass.
  TG_HOST_DEVICE void list(Id v) const {
    if (AtomicRef<uint32_t>(claimed[v]).exchange(1, cuda::memory_order_relaxed) == 0) {
      changed[AtomicRef<unsigned long long>(*count).fetch_add(1, cuda::memory_order_relaxed)] = v;
    }
  }
};

// Combines the message of arc u -> v into v's target as a push does (the CPU engine's receive()):
// programs that activate once list v only when this message is the first; others list v when
// the combine changed it.
template <typename Program, typename Id>
TG_HOST_DEVICE void deliver(const Program& program, const PassState<Id>& state, Id v,
                            typename Program::Op::Value x) {
  using Op = typename Program::Op;
  const auto target = program.target();
  if (!state.may_receive(v)) return;
  if constexpr (HasWants<Program>) {
    if (!program.wants(target.load(v))) return;
  }
  if constexpr (ActivatesOnce<Program>) {
    if (atomic_claim(target[v], Op::identity(), x)) {
      state.list(v);
      return;
    }
    atomic_combine(Op{}, target[v], x);
  } else {
    if (atomic_combine(Op{}, target[v], x)) state.list(v);
  }
}

// ---- functors (members of a kernel: views and scalars only) --------------------------------

TG_HOST_DEVICE inline uint32_t range_of(const uint64_t* ranges, uint32_t p, uint64_t v) {
  uint32_t lo = 0, hi = p;  // the range r with ranges[r] <= v < ranges[r + 1]
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (ranges[mid] <= v)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

template <typename Id, typename F>
struct AsId {
  F f;
  TG_HOST_DEVICE auto operator()(uint64_t v) const { return f(static_cast<Id>(v)); }
};
template <typename Id, typename F>
struct AsFlag {
  F f;
  template <typename V>
  TG_HOST_DEVICE uint8_t operator()(V v) const {
    return f(static_cast<Id>(v)) ? 1 : 0;
  }
};
template <typename Id, typename A, typename F>
struct Fill {
  A a;
  F f;
  TG_HOST_DEVICE void operator()(Id v) const { a[v] = f(v); }
};
struct IsSet {
  TG_HOST_DEVICE bool operator()(uint8_t x) const { return x != 0; }
};
template <typename Op>
struct Combine {
  TG_HOST_DEVICE typename Op::Value operator()(typename Op::Value a, typename Op::Value b) const {
    return Op::combine(a, b);
  }
};
struct Lowest {
  TG_HOST_DEVICE uint64_t operator()(uint64_t a, uint64_t b) const { return a < b ? a : b; }
};
template <typename Id>
struct Compress {
  DeviceOps<Id> ops;
  VertexArray<Id> parent;
  TG_HOST_DEVICE void operator()(Id v) const { parent.store(v, ops.root_halving(parent, v)); }
};
template <typename Id>
struct Degree {
  const uint64_t* degree;
  TG_HOST_DEVICE uint64_t operator()(Id v) const { return degree[v]; }
};
template <typename Id>
struct Unclaim {
  uint32_t* claimed;
  TG_HOST_DEVICE void operator()(Id v) const { claimed[v] = 0; }
};
template <typename Id>
struct SetBit {
  uint32_t* map;
  TG_HOST_DEVICE void operator()(Id v) const {
    AtomicRef<uint32_t>(map[v / 32]).fetch_or(uint32_t{1} << (v % 32), cuda::memory_order_relaxed);
  }
};
template <typename Id, typename Key>
struct BinOf {
  Key key;
  uint64_t floor;  // never below the current bin
  TG_HOST_DEVICE uint64_t operator()(Id v) const {
    const uint64_t b = key(v);
    return b < floor ? floor : b;
  }
};
template <typename Id, typename Key>
struct TakeOnce {
  BinOf<Id, Key> bin_of;
  uint32_t* claimed;
  uint64_t b;
  TG_HOST_DEVICE uint8_t operator()(Id v) const {
    return bin_of(v) == b &&
                   AtomicRef<uint32_t>(claimed[v]).exchange(1, cuda::memory_order_relaxed) == 0
               ? 1
               : 0;
  }
};
template <typename Id, typename Key>
struct NotInBin {
  BinOf<Id, Key> bin_of;
  uint64_t b;
  TG_HOST_DEVICE bool operator()(Id v) const { return bin_of(v) != b; }
};

// f(u, v) for u's arcs [from, to) in a grid, counted from its first across the blocks of its row.
template <typename Id, typename F>
TG_HOST_DEVICE void for_row_arcs(const F& f, const BlockDecoder* blocks, const uint64_t* ranges,
                                 uint32_t p, Id u, uint64_t from, uint64_t to) {
  const uint32_t row = range_of(ranges, p, u);
  uint64_t seen = 0;  // u's arcs in the blocks before this one
  for (uint32_t j = 0; j < p && seen < to; ++j) {
    const BlockDecoder& d = blocks[uint64_t{row} * p + j];
    uint64_t begin, end;
    segment_of(d, u, begin, end);
    const uint64_t lo = seen > from ? seen : from;
    const uint64_t hi = seen + (end - begin) < to ? seen + (end - begin) : to;
    for (uint64_t e = lo; e < hi; ++e) f(u, static_cast<Id>(d.neighbour(begin + (e - seen))));
    seen += end - begin;
  }
}

// Arc r of u (from 0), across the blocks of its row in order, if it has one.
template <typename Id, typename F>
struct SampleArc {
  F f;
  const BlockDecoder* blocks;
  const uint64_t* ranges;
  uint32_t p;
  uint32_t r;
  TG_HOST_DEVICE void operator()(uint64_t u) const {
    for_row_arcs(f, blocks, ranges, p, static_cast<Id>(u), r, uint64_t{r} + 1);
  }
};

// The other arcs of u in the undirected view (arc_pass): its out-arcs after its first `skip`,
// then its in-arcs (in: the in-grid, null when undirected).
template <typename Id, typename F>
struct ArcsAfter {
  F f;
  const BlockDecoder* out;
  const BlockDecoder* in;
  const uint64_t* ranges;
  uint32_t p;
  uint32_t skip;
  TG_HOST_DEVICE void operator()(Id u) const {
    for_row_arcs(f, out, ranges, p, u, skip, UINT64_MAX);
    if (in != nullptr) for_row_arcs(f, in, ranges, p, u, 0, UINT64_MAX);
  }
};

// Push from a list of sources over one block: arc e of the list's arcs in this block.
template <typename Id, typename W, typename Program>
struct PushListArc {
  Program program;
  PassState<Id> state;
  BlockDecoder block;
  const Id* sources;
  const uint64_t* first_arc;  // per source: its first arc in the block
  const uint64_t* scan;       // per source: arcs of the sources before it (exclusive scan)
  uint64_t sources_count;
  TG_HOST_DEVICE void operator()(uint64_t e) const {
    uint64_t lo = 0, hi = sources_count;  // the source i with scan[i] <= e < scan[i + 1]
    while (hi - lo > 1) {
      const uint64_t mid = (lo + hi) / 2;
      if (scan[mid] <= e)
        lo = mid;
      else
        hi = mid;
    }
    const Id u = sources[lo];
    const uint64_t arc = first_arc[lo] + (e - scan[lo]);
    deliver(program, state, static_cast<Id>(block.neighbour(arc)),
            program.message(program.source_value(u), arc_weight<W>(block, arc)));
  }
};
// Push from every vertex over one block: arc e of the block.
template <typename Id, typename W, typename Program>
struct PushAllArc {
  Program program;
  PassState<Id> state;
  BlockDecoder block;
  TG_HOST_DEVICE void operator()(uint64_t e) const {
    const Id u = static_cast<Id>(block.vertex(entry_of_arc(block, e)));
    deliver(program, state, static_cast<Id>(block.neighbour(e)),
            program.message(program.source_value(u), arc_weight<W>(block, e)));
  }
};
template <typename Id>
struct ArcsInBlock {
  BlockDecoder block;
  uint64_t first, end;  // the block's major range
  TG_HOST_DEVICE uint64_t operator()(Id u) const {
    if (u < first || u >= end) return 0;
    uint64_t begin, stop;
    segment_of(block, u, begin, stop);
    return stop - begin;
  }
};
template <typename Id>
struct FirstArc {
  BlockDecoder block;
  TG_HOST_DEVICE uint64_t operator()(Id u) const {
    uint64_t begin, stop;
    segment_of(block, u, begin, stop);
    return begin;
  }
};

// Pull into one target: its in-arcs from active sources across its row of the in-grid.
template <typename Id, typename W, typename Program>
struct PullTarget {
  Program program;
  PassState<Id> state;
  const BlockDecoder* blocks;  // the in-grid, storage order (target range * p + source range)
  const uint64_t* ranges;
  const uint8_t* heavy;  // per vertex: handled by the arc-parallel pass (null: none is)
  uint32_t p;
  TG_HOST_DEVICE void operator()(Id v) const {
    using Op = typename Program::Op;
    if ((heavy && heavy[v]) || !state.may_receive(v)) return;
    const auto target = program.target();
    const auto current = target.load(v);
    if constexpr (HasWants<Program>) {
      if (!program.wants(current)) return;
    }
    auto combined = current;
    const uint32_t row = range_of(ranges, p, v);
    bool stop = false;
    for (uint32_t j = 0; j < p && !stop; ++j) {
      const BlockDecoder& d = blocks[uint64_t{row} * p + j];
      uint64_t begin, end;
      segment_of(d, v, begin, end);
      for (uint64_t e = begin; e < end; ++e) {
        const Id u = static_cast<Id>(d.neighbour(e));
        if (!state.is_active(u)) continue;
        combined =
            Op::combine(combined, program.message(program.source_value(u), arc_weight<W>(d, e)));
        if constexpr (HasSaturated<Program>) {
          if (program.saturated(combined)) {
            stop = true;
            break;
          }
        }
      }
    }
    if (combined == current) return;
    target.store(v, combined);
    state.list(v);
  }
};
// Pull into heavy targets, arc-parallel: arc e of the block's heavy targets' arcs.
template <typename Id, typename W, typename Program>
struct PullHeavyArc {
  Program program;
  PassState<Id> state;
  BlockDecoder block;
  const Id* targets;
  const uint64_t* first_arc;
  const uint64_t* scan;
  uint64_t targets_count;
  TG_HOST_DEVICE void operator()(uint64_t e) const {
    uint64_t lo = 0, hi = targets_count;
    while (hi - lo > 1) {
      const uint64_t mid = (lo + hi) / 2;
      if (scan[mid] <= e)
        lo = mid;
      else
        hi = mid;
    }
    const Id v = targets[lo];
    if constexpr (HasSaturated<Program>) {  // this target found all it needs: skip the read
      if (program.saturated(program.target().load(v))) return;
    }
    const uint64_t arc = first_arc[lo] + (e - scan[lo]);
    const Id u = static_cast<Id>(block.neighbour(arc));
    if (!state.is_active(u)) return;
    deliver(program, state, v, program.message(program.source_value(u), arc_weight<W>(block, arc)));
  }
};
template <typename Id, typename Program>
struct Apply {
  Program program;
  uint32_t* claimed;
  TG_HOST_DEVICE uint8_t operator()(Id v) const {
    claimed[v] = 0;
    return program.apply(v) ? 1 : 0;
  }
};

}  // namespace tg::device
