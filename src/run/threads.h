// The thread count a run is given, and the default on MPI ranks.
#pragma once

namespace tg::run {

// Sets OpenMP's thread count (0: leave the default, every core); refuses a negative count or one
// past what tiergraph supports.
// Refuses a thread count no machine runs (0: OpenMP's own setting).
void check_threads(int threads);
// Checks, then sets OpenMP's thread count for what follows (0 leaves it).
void apply_threads(int threads);
// The threads each of `ranks_here` computing MPI ranks on this machine runs when -t is not given:
// its cores shared among them (at least one). `run` on ranks and `plan --ranks` both use it.
int threads_per_rank(int ranks_here);

}  // namespace tg::run
