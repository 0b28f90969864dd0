// The far-memory rank tier (the Fargraph+ paper's RDMA far memory): under
// `mpirun -np 2 tiergraph run ... --far rank`, rank 1 holds the far blocks in an MPI window and
// does nothing else; rank 0 computes and reads them. On N computing ranks (`mpirun -np 2N`) each
// has its own far-memory rank, which holds the far blocks of that rank's rows: the two are ranks 0
// and 1 of their pair's communicator (mpi::far_pair()), and everything below speaks of the pair.
//
// How rank 0 reads the window is decided once per job (far_rank_reads_in_place):
// - in place (FarRankStore), when every pair's two ranks share a machine: the window is shared
//   memory (MPI_Win_allocate_shared) and rank 0's workers load from it as they load from a NUMA
//   node's memory, copying nothing (a far rank on the far socket or a CXL node is this case);
// - by one-sided copies (RankTransfer under a CopyingStore) otherwise, or when told to copy: each
//   lease is MPI_Rget into a local buffer, which Open MPI over UCX turns into RDMA reads on a real
//   fabric (and into shared-memory copies with `--mca osc sm` on one machine).
// Either way rank 1 sends nothing per read: a read costs the origin alone.
//
// Both ranks lay the far blocks out the same way: whole block extents in block order, each
// 64-byte aligned, so rank 0 turns a file byte range into a window displacement without asking.
// Rank 0 decides which blocks are far and broadcasts that; rank 1 reads them from the graph file
// (which it must be able to open: a shared file system, or a copy at the same path).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph_file.h"
#include "store/block_store.h"

namespace tg {

// Where the far blocks lie in the server's window.
struct FarLayout {
  struct Extent {
    BlockId block;
    uint64_t file_offset = 0, window_offset = 0, bytes = 0;
  };
  std::vector<Extent> extents;  // by file offset
  uint64_t bytes = 0;           // the window's size
};
// far_slots: by slot (out grid then in grid of a directed graph, storage order), 1 = far.
FarLayout far_layout(const GraphFile& file, const std::vector<unsigned char>& far_slots);

// Both ranks of a pair, right after each opened its graph file: stops the job at the start when
// the far rank's file is not the computing rank's (another size, or another header checksum,
// which covers the block index and so every block part's hash). A far rank reads the file at
// the path it was given; one on another machine, or a stale copy, would otherwise serve another
// graph's blocks, and a same-sized one gave a wrong answer with exit status 0. Both ranks throw
// the same tg::Error, naming both files (run it under mpi::agree to have it told once).
void check_far_rank_file(const GraphFile& file);

// Whether the computing ranks read their far ranks' windows in place: every pair's two ranks are
// on one machine, the one-sided component makes shared-memory windows, and no process was told
// to copy (`allowed` false). Collective over the whole
// job, which gets one answer.
bool far_rank_reads_in_place(bool allowed);

// Rank 1's whole part in a run: receives the far blocks' slots, reads them into its window, and
// serves reads until rank 0 says it is done. in_place: far_rank_reads_in_place's answer. Throws
// tg::Error on a failure (the caller ends the job).
void serve_far_blocks(const GraphFile& file, bool in_place);

}  // namespace tg
