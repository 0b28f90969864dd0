#include "mpi/types.h"

#include "mpi/mpi_runtime.h"
#include "util/error.h"

namespace tg::mpi {

MPI_Datatype datatype_of(Scalar s) {
  switch (s) {
    case Scalar::kU32:
      return MPI_UINT32_T;
    case Scalar::kU64:
      return MPI_UINT64_T;
    case Scalar::kI64:
      return MPI_INT64_T;
    case Scalar::kF64:
      return MPI_DOUBLE;
  }
  fail("no MPI datatype for value type {}", static_cast<int>(s));
}

MPI_Op op_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMin:
      return MPI_MIN;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kSum:
      return MPI_SUM;
    case ReduceOp::kOr:
      return MPI_BOR;
  }
  fail("no MPI operator for reduce operator {}", static_cast<int>(op));
}

size_t bytes_of(Scalar s) { return s == Scalar::kU32 ? 4 : 8; }

void check(int code, const char* what, const char* call) {
  if (code == MPI_SUCCESS) return;
  if (*what) fail("{}: {} failed: {}", what, call, error_text(code));
  fail("{} failed: {}", call, error_text(code));
}

}  // namespace tg::mpi
