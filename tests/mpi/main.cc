// The MPI protocol tests' main: every rank runs the tests; the job fails if any rank's did.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "mpi/mpi_runtime.h"

int main(int argc, char** argv) {
  tg::mpi::start();
  if (tg::mpi::rank() != 0)
    GTEST_FLAG_SET(brief, true);  // the other ranks print only their failures
  ::testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // Finalizing keeps every library MPI loaded mapped (Open MPI 4.1 unloads its PMIx client while
  // an event of it may still run, and a rank now and then crashed in MPI_Finalize): checked here,
  // after the tests, because nothing may use MPI after it.
  const int rank = tg::mpi::world_rank();
  const std::vector<std::string> before = tg::mpi::mpi_libraries();
  tg::mpi::finalize();
  const std::vector<std::string> after = tg::mpi::mpi_libraries();
  if (before.empty() || after != before) {
    std::fprintf(stderr, "rank %d: %zu of MPI's libraries mapped before MPI_Finalize, %zu after\n",
                 rank, before.size(), after.size());
    return 1;
  }
  return any;
}
