// What the two ranks of a far-memory pair say to each other (far_rank.h describes the tier): the
// pieces the server (far_rank.cc) and its two clients (rank_transfer.cc, far_rank_store.cc)
// share. Only code that calls MPI includes this.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "graph/graph_file.h"

namespace tg::far_rank {

constexpr int kOrigin = 0, kServer = 1;  // ranks in the pair: the computing rank, its far rank
constexpr int kDoneTag = 7401, kLoadedTag = 7402, kFileTag = 7403;

void check(int code, const char* what);  // fails naming `what` unless MPI_SUCCESS
int pair_rank();                         // this process's rank in its pair
int pair_size();
int in_world(int rank_in_pair);  // a rank of this pair as a rank of the whole job

// The far slots, as the computing rank decided them, on both ranks of the pair.
std::vector<unsigned char> share_slots(const GraphFile& file, std::vector<unsigned char> slots);

// The window holding the far blocks, made by every process of the job at once (the server with
// `bytes`, every other process with 0) and locked for the run (passive target, MPI_MODE_NOCHECK).
// in_place: a shared-memory window per machine, and `server_base` the server's part as this
// process maps it; otherwise a window over the whole job, read with MPI_Rget at `server`. The
// window spans the job (or the machine), not a pair: Open MPI 4.1's default one-sided component
// names a window's shared segment after its communicator's context id, which the pairs split
// from one call share, so pairs' windows on one machine collided (a bus error).
struct Window {
  MPI_Win win = MPI_WIN_NULL;
  unsigned char* own = nullptr;          // this process's part (the server's blocks go here)
  unsigned char* server_base = nullptr;  // in place: the server's part, as this process maps it
  int server = -1;                       // the server's rank in the window
};
Window open_window(uint64_t bytes, bool in_place);
void close_window(Window& w);

}  // namespace tg::far_rank
