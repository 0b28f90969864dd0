#include "cli/budget_options.h"

#include "cli/choice_option.h"
#include "cli/validators.h"

namespace tg::cli {

void add_budget_options(CLI::App& cmd, run::BudgetArgs& a) {
  cmd.add_option("--memory-budget", a.memory_budget,
                 "Local memory the run may hold, e.g. 512M or 2G: vertex state, frontiers, the "
                 "block index, the fetch "
                 "pipeline and the edge blocks kept local; the rest of the edge blocks are read "
                 "from the far tier. "
                 "Peak RSS stays within it plus 64 MiB for the runtime. Needs a graph file "
                 "(convert text first)")
      ->check(byte_size());
  cmd.add_option(
      "--far-ratio", a.far_ratio,
      "The share of edge bytes placed on the far tier, 0 to 1 (the other way to give a budget)");
  add_choice(
      &cmd, "--far", a.far,
      "The far tier under a budget: file (the graph file, read with O_DIRECT through io_uring "
      "into a "
      "pipeline of buffers), numa (memory bound to a NUMA node, read in place) or rank (a "
      "far-memory rank "
      "read with one-sided MPI_Rget: start with mpirun -np 2); paging is the kernel-paging "
      "baseline (every "
      "block through the file's mapping with MADV_RANDOM; run it inside a cgroup memory limit)");
  cmd.add_option("--profile", a.profile,
                 "A fetch profile from `tiergraph calibrate` for the far tier (file or rank): the "
                 "chunk size and depth "
                 "measured on this machine (default: built-in defaults, which the plan names)")
      ->check(CLI::ExistingFile);
  cmd.add_flag("--far-rank-copy", a.far_rank_copy,
               "--far rank: copy the far blocks with one-sided MPI_Rget even where the far rank "
               "shares this machine "
               "(there its window is shared memory, read in place, by default): what a far rank on "
               "another machine does");
  cmd.add_option(
         "--far-node", a.far_node,
         "--far numa: the node holding the far blocks (default: the farthest from this CPU)")
      ->check(whole_number(0, 4095));
}

}  // namespace tg::cli
