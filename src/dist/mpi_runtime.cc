#include "dist/mpi_runtime.h"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "util/error.h"

namespace tg::mpi {

namespace {
bool g_started = false;

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}
}  // namespace

bool launched() { return launched_size() > 0; }

int launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return 0;
}

void start() {
  if (g_started) return;
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) fail("MPI could not start");
  g_started = true;
  std::atexit(finalize_at_exit);
  if (provided < MPI_THREAD_MULTIPLE) {
    fail("this MPI does not provide MPI_THREAD_MULTIPLE (it gave level {}); the far-memory tier reads from several threads",
         provided);
  }
  // Errors come back as codes that the callers turn into messages.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

bool started() { return g_started; }

int rank() {
  int r = 0;
  if (g_started) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int s = 1;
  if (g_started) MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

void wait_for_message(int source, int tag) {
  auto check = [](int code, const char* what) {
    if (code != MPI_SUCCESS) fail("{} failed: {}", what, error_text(code));
  };
  int message = 0, arrived = 0;
  MPI_Request request;
  check(MPI_Irecv(&message, 1, MPI_INT, source, tag, MPI_COMM_WORLD, &request), "MPI_Irecv");
  while (!arrived) {
    check(MPI_Test(&request, &arrived, MPI_STATUS_IGNORE), "MPI_Test");
    if (!arrived) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

void abort_job(int code) {
  if (g_started) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace tg::mpi
