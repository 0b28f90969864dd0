// Whether mpirun started this process: its environment says so before MPI starts, in a build
// with MPI or without (which then refuses the job, see single_process.cc).
#include <cstdlib>

#include "mpi/mpi_runtime.h"

namespace tg::mpi {

bool launched() { return launched_size() > 0; }

int launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return 0;
}

}  // namespace tg::mpi
