// Whether mpirun started this process: its environment says so before MPI starts, in a build
// with MPI or without (which then refuses the job, see single_process.cc).
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "mpi/mpi_runtime.h"

namespace tg::mpi {

bool launched() { return launched_size() > 0; }

int environment_count(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return 0;
  const char* end = text + std::strlen(text);
  int count = 0;
  const auto [stop, error] = std::from_chars(text, end, count);
  return error == std::errc{} && stop == end && count > 0 ? count : 0;
}

int launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    if (const int size = environment_count(name)) return size;
  }
  return 0;
}

}  // namespace tg::mpi
