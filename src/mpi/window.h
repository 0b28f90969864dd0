// Memory this rank exposes to the others of a communicator for one-sided access (an MPI window),
// as one RAII object: the exchanges' rings, inbox and task board and the far-memory rank's
// calibration each hold one. The headers that keep one name only the class (std::unique_ptr to
// it), so <mpi.h> stays in .cc files.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace tg::mpi {

class Window {
 public:
  // `bytes` of this rank's memory (MPI_Win_allocate over `comm`; collective). `what` names the
  // window's user in an error.
  Window(MPI_Comm comm, uint64_t bytes, const char* what);
  // Ends the epoch lock_all opened and frees the window (collective). While an error unwinds
  // this rank, the others may never come to free theirs, and the job ends with the error anyway
  // (MPI_Abort): then the window is left to it.
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // A passive-target epoch to every rank, open until unlock_all or the window's end. unlock_all
  // does not throw (a destructor may end the epoch before it tells a peer it is done): false if
  // MPI failed.
  void lock_all();
  bool unlock_all() noexcept;
  // MPI_WIN_UNIFIED: this rank may read its own window with plain loads (after MPI_Win_sync).
  bool unified() const;

  MPI_Win handle() const { return win_; }
  std::byte* base() const { return base_; }

 private:
  MPI_Win win_ = MPI_WIN_NULL;
  std::byte* base_ = nullptr;
  bool locked_ = false;
  const char* what_;
};

}  // namespace tg::mpi
