// The MPI engine's traits of the combine operators and vertex values (engine/mpi/ops.h) and the
// one mapping to MPI's handles (mpi/types.h): each operator is the reduction it says, only the
// idempotent ones merge replicas, a composite value is not an MPI scalar, and an operator the
// backend does not know has no trait (so the MPI engine does not compile with it).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>

#include "engine/combine.h"
#include "engine/mpi/ops.h"
#include "mpi/types.h"

namespace tg {
namespace {

template <typename Op>
concept KnownToMpi = requires {
  dist::MpiReduce<Op>::kOp;
};

template <typename T>
struct XorOp {  // a combine operator no backend knows
  using Value = T;
};

static_assert(dist::MpiReduce<MinOp<uint32_t>>::kOp == mpi::ReduceOp::kMin);
static_assert(dist::MpiReduce<MaxOp<int64_t>>::kOp == mpi::ReduceOp::kMax);
static_assert(dist::MpiReduce<SumOp<double>>::kOp == mpi::ReduceOp::kSum);
static_assert(dist::MpiReduce<OrOp<uint64_t>>::kOp == mpi::ReduceOp::kOr);
static_assert(dist::MpiReduce<MinOp<double>>::kIdempotent &&
              dist::MpiReduce<OrOp<uint64_t>>::kIdempotent);
static_assert(!dist::MpiReduce<SumOp<uint64_t>>::kIdempotent);
static_assert(KnownToMpi<MinOp<uint32_t>> && !KnownToMpi<XorOp<uint32_t>>);
static_assert(dist::MpiScalar<uint32_t>::kValue == mpi::Scalar::kU32 &&
              dist::MpiScalar<double>::kValue == mpi::Scalar::kF64);
static_assert(dist::MpiValue<int64_t> && !dist::MpiValue<Pair<double>> && !dist::MpiValue<int32_t>);

TEST(MpiOps, EachReduceOpAndScalarIsTheMpiHandleItNames) {
  EXPECT_EQ(mpi::op_of(mpi::ReduceOp::kMin), MPI_MIN);
  EXPECT_EQ(mpi::op_of(mpi::ReduceOp::kMax), MPI_MAX);
  EXPECT_EQ(mpi::op_of(mpi::ReduceOp::kSum), MPI_SUM);
  EXPECT_EQ(mpi::op_of(mpi::ReduceOp::kOr), MPI_BOR);
  // Fixed-width unsigned names: Open MPI 4.1 compares MPI_UNSIGNED_LONG as signed in MIN/MAX.
  EXPECT_EQ(mpi::datatype_of(mpi::Scalar::kU32), MPI_UINT32_T);
  EXPECT_EQ(mpi::datatype_of(mpi::Scalar::kU64), MPI_UINT64_T);
  EXPECT_EQ(mpi::datatype_of(mpi::Scalar::kI64), MPI_INT64_T);
  EXPECT_EQ(mpi::datatype_of(mpi::Scalar::kF64), MPI_DOUBLE);
  EXPECT_EQ(mpi::bytes_of(mpi::Scalar::kU32), 4u);
  EXPECT_EQ(mpi::bytes_of(mpi::Scalar::kF64), 8u);
}

}  // namespace
}  // namespace tg
