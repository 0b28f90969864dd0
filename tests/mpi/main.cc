// The MPI protocol tests' main: every rank runs the tests; the job fails if any rank's did.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "mpi/mpi_runtime.h"

// The definition src/mpi/mpi_runtime.cc gives this executable.
extern "C" int PMIx_Finalize(const void* info, size_t ninfo);

namespace {
int g_rank = 0;

// Runs only where MPI_Finalize returned to finalize_and_exit, which then leaves through
// std::exit: the process was to end inside it, once PMIx finalized (mpi_runtime.cc says why).
void returned_from_finalize() {
  std::fprintf(stderr,
               "rank %d: MPI_Finalize returned; the process did not end once PMIx had finalized\n",
               g_rank);
  std::_Exit(1);
}
}  // namespace

int main(int argc, char** argv) {
  tg::mpi::start();
  g_rank = tg::mpi::world_rank();
  if (g_rank != 0) GTEST_FLAG_SET(brief, true);  // the other ranks print only their failures
  ::testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // Checked after the tests, because nothing may use MPI after finalizing: Open MPI's component
  // finds this executable's PMIx_Finalize before the PMIx library's (the link exports it) ...
  if (dlsym(RTLD_DEFAULT, "PMIx_Finalize") != reinterpret_cast<void*>(&PMIx_Finalize)) {
    std::fprintf(stderr, "rank %d: PMIx_Finalize resolves to the PMIx library's, not tiergraph's\n",
                 g_rank);
    any = 1;
  }
  // ... and the process ends inside MPI_Finalize with the tests' status.
  std::atexit(returned_from_finalize);
  tg::mpi::finalize_and_exit(any);
}
