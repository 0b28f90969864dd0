// What an engine offers the algorithm texts: the primitives as one C++20 concept, so an engine
// that lacks one, or offers it in another shape, fails to compile where it is checked (each
// backend's header and the drivers' template parameters), not deep inside an algorithm.
//
// The primitives, by what they work on (engine/program.h says what a program is):
//   vertex arrays   vertex_array(init), vertex_array_from(f), copy(a), set(a, v, x), collect(a),
//                   collect(a, map), combine_at(op, a, v, x), compress(parent),
//                   most_frequent(a, samples)
//   vertex sets     all(), frontier_of(v), frontier_of(vertices), select(set, keep); a set says
//                   empty() and out_edges()
//   vertex passes   for_each(f), for_each(set, f), reduce(op, f)
//   edge passes     edge_pass(program, set[, {.direction, .targets}]), gather_then(op, program,
//                   then), sample_pass(r, f), arc_pass(set, skip, f)
//   bins            bins(), to_bins(bins, set, key), next_bin(bins, key) (delta-stepping)
//   and, an IntersectingEngine (below): triangle_sums(f), neighbour_counts(); a
//   GatheringEngine: gather_rounds(values, rounds, f)
//   the rest        num_vertices(), num_arcs(), scope() (arrays made under it go with it),
//                   ops() (what a vertex function may call: out_degree, combine_at, update,
//                   link, root; copied by value into it)
//
// The functions handed to the engine are probed below with small named function objects (a
// lambda cannot appear in a concept's requirements here); each carries TG_HOST_DEVICE, as an
// algorithm's lambdas do, so a device engine is checked against the same shapes. Types are taken
// with std::declval, not from the requirement's parameters: nvcc's front end (CUDA 12) fails an
// internal assertion on a parameter named inside decltype in a requirement.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <utility>

#include "engine/combine.h"
#include "engine/direction.h"
#include "engine/triangles.h"
#include "engine/vertex_array.h"
#include "util/host_device.h"

