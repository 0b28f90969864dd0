// MPI, for the runs that need it: started only when a run asks for ranks (the far-memory rank
// now, distributed execution later), so a plain run never loads MPI's runtime. Debian's Open MPI;
// every process of a job runs the same command line.
#pragma once

#include <functional>
#include <string>

namespace tg::mpi {

// Whether this process was started by mpirun (its environment says so), and the job's size;
// both known before MPI starts.
bool launched();
int launched_size();
// The positive count in the environment variable `name` (as mpirun sets OMPI_COMM_WORLD_SIZE and
// OMPI_COMM_WORLD_LOCAL_SIZE); 0 when it is unset or not a positive integer.
int environment_count(const char* name);

// Starts MPI with MPI_THREAD_MULTIPLE (the store's I/O threads issue one-sided reads) once; it is
// finalized by finalize_and_exit(), or when the process exits normally.
void start();
bool started();
// Ends the process with `status`. Where MPI started and was not finalized, through
// MPI_Finalize, leaving as soon as PMIx has finalized inside it and skipping the rest of Open
// MPI's teardown, which now and then crashed a rank whose work was done (mpi_runtime.cc says
// why); otherwise through std::exit. A process that exits another way finalizes MPI at exit.
[[noreturn]] void finalize_and_exit(int status);
// This process's place among the ranks that compute, and how many compute: the whole job, or
// its first half once pair_with_far_ranks() has run.
int rank();
int size();
// The whole job's (what an error names, and what abort_job ends).
int world_rank();
int world_size();

// `--far rank` on N compute ranks: a job of 2N processes, where ranks 0..N-1 compute and rank
// N + r holds compute rank r's far blocks. Splits the job's communicator in two (dist/
// communicators.h: compute(), far_pair()); collective over the whole job, once. Fails on an odd
// number of processes.
void pair_with_far_ranks();
// Whether this process is a far-memory rank (it serves blocks and computes nothing).
bool serves_far_blocks();

// MPI's text for an error code (the callers' messages name what failed and add it).
std::string error_text(int code);

// Waits for one int message from rank `source` of far_pair() with `tag` (what a serving rank
// waits for: the reader saying it is done), calling into MPI every 500 microseconds meanwhile:
// one-sided reads of this rank's window progress only then on transports without a progress thread
// (TCP, UCX); over shared memory they need none. Throws tg::Error if MPI fails.
void wait_for_message(int source, int tag);

// Runs `step`, a part of a job's start that every process reaches alike (checking the options,
// opening the graph, comparing files), and agrees on its outcome over the whole job: when it
// failed on any process, world rank 0 throws tg::JobError with each distinct message once
// (naming the ranks when not all of them failed alike) and every other process throws
// tg::ReportedElsewhere, so the error is told once and every process leaves through
// MPI_Finalize instead of an abort. Without MPI, or on one process, it just runs `step`.
void agree(const std::function<void()>& step);

// Ends the whole job (every rank) with `code`: an error on one rank must not leave another
// waiting forever.
[[noreturn]] void abort_job(int code);

// A build without MPI (TG_HAVE_MPI 0: CMake's TG_WITH_MPI off, or no MPI found) runs in one
// process: start() refuses, and so do the far-memory rank and MPI ranks, through this, which
// throws tg::Error saying that `what` (a feature or option) needs MPI.
#if !TG_HAVE_MPI
[[noreturn]] void refuse_without_mpi(const std::string& what);
#endif

}  // namespace tg::mpi
