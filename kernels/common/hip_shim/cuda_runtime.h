// cuda_runtime.h for clang's HIP device-only builds with no ROCm (-nogpuinc): a CUDA source that
// includes <cuda_runtime.h> (a control or kernel whose registration sits beside its kernel) compiles
// unchanged for AMDGPU with this folder on the include path. Device code gets CUDA's spelling from
// kc_gpu.h; the host code around it (registrations, launches) is parsed, never emitted: the code
// object is device-only. Never on the include path of a host build.
#pragma once
#if !defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)
#error "hip_shim/cuda_runtime.h is only for clang -x hip --cuda-device-only -nogpuinc builds"
#endif
#include "../kc_gpu.h"

// Host runtime calls that shared host code makes: declared so it parses, never emitted here.
enum cudaError_t { cudaSuccess = 0 };
__host__ cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t stream = 0);
__host__ cudaError_t cudaMalloc(void** p, size_t bytes);
template <class T> __host__ cudaError_t cudaMalloc(T** p, size_t bytes) { return cudaMalloc(reinterpret_cast<void**>(p), bytes); }
__host__ cudaError_t cudaFree(void* p);
// What kc/cuda.hpp's helpers call.
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
__host__ cudaError_t cudaFuncSetAttribute(const void* fn, cudaFuncAttribute attr, int value);
__host__ cudaError_t cudaGetLastError();
__host__ const char* cudaGetErrorName(cudaError_t e);
