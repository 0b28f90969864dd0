// The MPI protocol tests' main: every rank runs the tests; the job fails if any rank's did.
#include <gtest/gtest.h>
#include <mpi.h>

#include "mpi/mpi_runtime.h"

int main(int argc, char** argv) {
  tg::mpi::start();
  if (tg::mpi::rank() != 0)
    GTEST_FLAG_SET(brief, true);  // the other ranks print only their failures
  ::testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}
