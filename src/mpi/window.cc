#include "mpi/window.h"

#include <exception>

#include "mpi/types.h"

namespace tg::mpi {

Window::Window(MPI_Comm comm, uint64_t bytes, const char* what) : what_(what) {
  void* base = nullptr;
  check(MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, comm,
                         static_cast<void*>(&base), &win_),
        what, "MPI_Win_allocate");
  base_ = static_cast<std::byte*>(base);
}

Window::~Window() {
  if (win_ == MPI_WIN_NULL || std::uncaught_exceptions() > 0) return;
  if (locked_) MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
}

void Window::lock_all() {
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), what_, "MPI_Win_lock_all");
  locked_ = true;
}

bool Window::unlock_all() noexcept {
  if (!locked_) return true;
  locked_ = false;
  return MPI_Win_unlock_all(win_) == MPI_SUCCESS;
}

bool Window::unified() const {
  int* model = nullptr;
  int found = 0;
  check(MPI_Win_get_attr(win_, MPI_WIN_MODEL, static_cast<void*>(&model), &found), what_,
        "MPI_Win_get_attr");
  return found && *model == MPI_WIN_UNIFIED;
}

}  // namespace tg::mpi
