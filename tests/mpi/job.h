// What the MPI protocol tests share: a communicator over the whole job.
#pragma once

#include <cstdint>
#include <vector>

#include "mpi/comm.h"
#include "mpi/mpi_runtime.h"

namespace tg::dist {

// Each rank masters 64 vertices (the protocols do not look at them).
inline mpi::Comm whole_job() {
  std::vector<uint64_t> bounds;
  for (int r = 0; r <= mpi::size(); ++r) bounds.push_back(static_cast<uint64_t>(r) * 64);
  return mpi::Comm(bounds);
}

}  // namespace tg::dist
