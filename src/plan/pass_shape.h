// How an algorithm's passes use the graph, as the planner needs to know it: which grid its edge
// passes read (push reads the out grid, pull the in grid) and whether it keeps frontier lists.
// Each kernel declares its own (run/kernels.h), so the planner never asks a kernel's name;
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
  // A block-major pull over a fetching store gives each thread one slice of a range, and each
  // slice an accumulator per vertex (the combine's value), a copy of the target where the kernel
  // asks the target first (wants / saturated), and a state byte: up to this much per vertex at
  // once.
  unsigned pull_value_bytes = 0;  // the combine's value; 0: an id's size
  bool pull_copies_target = false;
  // A pass's work per vertex against its work per arc, where that outweighs Gemini's alpha for
  // dividing vertices among MPI ranks (0: Gemini's; engine/mpi/partition.h).
  double vertex_weight = 0;
  // Its pass is the triangle pass (engine/concept.h's IntersectingEngine): it reads every arc
  // once to build its lists, and an engine without the pass refuses the kernel.
  bool triangles = false;
  // Its pass is the gather pass (engine/concept.h's GatheringEngine): it reads every arc once
  // to build its neighbour lists, and an engine without the pass refuses the kernel.
  bool gathers = false;
  constexpr unsigned pull_scratch_bytes(unsigned id_bytes) const {
    return (pull_value_bytes ? pull_value_bytes : id_bytes) * (pull_copies_target ? 2 : 1) + 1;
  }
};

// A direction-optimizing traversal: both grids, with lists (BFS: a candidate parent, asking the
// target first; Radii: a 64-bit source mask, asking the target first).
inline constexpr PassShape kBfsShape{.pull_copies_target = true};
// Afforest's links (WCC): the sample and the other arcs read the out grid and, on a directed
// graph, the in grid; the vertices outside the giant tree are a list. It makes no edge pass, so
// the pull accumulators planned for it (an id and a byte a vertex) are never taken.
inline constexpr PassShape kWccShape{};
inline constexpr PassShape kRadiiShape{.pull_value_bytes = 8, .pull_copies_target = true};
// Brandes' betweenness: a path-count traversal (a double sum, asking the target first) and a
// sweep back against the arcs, which pushes over the in grid.
inline constexpr PassShape kBcShape{.pull_value_bytes = 8, .pull_copies_target = true};
// The triangle pass (tc, lcc): it reads every block of the out grid (and of a directed graph's
// in grid) twice, to count and to fill its lists, and keeps no frontiers.
inline constexpr PassShape kTrianglePassShape{.frontier_lists = false, .triangles = true};
// The gather pass (cdlp): it reads every block of the out grid (and of a directed graph's in
// grid) twice, to count and to fill its lists, then rounds over the lists; no frontiers.
inline constexpr PassShape kGatherPassShape{.frontier_lists = false, .gathers = true};
// Pushes (SSSP: it pulls only when half the arcs are active; a distance of at most 8 bytes).
inline constexpr PassShape kSsspShape{.out_share = 1.0, .in_share = 0.0, .pull_value_bytes = 8};
// Pulls over every vertex every pass, activating none (PageRank: a double sum). Every vertex
// also takes a step and a short in-list costs a mispredicted loop exit, so a vertex weighs about
// 32 arcs: on 2 ranks that alpha ran 20 iterations of soc-Slashdot0902 in 0.77x the time of
// Gemini's alpha (8), and Kronecker-18 in 0.95x (5 alternated rounds, a thread a rank).
inline constexpr PassShape kPageRankShape{.out_share = 0.0,
                                          .in_share = 1.0,
                                          .frontier_lists = false,
                                          .pull_value_bytes = 8,
                                          .vertex_weight = 32};

}  // namespace tg
