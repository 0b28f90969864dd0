// The answer of one run against another's: integers identical, real values (PageRank) within
// 1e-9 in L1 (atomic sums in another order differ in the last bits), infinities equal.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algorithms/result.h"

namespace tg::testing {

inline void expect_same_answer(const AlgorithmResult& got, const AlgorithmResult& want,
                               const std::string& what) {
  if (want.real) {
    double l1 = 0;
    ASSERT_EQ(got.reals.size(), want.reals.size()) << what;
    for (size_t v = 0; v < got.reals.size(); ++v) {
      if (got.reals[v] == want.reals[v]) continue;  // unreached vertices are infinite in both
      l1 += std::fabs(got.reals[v] - want.reals[v]);
    }
    EXPECT_LT(l1, 1e-9) << what;
  } else {
    EXPECT_EQ(got.ints, want.ints) << what;
  }
}

}  // namespace tg::testing
