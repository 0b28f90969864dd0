// The engine concept (engine/concept.h) sees what it is meant to: the engines pass it (checked
// where each is defined as well), and an engine that lacks one primitive, or offers it in
// another shape, does not. The checks are static; the test's one run step says they compiled.
#include <gtest/gtest.h>

#include <cstdint>

#include "engine/concept.h"
#include "engine/cpu/engine.h"
#include "graph/no_weight.h"
#if TG_HAVE_MPI
#include "engine/mpi/dist_engine.h"
#endif

namespace tg {
namespace {

using CpuEngine = Engine<uint32_t, NoWeight>;

// Derived and unchanged, it is still an engine: what fails below fails for the one change.
struct Unchanged : CpuEngine {};
// The CPU engine without its sampling pass (WCC's Afforest step): the derived name hides it.
struct WithoutSamplePass : CpuEngine {
  template <typename F>
  void sample_pass(uint32_t, F) = delete;
};
// An edge pass that hands back the changed vertices' count instead of the next frontier.
struct EdgePassOfAnotherShape : CpuEngine {
  template <typename Program>
  uint64_t edge_pass(const Program&, const Set&) {
    return 0;
  }
};
// Vertex functions that cannot link trees (WCC's hook needs ops().link).
struct OpsWithoutLink {
  uint64_t out_degree(uint64_t) const { return 0; }
  template <typename Op>
  bool combine_at(Op, VertexArray<typename Op::Value>, uint64_t, typename Op::Value) const {
    return false;
  }
  template <typename T>
  bool update(VertexArray<T>, uint64_t, T) const {
    return false;
  }
  uint32_t root(VertexArray<uint32_t>, uint32_t v) const { return v; }
};
struct WithOpsWithoutLink : CpuEngine {
  OpsWithoutLink ops() const { return {}; }
};

static_assert(GraphEngine<CpuEngine>);
static_assert(GraphEngine<Unchanged>);
static_assert(GraphEngine<Engine<uint64_t, float>>);
#if TG_HAVE_MPI
static_assert(GraphEngine<DistEngine<uint32_t, int64_t>>);
static_assert(IntersectingEngine<DistEngine<uint32_t, int64_t>>);
static_assert(GatheringEngine<DistEngine<uint32_t, int64_t>>);
#endif
static_assert(!GraphEngine<WithoutSamplePass>);
static_assert(!GraphEngine<EdgePassOfAnotherShape>);
static_assert(!GraphEngine<WithOpsWithoutLink>);
static_assert(!GraphEngine<GraphView<uint32_t, NoWeight>>);  // a graph is not an engine

TEST(EngineConcept, TheEnginesPassAndAnEngineMissingAPrimitiveDoesNot) {
  SUCCEED() << "checked at compile time";
}

}  // namespace
}  // namespace tg
