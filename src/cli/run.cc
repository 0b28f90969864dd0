#include "cli/commands.h"
namespace tg::cli {
Runner add_run(CLI::App& app) {
  app.add_subcommand("run", "Run an algorithm (not yet built)");
  return [] {};
}
}  // namespace tg::cli
