// Host/device annotation for the functions a program exposes to the engine. Empty in a host
// build; under nvcc it makes the same function callable from a CUDA kernel, so one program text
// runs on both.
#pragma once

#if defined(__CUDACC__)
#define TG_HOST_DEVICE __host__ __device__
#else
#define TG_HOST_DEVICE
#endif
