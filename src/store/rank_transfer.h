// The far-memory rank tier (the Fargraph+ paper's RDMA far memory): under
// `mpirun -np 2 tiergraph run ... --far rank`, rank 1 holds the far blocks in an MPI window and
// does nothing else; rank 0 computes and reads them with one-sided MPI_Rget, which Open MPI over
// UCX turns into RDMA reads on a real fabric (and into shared-memory copies with `--mca osc sm`
// on one machine). Rank 1 sends nothing per read: a read costs the origin alone.
// On N computing ranks (`mpirun -np 2N ... --far rank`) each has its own far-memory rank, which
// holds the far blocks of that rank's rows: the two are ranks 0 and 1 of their pair's
// communicator (mpi::far_pair()), and everything below speaks of the pair. The window itself is
// created over the whole job, collectively by every rank, once per run.
//
// Both ranks lay the far blocks out the same way: whole block extents in block order, each
// 64-byte aligned, so rank 0 turns a file byte range into a window displacement without asking.
// Rank 0 decides which blocks are far and broadcasts that; rank 1 reads them from the graph file
// (which it must be able to open: a shared file system, or a copy at the same path).
#pragma once

#include <memory>
#include <mutex>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph_file.h"
#include "store/transfer.h"

namespace tg {

// Where the far blocks lie in the server's window.
struct FarLayout {
  struct Extent {
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

// Rank 1's whole part in a run: receives the far blocks' slots, reads them into its window, and
// serves one-sided reads until rank 0 says it is done. Throws tg::Error on a failure (the caller
// ends the job).
void serve_far_blocks(const GraphFile& file);

class RankTransfer final : public Transfer {
 public:
  // Collective with rank 1's serve_far_blocks: sends the far slots, opens the window, and waits
  // until rank 1 holds every far block. chunk_bytes: the largest single MPI_Rget.
  RankTransfer(const GraphFile& file, const std::vector<unsigned char>& far_slots, uint64_t chunk_bytes);
  // Tells rank 1 the run is over and closes the window (collective).
  ~RankTransfer() override;
  RankTransfer(const RankTransfer&) = delete;
  RankTransfer& operator=(const RankTransfer&) = delete;

  std::string name() const override { return "rank"; }
  uint64_t alignment() const override { return 1; }
  void start(uint64_t id, std::vector<ReadRange> ranges) override;
  uint64_t complete(std::string& error) override;
  uint64_t window_bytes() const { return layout_.bytes; }
  // The far rank's peak resident memory once it held the far blocks (it does nothing else after).
  uint64_t server_peak_rss_bytes() const { return server_peak_rss_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  FarLayout layout_;
  uint64_t chunk_bytes_;
  int server_ = 1;  // the far rank's rank in the window's communicator
  uint64_t server_peak_rss_ = 0;
  std::string path_;
};

}  // namespace tg
