// Which way an edge pass moves messages: push (from active sources along out-edges, atomically
// combined at the targets) or pull (each target reduces its in-edges from the frontier); auto
// lets the engine choose per pass.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tg {

enum class Direction { kAuto, kPush, kPull };

inline const char* direction_name(Direction d) {
  return d == Direction::kPush ? "push" : d == Direction::kPull ? "pull" : "auto";
}

// What the automatic direction rule reads of a frontier: its global counts and history.
struct FrontierFacts {
  uint64_t size = 0, out_edges = 0;
  uint64_t explored_edges = 0;  // out-edges of the push frontiers so far
  uint64_t previous_size = 0;   // the frontier before this one
  bool came_from_pull = false;  // this frontier was made by a pull pass
  // Where the pass names its targets and the engine's pull visits only them: their in-edges
  // (what such a pull reads). kNoTargets otherwise.
  uint64_t target_edges = kNoTargets;
  static constexpr uint64_t kNoTargets = ~uint64_t{0};
};

// The direction rule every engine applies (one function, so the CPU, MPI and device engines
// choose alike). As direction-optimizing BFS (Beamer et al.) chooses: switch from push to pull
// when the frontier's out-edges exceed the edges still unexplored divided by alpha; switch back
// when the frontier holds fewer than n / beta vertices. Programs whose vertices activate at most
// once let the engine count unexplored edges; for the others every edge counts as unexplored,
// which gives Ligra's rule (pull when the frontier's edges exceed arcs / alpha). A program with no
// saturation point reads every in-edge of every vertex when it pulls, so it pulls only when the
// frontier's edges exceed pull_share of all arcs (push pays atomics, about twice a plain read;
// delta-stepping SSSP's rounds are the case this protects).
struct DirectionRule {
  double alpha = 15.0;
  double beta = 18.0;
  double pull_share = 0.5;
  static constexpr double kTargetPullShare = 4.0;

  Direction choose(bool saturates, bool activates_once, uint64_t arcs, uint64_t vertices,
                   const FrontierFacts& f) const {
    // A pull over named targets reads their in-edges in order, testing the frontier's bitmap,
    // plus a word of the targets' bitmap per 64 vertices; a push reads the frontier's out-edges
    // and adds atomically at random targets. Betweenness's backward step on kron-22 measured
    // 2.7 ns an arc pulled against 17 pushed, so pull while the targets have fewer than
    // kTargetPullShare times the frontier's arcs (GAPBS always pulls that step: on kron-22 its
    // deepest level, 9 M arcs into targets with 115 M, pushes in half the time).
    if (f.target_edges != FrontierFacts::kNoTargets && f.out_edges > vertices / 64 &&
        static_cast<double>(f.target_edges) < kTargetPullShare * static_cast<double>(f.out_edges))
      return Direction::kPull;
    const double all_arcs = static_cast<double>(arcs);
    if (!saturates)
      return static_cast<double>(f.out_edges) > all_arcs * pull_share ? Direction::kPull
                                                                      : Direction::kPush;
    const double explored = activates_once ? static_cast<double>(f.explored_edges) : 0.0;
    const double unexplored = std::max(all_arcs - explored, 0.0);
    const double work = static_cast<double>(f.size + f.out_edges);
    if (f.came_from_pull) {
      // Stay in pull while the frontier grows or is still large (Beamer's beta test).
      const bool growing = f.size >= f.previous_size;
      const bool large = static_cast<double>(f.size) > static_cast<double>(vertices) / beta;
      return growing || large ? Direction::kPull : Direction::kPush;
    }
    return work > unexplored / alpha ? Direction::kPull : Direction::kPush;
  }
};

}  // namespace tg
