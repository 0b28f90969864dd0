// The MPI communicators tiergraph's ranks talk over (see mpi_runtime.h for how a job is laid
// out). Only code that calls MPI includes this.
#pragma once

#include <mpi.h>

namespace tg::mpi {

// The ranks that compute: the whole job, or, with far-memory ranks, its first half. Every
// collective, window and exchange of distributed execution is over this one.
MPI_Comm compute();
// A compute rank (as rank 0) and the far-memory rank that serves it (as rank 1): the whole job
// when it is those two processes, or their pair split from a larger one.
MPI_Comm far_pair();

}  // namespace tg::mpi
