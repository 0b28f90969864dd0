// Turns a kernel's row number in kKernels (known at run time) into a compile-time constant, for
// the files that dispatch each kernel's trials (host_runs.cc, device_host_runs.cc, cuda_runs.cu).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include "gpu/runs.h"
#include "run/kernels.h"
#include "util/error.h"

namespace tg::gpu {

// run(std::integral_constant<size_t, k>{}) for the row k.
template <typename Run>
TrialsOutput with_kernel_row(size_t k, Run run) {
  switch (k) {
    case 0:
      return run(std::integral_constant<size_t, 0>{});
    case 1:
      return run(std::integral_constant<size_t, 1>{});
    case 2:
      return run(std::integral_constant<size_t, 2>{});
    case 3:
      return run(std::integral_constant<size_t, 3>{});
    case 4:
      return run(std::integral_constant<size_t, 4>{});
    case 5:
      return run(std::integral_constant<size_t, 5>{});
    case 6:
      return run(std::integral_constant<size_t, 6>{});
    case 7:
      return run(std::integral_constant<size_t, 7>{});
    case 8:
      return run(std::integral_constant<size_t, 8>{});
    default:
      fail("internal: kernel {} out of range", k);
  }
}
static_assert(std::tuple_size_v<decltype(kKernels)> == 9, "a new kernel needs a case above");

}  // namespace tg::gpu
