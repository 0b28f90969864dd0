// The MPI runtime of a build without MPI (-DTG_WITH_MPI=OFF, or no MPI found): one process,
// rank 0 of 1, and every part of a job that needs other processes (ranks, a far-memory rank, a
// job under mpirun) refused with the reason at its start. CMake compiles this file in place of
// the ones that call MPI.
#include <cstdlib>

#include "mpi/comm.h"
#include "mpi/mpi_runtime.h"
#include "util/error.h"

namespace tg::mpi {

void refuse_without_mpi(const std::string& what) {
  fail(
      "{}: this build of tiergraph has no MPI (configured with -DTG_WITH_MPI=OFF, or CMake found "
      "none; scripts/setup.sh installs Open MPI), so it runs in one process",
      what);
}

void start() {
  refuse_without_mpi(launched()
                         ? fmt::format("started by mpirun as one of {} processes", launched_size())
                         : std::string("MPI ranks"));
}
bool started() { return false; }
int rank() { return 0; }
int size() { return 1; }
int world_rank() { return 0; }
int world_size() { return 1; }
void pair_with_far_ranks() { refuse_without_mpi("--far rank"); }
bool serves_far_blocks() { return false; }
std::string error_text(int) { return {}; }
void wait_for_message(int, int) { refuse_without_mpi("waiting for another rank"); }
void agree(const std::function<void()>& step) { step(); }
void abort_job(int code) { std::exit(code); }
void finalize_and_exit(int status) { std::exit(status); }

void check_same_graph(uint64_t, uint64_t, const char*) {}  // one process: nothing to compare

}  // namespace tg::mpi
