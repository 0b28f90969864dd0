// The MPI engine's traits of the combine operators (engine/combine.h) and of vertex values: which
// MPI reduction each operator is, whether a replica may be merged with it (idempotent: a value
// combined with itself is unchanged, so ranks may hold the same contribution), and which MPI
// scalar a vertex value travels as. Only the specializations below exist: an operator or a value
// type this backend does not know fails to compile where the MPI engine meets it, rather than
// travelling as another (a sum merged as a bitwise or).
#pragma once

#include <cstdint>

#include "engine/combine.h"
#include "mpi/comm.h"

namespace tg::dist {

template <typename Op>
struct MpiReduce;  // not an operator this backend can combine across ranks
template <typename T>
struct MpiReduce<MinOp<T>> {
  static constexpr mpi::ReduceOp kOp = mpi::ReduceOp::kMin;
  static constexpr bool kIdempotent = true;
};
template <typename T>
struct MpiReduce<MaxOp<T>> {
  static constexpr mpi::ReduceOp kOp = mpi::ReduceOp::kMax;
  static constexpr bool kIdempotent = true;
};
template <typename T>
struct MpiReduce<SumOp<T>> {
  static constexpr mpi::ReduceOp kOp = mpi::ReduceOp::kSum;
  static constexpr bool kIdempotent = false;
};
template <typename T>
struct MpiReduce<OrOp<T>> {
  static constexpr mpi::ReduceOp kOp = mpi::ReduceOp::kOr;
  static constexpr bool kIdempotent = true;
};

template <typename T>
struct MpiScalar;  // a vertex value MPI cannot reduce (composites travel as bytes)
template <>
struct MpiScalar<uint32_t> {
  static constexpr mpi::Scalar kValue = mpi::Scalar::kU32;
};
template <>
struct MpiScalar<uint64_t> {
  static constexpr mpi::Scalar kValue = mpi::Scalar::kU64;
};
template <>
struct MpiScalar<int64_t> {
  static constexpr mpi::Scalar kValue = mpi::Scalar::kI64;
};
template <>
struct MpiScalar<double> {
  static constexpr mpi::Scalar kValue = mpi::Scalar::kF64;
};

// A vertex value MPI reduces and accumulates as a scalar.
template <typename T>
concept MpiValue = requires {
  MpiScalar<T>::kValue;
};

}  // namespace tg::dist
