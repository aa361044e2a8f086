// The CUDA unit of the MoE combine (combine.cuh): the launcher its contract (cuda.cpp) calls, and its launch.
#include "combine.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::moe_combine_bf16(const void* e, const int* slot, const float* w, const void* shared, void* y, int tokens,
                              int hidden, int k, void* stream) {
  const dim3 grid((hidden / 8 + kCombineThreads - 1) / kCombineThreads, tokens);
  kc_moe_combine_bf16<0><<<grid, kCombineThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const kc_u4*>(e), slot, w, static_cast<const kc_u4*>(shared), static_cast<kc_u4*>(y), hidden, k);
}

KC_CUDA_LAUNCH("moe/combine/bf16", (kc_moe_combine_bf16<0>), kc::cu::kCombineThreads, 0);
