#include "run/threads.h"

#include <omp.h>

#include <algorithm>

#include "util/error.h"

namespace tg::run {

void check_threads(int threads) {
  if (threads < 0) fail("--threads must be positive, got {}", threads);
  constexpr int kMaxThreads = 4096;  // far past any machine; beyond it thread creation fails
  if (threads > kMaxThreads)
    fail("--threads {} is more than the {} tiergraph supports", threads, kMaxThreads);
}

void apply_threads(int threads) {
  check_threads(threads);
  if (threads > 0) omp_set_num_threads(threads);
}

int threads_per_rank(int ranks_here) {
  return std::max(1, omp_get_num_procs() / std::max(1, ranks_here));
}

}  // namespace tg::run
