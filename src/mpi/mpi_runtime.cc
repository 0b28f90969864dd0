#include "mpi/mpi_runtime.h"

#include <dlfcn.h>
#include <fmt/ranges.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "mpi/communicators.h"
#include "mpi/types.h"
#include "util/error.h"

namespace tg::mpi {

namespace {
bool g_started = false;
// Set by pair_with_far_ranks; the whole job until then.
MPI_Comm g_compute = MPI_COMM_WORLD;
MPI_Comm g_far_pair = MPI_COMM_WORLD;
bool g_serves = false;
// The status finalize_and_exit() ends the process with, once PMIx has finalized; -1 while none
// was given (MPI finalized at exit: the status is not known there).
std::atomic<int> g_exit_status{-1};

// For a process that leaves without finalize_and_exit (none of tiergraph's).
void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_started && !finalized) MPI_Finalize();
}
}  // namespace

void start() {
  if (g_started) return;
  // A rank that waits in MPI (a blocking collective for a slower peer, a far rank) polls; with
  // Open MPI's default it spins at full speed and takes the core from the threads that compute
  // when ranks and threads share the cores (two ranks of PageRank on soc-Slashdot0902, 2 cores:
  // 0.2-1.47 s, 0.086 s with yielding). Yield while idle unless the user chose otherwise;
  // Open MPI reads its OMPI_MCA_ variables from the environment in MPI_Init.
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    fail("MPI could not start");
  g_started = true;
  std::atexit(finalize_at_exit);
  if (provided < MPI_THREAD_MULTIPLE) {
    fail(
        "this MPI does not provide MPI_THREAD_MULTIPLE (it gave level {}); the far-memory tier "
        "reads from several threads",
        provided);
  }
  // Errors come back as codes that the callers turn into messages.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

bool started() { return g_started; }

void finalize_and_exit(int status) {
  g_exit_status.store(status);
  finalize_at_exit();  // where MPI started: ends the process inside, in PMIx_Finalize below
  std::exit(status);
}

int rank() {
  int r = 0;
  if (g_started) MPI_Comm_rank(g_serves ? MPI_COMM_WORLD : g_compute, &r);
  return r;
}

int size() {
  int s = 1;
  if (g_started) MPI_Comm_size(g_serves ? MPI_COMM_WORLD : g_compute, &s);
  return s;
}

int world_rank() {
  int r = 0;
  if (g_started) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int s = 1;
  if (g_started) MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

void pair_with_far_ranks() {
  if (!g_started) fail("internal: pair_with_far_ranks before MPI started");
  if (g_compute != MPI_COMM_WORLD) return;
  const int all = world_size(), me = world_rank();
  if (all % 2 != 0) {
    fail(
        "--far rank gives each compute rank a far-memory rank: start an even number of processes "
        "(N computing, then N "
        "serving their far blocks), not {}",
        all);
  }
  const int computing = all / 2;
  g_serves = me >= computing;
  // Keys keep the world's order: compute rank r is world rank r, and in its pair it is rank 0.
  MPI_Comm compute = MPI_COMM_NULL;
  check(MPI_Comm_split(MPI_COMM_WORLD, g_serves ? MPI_UNDEFINED : 0, me, &compute),
        "MPI_Comm_split (compute ranks)");
  check(MPI_Comm_split(MPI_COMM_WORLD, me % computing, me, &g_far_pair),
        "MPI_Comm_split (far-memory pairs)");
  MPI_Comm_set_errhandler(g_far_pair, MPI_ERRORS_RETURN);
  if (!g_serves) MPI_Comm_set_errhandler(compute, MPI_ERRORS_RETURN);
  g_compute = g_serves ? MPI_COMM_NULL : compute;
}

bool serves_far_blocks() { return g_serves; }

MPI_Comm compute() { return g_compute; }
MPI_Comm far_pair() { return g_far_pair; }

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

void wait_for_message(int source, int tag) {
  int message = 0, arrived = 0;
  MPI_Request request;
  check(MPI_Irecv(&message, 1, MPI_INT, source, tag, g_far_pair, &request), "MPI_Irecv");
  while (!arrived) {
    check(MPI_Test(&request, &arrived, MPI_STATUS_IGNORE), "MPI_Test");
    if (!arrived) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

void agree(const std::function<void()>& step) {
  if (!g_started || world_size() == 1) return step();
  std::string mine;
  try {
    step();
  } catch (const Error& e) {
    mine = e.what();
    if (mine.empty()) mine = "failed";  // every failure counts, even one without words
  }
  const int all = world_size();
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<size_t>(all)), offsets(static_cast<size_t>(all));
  check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD),
        "MPI_Allgather");
  int total = 0;
  for (int r = 0; r < all; ++r) {
    offsets[static_cast<size_t>(r)] = total;
    total += lengths[static_cast<size_t>(r)];
  }
  if (total == 0) return;
  std::string texts(static_cast<size_t>(total), '\0');
  check(MPI_Allgatherv(mine.data(), length, MPI_CHAR, texts.data(), lengths.data(), offsets.data(),
                       MPI_CHAR, MPI_COMM_WORLD),
        "MPI_Allgatherv");
  // Each distinct message with the ranks that gave it, in rank order of first appearance.
  std::vector<std::pair<std::string, std::vector<int>>> messages;
  for (int r = 0; r < all; ++r) {
    if (lengths[static_cast<size_t>(r)] == 0) continue;
    std::string text = texts.substr(static_cast<size_t>(offsets[static_cast<size_t>(r)]),
                                    static_cast<size_t>(lengths[static_cast<size_t>(r)]));
    auto it = std::find_if(messages.begin(), messages.end(),
                           [&](const auto& m) { return m.first == text; });
    if (it == messages.end())
      messages.emplace_back(std::move(text), std::vector<int>{r});
    else
      it->second.push_back(r);
  }
  if (world_rank() != 0) throw ReportedElsewhere(mine.empty() ? "another rank failed" : mine);
  std::string report;
  for (const auto& [text, ranks] : messages) {
    if (!report.empty()) report += "\n";
    if (messages.size() == 1 && static_cast<int>(ranks.size()) == all) {
      report += text;  // every rank alike: the message, as one process would give it
    } else {
      report += fmt::format("{} {}: {}", ranks.size() == 1 ? "rank" : "ranks",
                            fmt::join(ranks, ", "), text);
    }
  }
  throw JobError(report);
}

void abort_job(int code) {
  if (g_started) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace tg::mpi

// Open MPI 4.1 (Debian's 4.1.4) tears itself down inside MPI_Finalize after its PMIx client has
// finalized, and that teardown races with its own progress thread (open-mpi/ompi#10117): it
// unloads the PMIx client while an event of it may still fire on that thread. About one job in a
// thousand of the test suite's lost a rank to it after its answers were written: a SIGSEGV in code
// no longer mapped (two cores: the main thread joining the progress thread in orte_finalize, the
// progress thread in libevent calling into the unloaded library), and with the libraries kept
// mapped, a heap corrupted by the same late event (glibc's abort in opal_finalize_util). Nothing
// of that teardown matters to anyone once PMIx has finalized: every rank has passed MPI_Finalize's
// fence, the launcher has heard that this process finalized, and what is left is freeing memory
// and unloading libraries, which the process's end does anyway. So this process's definition of
// PMIx_Finalize (exported from the executable, CMakeLists.txt, so it comes before the PMIx
// library's in the lookup of Open MPI's component) calls the library's, and when
// finalize_and_exit() gave a status and PMIx finalized, flushes stdio and ends the process there.
// Any other caller, or a failure, returns as the library would. Declared as the library declares
// it, with its types spelled out (pmix_info_t is only passed through). LLVM's OpenMP runtime (the
// sanitizer builds') keeps a file in /dev/shm until its own teardown: paused first, it goes.
extern "C" int PMIx_Finalize(const void* info, size_t ninfo) {
  using Finalize = int (*)(const void*, size_t);
  // The next definition after this executable's: the PMIx library's.
  static const auto library = reinterpret_cast<Finalize>(dlsym(RTLD_NEXT, "PMIx_Finalize"));
  if (library == nullptr) return -1;  // PMIX_ERROR: no PMIx loaded, so none to finalize
  const int result = library(info, ninfo);
  const int status = tg::mpi::g_exit_status.load();
  if (result == 0 && status >= 0) {
    std::fflush(nullptr);
    omp_pause_resource_all(omp_pause_hard);
    std::_Exit(status);
  }
  return result;
}
