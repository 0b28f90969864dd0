// The answer of one run against another's: integers identical, real values (PageRank, BC) within
// 1e-9 in L1 relative to the answer's norm (atomic sums in another order differ in the last
// bits), infinities equal.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algorithms/result.h"

namespace tg::testing {

inline void expect_same_answer(const AlgorithmResult& got, const AlgorithmResult& want,
                               const std::string& what) {
  if (want.real) {
    ASSERT_EQ(got.reals.size(), want.reals.size()) << what;
    EXPECT_LT(relative_l1(got.reals, want.reals), 1e-9) << what;
  } else {
    EXPECT_EQ(got.ints, want.ints) << what;
  }
}

}  // namespace tg::testing