namespace tg {

namespace engine_probe {

// The smallest program: min-combines a source's own id into its targets.
template <typename Id>
struct Program {
  using Op = MinOp<Id>;
  VertexArray<Id> values;
  TG_HOST_DEVICE Id source_value(Id u) const { return u; }
  template <typename W>
  TG_HOST_DEVICE Id message(Id u, W) const {
    return u;
  }
  TG_HOST_DEVICE VertexArray<Id> target() const { return values; }
  TG_HOST_DEVICE bool apply(Id) const { return true; }
};

template <typename Id>
struct Identity {  // vertex_array_from: v -> v
  TG_HOST_DEVICE Id operator()(Id v) const { return v; }
};
template <typename Id>
struct Widen {  // collect's map: an array's value -> int64_t
  TG_HOST_DEVICE int64_t operator()(Id x) const { return static_cast<int64_t>(x); }
};
template <typename Id>
struct Visit {  // for_each: a vertex function
  TG_HOST_DEVICE void operator()(Id) const {}
};
template <typename Id>
struct Keep {  // select: a vertex predicate
  TG_HOST_DEVICE bool operator()(Id) const { return true; }
};
template <typename Id>
struct Count {  // reduce: a vertex's share of a sum; bins' key: a vertex's bin
  TG_HOST_DEVICE uint64_t operator()(Id) const { return 1; }
};
template <typename Id>
struct Hook {  // sample_pass, arc_pass: an edge function
  TG_HOST_DEVICE void operator()(Id, Id) const {}
};
template <typename Id>
struct Then {  // gather_then: a vertex's share of a sum, given what the pass gathered at it
  TG_HOST_DEVICE uint64_t operator()(Id, Id) const { return 1; }
};
template <typename Id>
struct Mode {  // gather_rounds: a vertex's new value from its own and its neighbours'
  TG_HOST_DEVICE Id operator()(Id own, std::span<const Id>) const { return own; }
};
template <typename Id>
struct Corners {  // triangle_sums: a triangle's shares at its corners
  TG_HOST_DEVICE CornerShares operator()(const Triangle<Id>&) const { return {1, 1, 1}; }
};

}  // namespace engine_probe

// A set of active vertices, as edge passes take and return it.
template <typename S>
concept VertexSet = std::copyable<S> && requires(const S& s) {
  { s.empty() } -> std::convertible_to<bool>;
  { s.out_edges() } -> std::convertible_to<uint64_t>;
};

// What a vertex function may call (engine.ops(), copied into it by value).
template <typename O, typename Id>
concept VertexOps = std::copyable<O> && requires(const O& o, VertexArray<Id> a, Id v) {
  { o.out_degree(uint64_t{v}) } -> std::convertible_to<uint64_t>;
  { o.combine_at(MinOp<Id>{}, a, uint64_t{v}, v) } -> std::convertible_to<bool>;
  { o.update(a, uint64_t{v}, v) } -> std::convertible_to<bool>;
  o.link(a, v, v);
  { o.root(a, v) } -> std::convertible_to<Id>;
};

template <typename E>
concept GraphEngine = requires(E& e, const typename E::Set& set,
                               VertexArray<typename E::VertexId> ids, typename E::VertexId v,
                               std::span<const uint64_t> vertices) {
  typename E::VertexId;
  typename E::Weight;
  requires VertexSet<typename E::Set>;
  requires VertexOps<decltype(std::declval<E&>().ops()), typename E::VertexId>;
  { e.num_vertices() } -> std::convertible_to<uint64_t>;
  { e.num_arcs() } -> std::convertible_to<uint64_t>;
  e.scope();

  // vertex arrays
  { e.vertex_array(v) } -> std::same_as<VertexArray<typename E::VertexId>>;
  { e.vertex_array(0.0) } -> std::same_as<VertexArray<double>>;
  {
    e.vertex_array_from(engine_probe::Identity<typename E::VertexId>{})
    } -> std::same_as<VertexArray<typename E::VertexId>>;
  { e.copy(ids) } -> std::same_as<VertexArray<typename E::VertexId>>;
  e.set(ids, uint64_t{0}, v);
  { e.collect(ids).size() } -> std::convertible_to<uint64_t>;
  {
    e.collect(ids, engine_probe::Widen<typename E::VertexId>{}).size()
    } -> std::convertible_to<uint64_t>;
  { e.combine_at(MinOp<typename E::VertexId>{}, ids, uint64_t{0}, v) } -> std::convertible_to<bool>;
  e.compress(ids);
  { e.most_frequent(ids, 1) } -> std::convertible_to<typename E::VertexId>;

  // vertex sets
  { e.all() } -> std::same_as<typename E::Set>;
  { e.frontier_of(uint64_t{0}) } -> std::same_as<typename E::Set>;
  { e.frontier_of(vertices) } -> std::same_as<typename E::Set>;
  { e.select(set, engine_probe::Keep<typename E::VertexId>{}) } -> std::same_as<typename E::Set>;

  // vertex passes
  e.for_each(engine_probe::Visit<typename E::VertexId>{});
  e.for_each(set, engine_probe::Visit<typename E::VertexId>{});
  {
    e.reduce(SumOp<uint64_t>{}, engine_probe::Count<typename E::VertexId>{})
    } -> std::convertible_to<uint64_t>;

  // edge passes
  {
    e.edge_pass(engine_probe::Program<typename E::VertexId>{ids}, set)
    } -> std::same_as<typename E::Set>;
  e.edge_pass(engine_probe::Program<typename E::VertexId>{ids}, set,
              {.direction = Direction::kPull, .targets = &set});
  {
    e.gather_then(SumOp<uint64_t>{}, engine_probe::Program<typename E::VertexId>{ids},
                  engine_probe::Then<typename E::VertexId>{})
    } -> std::convertible_to<uint64_t>;
  e.sample_pass(uint32_t{0}, engine_probe::Hook<typename E::VertexId>{});
  e.arc_pass(set, uint32_t{2}, engine_probe::Hook<typename E::VertexId>{});

  // bins (delta-stepping)
  requires requires(decltype(std::declval<E&>().bins()) bins) {
    e.to_bins(bins, set, engine_probe::Count<typename E::VertexId>{});
    {
      e.next_bin(bins, engine_probe::Count<typename E::VertexId>{})
      } -> std::same_as<typename E::Set>;
  };
};

// An engine that also finds triangles: triangle_sums(f) calls f(Triangle) once per triangle of
// the graph's undirected view and returns a vertex array of each vertex's sum of the shares f
// gave its corner (engine/triangles.h); neighbour_counts() returns each vertex's neighbours in
// that view, itself excluded. Triangle counting and the clustering coefficient need them; every
// engine offers them (one process, MPI ranks, the device).
template <typename E>
concept IntersectingEngine = GraphEngine<E> && requires(E& e) {
  {
    e.triangle_sums(engine_probe::Corners<typename E::VertexId>{})
    } -> std::same_as<VertexArray<int64_t>>;
  { e.neighbour_counts() } -> std::same_as<VertexArray<int64_t>>;
};

// An engine that also gathers: gather_rounds(values, rounds, f) runs `rounds` synchronous rounds
// of values[v] = f(values[v], the values at v's neighbours in the undirected view, one per arc
// stored at v, self-loops left out, sorted, as a std::span<const T>). Sorted, because what a
// vertex makes of a multiset of values (its most frequent, its median, how many distinct) is
// then one scan: f needs no buffer and no sort of its own, so one thread of a GPU runs it, while
// the engine sorts all vertices' values at once. Label propagation needs it; every engine
// offers it.
template <typename E>
concept GatheringEngine = GraphEngine<E> && requires(E& e, VertexArray<typename E::VertexId> ids) {
  e.gather_rounds(ids, uint32_t{1}, engine_probe::Mode<typename E::VertexId>{});
};

}  // namespace tg
