// A float stored as a projection's output type: fp32 as it is, bf16 rounded to nearest even. One
// definition for the decode and prompt kernels (CUDA; HIP through kc_gpu.h and hip_shim).
#pragma once
#include "kc_gpu.h"

#include <cuda_bf16.h>

template <class Out> __device__ __forceinline__ void kc_store(Out* y, size_t i, float v);
template <> __device__ __forceinline__ void kc_store<float>(float* y, size_t i, float v) { y[i] = v; }
template <> __device__ __forceinline__ void kc_store<__nv_bfloat16>(__nv_bfloat16* y, size_t i, float v) {
  y[i] = __float2bfloat16_rn(v);
}
