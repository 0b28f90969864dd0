// The options of a run that name one of a few choices (--direction, --schedule, --store,
// --store-order, --exchange, --far, --precision), each an enum with one table of its
// names: the fronts parse a user's word once, with one message ("--direction must be auto, push or
// pull, got 'sideways'"; from Python "direction must be ..."), and reports name a value back from
// the same table. Below the fronts no layer sees the words.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "algorithms/pagerank_model.h"
#include "engine/direction.h"
#include "engine/mpi/dist_types.h"
#include "engine/schedule.h"
#include "plan/far_tier.h"
#include "store/pread_transfer.h"
#include "util/error.h"
#include "util/option_names.h"

namespace tg::run {

// Where `run --store` takes every block from (under a budget the planner places them instead).
enum class StoreKind { kMapped, kCopying, kFile };
using StoreOrder = PreadTransfer::Completion;

template <typename E>
struct Choices;  // kNames: each choice's name, in the order messages list them

template <>
struct Choices<Direction> {
  static constexpr std::array<std::pair<std::string_view, Direction>, 3> kNames{
      {{"auto", Direction::kAuto}, {"push", Direction::kPush}, {"pull", Direction::kPull}}};
};
template <>
struct Choices<Schedule> {
  static constexpr std::array<std::pair<std::string_view, Schedule>, 3> kNames{
      {{"auto", Schedule::kAuto}, {"vertex", Schedule::kVertex}, {"block", Schedule::kBlock}}};
};
template <>
struct Choices<StoreKind> {
  static constexpr std::array<std::pair<std::string_view, StoreKind>, 3> kNames{
      {{"mapped", StoreKind::kMapped},
       {"copying", StoreKind::kCopying},
       {"file", StoreKind::kFile}}};
};
template <>
struct Choices<StoreOrder> {
  static constexpr std::array<std::pair<std::string_view, StoreOrder>, 3> kNames{
      {{"in-order", StoreOrder::kInOrder},
       {"reverse", StoreOrder::kReverse},
       {"shuffled", StoreOrder::kShuffled}}};
};
template <>
struct Choices<Exchange> {
  static constexpr std::array<std::pair<std::string_view, Exchange>, 3> kNames{
      {{"collective", Exchange::kCollective},
       {"ring", Exchange::kRing},
       {"accumulate", Exchange::kAccumulate}}};
};
template <>
struct Choices<FarTier> {
  static constexpr auto kNames = kFarTierNames;  // the plan names the tier in its reports too
};
template <>
struct Choices<PageRankPrecision> {
  static constexpr std::array<std::pair<std::string_view, PageRankPrecision>, 2> kNames{
      {{"double", PageRankPrecision::kDouble}, {"float", PageRankPrecision::kFloat}}};
};

// "auto, push or pull".
template <typename E>
std::string choice_list() {
  std::string s;
  const auto& names = Choices<E>::kNames;
  for (size_t k = 0; k < names.size(); ++k) {
    if (k > 0) s += k + 1 == names.size() ? " or " : ", ";
    s += names[k].first;
  }
  return s;
}

template <typename E>
std::string_view choice_name(E value) {
  for (const auto& [name, e] : Choices<E>::kNames)
    if (e == value) return name;
  return "?";
}

// The choice a word names, or nothing.
template <typename E>
std::optional<E> find_choice(std::string_view word) {
  for (const auto& [name, e] : Choices<E>::kNames)
    if (name == word) return e;
  return std::nullopt;
}

// The choice the word names; fails naming the option (by its flag without dashes, as the user's
// front writes it: util/option_names.h) and every choice.
template <typename E>
E parse_choice(std::string_view flag, std::string_view word) {
  if (const auto e = find_choice<E>(word)) return *e;
  fail("{} must be {}, got '{}'", option_name(flag), choice_list<E>(), word);
}

}  // namespace tg::run
