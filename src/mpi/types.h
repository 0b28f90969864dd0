// The one mapping from this project's reduce operators and value types to MPI's handles, for the
// collectives (Comm) and the one-sided accumulates (the MPI engine's inbox) alike.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "mpi/comm.h"

namespace tg::mpi {

// Unsigned types use the fixed-width names: Open MPI 4.1 compares MPI_UNSIGNED_LONG as signed in
// MIN/MAX (shared/PLATFORM.md).
MPI_Datatype datatype_of(Scalar s);
MPI_Op op_of(ReduceOp op);
size_t bytes_of(Scalar s);

}  // namespace tg::mpi
