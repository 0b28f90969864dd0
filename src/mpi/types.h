// The one mapping from this project's reduce operators and value types to MPI's handles, for the
// collectives (Comm) and the one-sided accumulates (the MPI engine's inbox) alike, and the one
// check of an MPI call's result.
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

// Fails (tg::Error) when code is not MPI_SUCCESS: "<what>: <call> failed: <MPI's text>", or
// without the "<what>: " where what is empty. Communicators return errors (MPI_ERRORS_RETURN;
// mpi_runtime.cc) so that they reach here.
void check(int code, const char* what, const char* call);
inline void check(int code, const char* call) { check(code, "", call); }

}  // namespace tg::mpi
