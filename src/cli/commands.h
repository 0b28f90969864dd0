// The subcommands of the tiergraph binary. Each registers its options on the CLI11 app and
// returns the function that runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace tg::cli {

using Runner = std::function<void()>;

Runner add_calibrate(CLI::App& app);
Runner add_convert(CLI::App& app);
Runner add_generate(CLI::App& app);
Runner add_info(CLI::App& app);
Runner add_reblock(CLI::App& app);
Runner add_plan(CLI::App& app);
Runner add_run(CLI::App& app);

}  // namespace tg::cli
