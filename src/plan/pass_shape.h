// How an algorithm's passes use the graph, as the planner needs to know it: which grid its edge
// passes read (push reads the out grid, pull the in grid) and whether it keeps frontier lists.
// Each kernel declares its own (algorithms/kernels.h), so the planner never asks a kernel's name;
// engine tests hold every kernel to what it declares.
#pragma once

namespace tg {

struct PassShape {
  // The share of edge passes that read each grid (a grid with none is placed far; should a
  // pass read it after all, its blocks are fetched like any far block).
  double out_share = 0.5, in_share = 0.5;
  // Whether its frontiers are ever lists of ids (12 bytes a vertex of 32-bit ids at most); a
  // kernel whose passes run over every vertex and activate none (PageRank) holds bitmaps only.
  bool frontier_lists = true;
};

// A direction-optimizing traversal (BFS, WCC, Radii): both grids, with lists.
inline constexpr PassShape kSwitchesDirection{};
// Pushes only (SSSP: it pulls only when half the arcs are active).
inline constexpr PassShape kPushes{.out_share = 1.0, .in_share = 0.0};
// Pulls over every vertex every pass, activating none (PageRank).
inline constexpr PassShape kPullsEverything{.out_share = 0.0, .in_share = 1.0, .frontier_lists = false};

}  // namespace tg
