// tiergraph: one binary, one subcommand per job. Results go to stdout, diagnostics to stderr;
// any error prints one line naming the problem and exits with status 1.
#include <omp.h>

#include <cstdio>

#include "cli/commands.h"
#include "mpi/mpi_runtime.h"
#include "store/numa_store.h"
#include "store/uring_transfer.h"
#include "util/error.h"
#include "util/interrupt_cleanup.h"
#include "util/log.h"

namespace {

// The version, and which optional components this build holds: each is built wherever its
// library was found (scripts/setup.sh installs all three), and a tier or mode whose component is
// missing is refused with the reason, so a user can see up front what the build can do.
std::string version_text() {
  const auto built = [](bool yes) { return yes ? "built" : "not built"; };
  return fmt::format(
      "tiergraph 0.1.0\n"
      "  MPI (ranks, --far rank): {}\n"
      "  io_uring (--far file, --store file): {}\n"
      "  libnuma (--far numa): {}",
      built(TG_HAVE_MPI), built(tg::UringTransfer::built()), built(tg::numa_built()));
}

int run_tiergraph(int argc, char** argv) {
  tg::install_interrupt_cleanup();
  CLI::App app{"tiergraph: graph analytics across memory tiers"};
  app.require_subcommand(1);
  app.fallthrough();  // global flags (-q) may also follow the subcommand
  app.set_version_flag("--version", version_text());
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "Print only results and errors");
  std::vector<std::pair<CLI::App*, tg::cli::Runner>> commands;
  auto add = [&](tg::cli::Runner (*f)(CLI::App&)) {
    const size_t before = app.get_subcommands({}).size();
    auto runner = f(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(runner));
  };
  add(tg::cli::add_calibrate);
  add(tg::cli::add_convert);
  add(tg::cli::add_generate);
  add(tg::cli::add_info);
  add(tg::cli::add_plan);
  add(tg::cli::add_reblock);
  add(tg::cli::add_run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "tiergraph: error: {} (see --help)\n", e.what());
    return 1;
  }
  if (quiet) tg::log::set_level(tg::log::Level::kQuiet);
  try {
    for (auto& [sub, runner] : commands) {
      if (sub->parsed()) runner();
    }
  } catch (const tg::ReportedElsewhere&) {
    // Another rank prints it and ends the job. This one leaves through MPI_Finalize (main's),
    // which waits for every process of the job, so the reporting rank's message comes out
    // before its abort ends the job; an abort here could kill it first.
    return 1;
  } catch (const tg::JobError& e) {
    // Every process of the job stopped at the same point and leaves through MPI_Finalize.
    std::fflush(stdout);
    fmt::print(stderr, "tiergraph: error: {}\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "tiergraph: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {  // tg::Error, and what a library threw past our checks
    std::fflush(stdout);
    fmt::print(stderr, "tiergraph: error: {}{}\n",
               tg::mpi::started() && tg::mpi::world_size() > 1
                   ? fmt::format("rank {}: ", tg::mpi::world_rank())
                   : std::string(),
               e.what());
    // One rank's error ends the job: the others would wait for it forever.
    if (tg::mpi::started() && tg::mpi::world_size() > 1) tg::mpi::abort_job(1);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // What escapes the handlers above (setting up the command line, or printing an error) still
  // ends in one line and status 1, not in std::terminate's abort.
  int status = 1;
  try {
    status = run_tiergraph(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tiergraph: error: %s\n", e.what());
  } catch (...) {
    std::fputs("tiergraph: error: an unknown exception\n", stderr);
  }
  // Through MPI_Finalize where a job started MPI (its ranks wait there for each other).
  tg::mpi::finalize_and_exit(status);
}
