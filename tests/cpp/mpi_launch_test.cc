// What mpirun's environment says before MPI starts (mpi/launch.cc): a count is read only when
// the whole value is a positive integer, so a malformed OMPI_COMM_WORLD_LOCAL_SIZE makes a run
// fall back to one process on this machine rather than divide its cores by garbage.
#include <gtest/gtest.h>

#include <cstdlib>

#include "mpi/mpi_runtime.h"

namespace tg {
namespace {

constexpr const char* kName = "TG_TEST_ENVIRONMENT_COUNT";

int count_of(const char* value) {
  if (value) {
    setenv(kName, value, 1);
  } else {
    unsetenv(kName);
  }
  const int count = mpi::environment_count(kName);
  unsetenv(kName);
  return count;
}

TEST(MpiLaunch, EnvironmentCountsArePositiveIntegersOrZero) {
  EXPECT_EQ(count_of("4"), 4);
  EXPECT_EQ(count_of("128"), 128);
  EXPECT_EQ(count_of(nullptr), 0);
  EXPECT_EQ(count_of(""), 0);
  EXPECT_EQ(count_of("0"), 0);
  EXPECT_EQ(count_of("-2"), 0);
  EXPECT_EQ(count_of("3abc"), 0);
  EXPECT_EQ(count_of(" 3"), 0);
  EXPECT_EQ(count_of("99999999999"), 0);  // past int
}

}  // namespace
}  // namespace tg
