// The device engine's conformance tests (tests/device/device_engine_test.cc) on the CUDA backend:
// the same test text, run on a GPU; skipped without one.
#include <cuda_runtime.h>

#include "engine/cuda/backend_cuda.h"
#define TG_TEST_BACKEND CudaBackend
#define TG_TEST_NEEDS_GPU true
#include "../device/device_engine_test.cc"
