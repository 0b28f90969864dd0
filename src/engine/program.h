// The contract between an algorithm and the engine: a vertex program.
//
//   using Op = MinOp<T> | SumOp<T> | OrOp<T>;     how messages to one vertex combine
//   S source_value(Id u) const;                   read once per active source u (what a rank
//                                                 sends once per vertex)
//   Op::Value message(S s, W w) const;            what an edge of weight w carries: a pure
//                                                 function of (s, w), reading no vertex state
//   VertexArray<Op::Value> target() const;        where messages are combined
//   bool apply(Id v) const;                       v's target changed: should v be active? Runs
//                                                 once per changed vertex, after all its messages
// and optionally:
//   bool wants(Op::Value current) const;          v (holding `current`) may still change
//   bool saturated(Op::Value combined) const;     pull may stop reading v's in-edges
//   static constexpr bool kBothDirections = true; follow edges both ways (weak connectivity)
//   static constexpr bool kReversed = true;       messages travel against the arcs: along an
//                                                 arc u -> v, v's value reaches u (Brandes'
//                                                 backward sweep); push reads the in-grid, pull
//                                                 the out-grid
//   static constexpr bool kActivatesOnce = true;  a vertex's target leaves the identity once
//   static constexpr bool kSourceReadsTarget = true;  source_value reads the target array (SSSP
//                                                 relaxes from dist): pull then writes targets
//                                                 with relaxed atomic stores; others write plain
//   static constexpr bool kSourceIsVertex = true;  source_value(u) is u itself (BFS offers
//                                                 itself as a parent): a pull away from the
//                                                 sources' owners needs only which are active
//
// A program is trivially copyable (views and scalars only), so the engine may copy it to a
// worker, a rank or a device; its functions carry TG_HOST_DEVICE. wants and saturated see only
// values, never other state, so they can be evaluated away from the vertex's owner. Nothing here
// is about push or pull, atomics, threads, blocks, tiers or ranks.
//
// An algorithm's driver is a function template on the engine type (run_bfs(Engine& engine, ...)),
// constrained by the GraphEngine concept (engine/concept.h), and the algorithm file includes
// these headers, not an engine: any engine that offers the concept's primitives (engine/cpu in
// shared memory and over block stores, engine/mpi on ranks, engine/cuda on a device) runs the
// same text.
//
// Semantics: messages are combined into target(); apply(v) runs once per changed v after all of
// v's messages of the pass. So source_value must not read what apply writes in the same pass
// (keep a separate array, as Radii does); reading target() is fine if the program declares
// kSourceReadsTarget and reads with load() (other threads may be combining into it).
#pragma once

#include <concepts>
#include <type_traits>

#include "engine/combine.h"
#include "engine/direction.h"
#include "engine/vertex_array.h"
#include "graph/no_weight.h"
#include "util/host_device.h"

namespace tg {

template <typename P>
concept HasWants = requires(const P& p, typename P::Op::Value x) {
  { p.wants(x) } -> std::convertible_to<bool>;
};
template <typename P>
concept HasSaturated = requires(const P& p, typename P::Op::Value x) {
  { p.saturated(x) } -> std::convertible_to<bool>;
};
template <typename P>
concept BothDirections = requires {
  requires P::kBothDirections;
};
template <typename P>
concept Reversed = requires {
  requires P::kReversed;
};
// Which grid a pass reads: push follows arcs out of their sources (the out grid), pull gathers
// them at their targets (the in grid), and a pass against the arcs swaps the two. An undirected
// graph has one grid, the out grid. (A BothDirections pass reads the other grid second.)
constexpr bool reads_in_grid(bool pushing, bool reversed, bool directed) {
  return directed && pushing == reversed;
}

template <typename P>
concept ActivatesOnce = requires {
  requires P::kActivatesOnce;
};
template <typename P>
concept SourceReadsTarget = requires {
  requires P::kSourceReadsTarget;
};
template <typename P>
concept SourceIsVertex = requires {
  requires P::kSourceIsVertex;
};

template <typename P, typename Id, typename W>
concept VertexProgram = std::is_trivially_copyable_v<P> && requires(const P& p, Id v, W w) {
  typename P::Op;
  { p.target() } -> std::same_as<VertexArray<typename P::Op::Value>>;
  { p.message(p.source_value(v), w) } -> std::convertible_to<typename P::Op::Value>;
  { p.apply(v) } -> std::convertible_to<bool>;
};

template <typename P, typename Id, typename W>
constexpr void check_program() {
  static_assert(std::is_trivially_copyable_v<P>,
                "a program holds views and scalars only (it is copied to workers, ranks, devices)");
  static_assert(VertexProgram<P, Id, W>, "see engine/program.h for what a program declares");
  static_assert(!(BothDirections<P> && Reversed<P>),
                "a program follows arcs both ways or against them, not both");
}

// gather_then (engine/concept.h) where the pass combined into the target: then(v, what v
// gathered), and v's target back to the identity, as gather_then promises. Every backend runs it
// as a vertex pass after the edge pass, except where it can call then(v) inside the pass itself
// (the CPU engine's vertex-major pull, which writes no target at all).
template <typename Id, typename Combine, typename Then>
struct ThenFromTarget {
  VertexArray<typename Combine::Value> target;
  Then then;
  TG_HOST_DEVICE auto operator()(Id v) const {
    const typename Combine::Value gathered = target[v];
    target[v] = Combine::identity();
    return then(v, gathered);
  }
};

}  // namespace tg
