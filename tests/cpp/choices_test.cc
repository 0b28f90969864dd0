// The run's choice options: every name parses to its enum and back, and a word that names none
// is refused with the option and every choice named, as the user's front writes the option.
#include "run/choices.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace tg::run {
namespace {

template <typename E>
void expect_names_round_trip() {
  std::set<E> seen;
  for (const auto& [name, value] : Choices<E>::kNames) {
    EXPECT_EQ(parse_choice<E>("option", name), value) << name;
    EXPECT_EQ(choice_name(value), name);
    EXPECT_TRUE(seen.insert(value).second) << name << " names a value another name names";
  }
}

TEST(Choices, EveryNameParsesToItsValueAndBack) {
  expect_names_round_trip<Direction>();
  expect_names_round_trip<Schedule>();
  expect_names_round_trip<StoreKind>();
  expect_names_round_trip<StoreOrder>();
  expect_names_round_trip<Exchange>();
  expect_names_round_trip<FarTier>();
  EXPECT_EQ(far_tier_name(FarTier::kPaging), "paging");  // the plan's own name for its reports
}

TEST(Choices, AWordThatNamesNoneIsRefusedWithEveryChoice) {
  EXPECT_EQ(choice_list<Direction>(), "auto, push or pull");
  EXPECT_EQ(choice_list<PageRankPrecision>(), "double or float");
  EXPECT_EQ(choice_list<FarTier>(), "file, numa, rank or paging");
  try {
    parse_choice<Exchange>("exchange", "Ring");  // names are exact: no case folding
    FAIL() << "a word that names no exchange was taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--exchange must be collective, ring or accumulate, got 'Ring'");
  }
  set_front(Front::kPython);
  try {
    parse_choice<StoreOrder>("store-order", "");
    FAIL() << "an empty word was taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "store_order must be in-order, reverse or shuffled, got ''");
  }
  set_front(Front::kCommandLine);
}

}  // namespace
}  // namespace tg::run
