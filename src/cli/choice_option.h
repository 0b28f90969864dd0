// An option whose value is one of a run choice's names (run/choices.h), kept as its enum: the
// word is checked against the same table the reports and Python use, so a front never carries
// the word further than its parse.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>

#include "run/choices.h"

namespace tg::cli {

template <typename E>
CLI::Option* add_choice(CLI::App* cmd, const std::string& flags, E& into, const std::string& help) {
  std::string names;
  for (const auto& [name, value] : run::Choices<E>::kNames)
    names += (names.empty() ? "" : ",") + std::string(name);
  return cmd
      ->add_option_function<std::string>(
          flags, [&into](const std::string& word) { into = *run::find_choice<E>(word); }, help)
      ->check(CLI::Validator(
          [](std::string& word) -> std::string {
            if (run::find_choice<E>(word)) return {};
            return fmt::format("must be {}, got '{}'", run::choice_list<E>(), word);
          },
          "{" + names + "}"))
      ->default_str(std::string(run::choice_name(into)));
}

}  // namespace tg::cli
