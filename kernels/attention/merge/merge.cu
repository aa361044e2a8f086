// The CUDA unit of the served merge (cuda_attention.cuh's kc_attn_merge): its export to the
// contracts (cuda_served.hpp) and its launches, one an output type and head dim.
#include "../cuda_served.hpp"
#include "kc/cuda_launch.hpp"

void kc::attn_cu::served_merge(const MergeArgs& a, int d, bool bf16_out, void* stream) {
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  if (bf16_out) launch_merge<uint16_t>(a, d, st);
  else launch_merge<float>(a, d, st);
}

KC_CUDA_LAUNCH("attention/merge/f32/d64", (kc_attn_merge<64, float, false>), kc::attn_cu::kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("attention/merge/f32/d128", (kc_attn_merge<128, float, false>), kc::attn_cu::kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("attention/merge/f32/d256", (kc_attn_merge<256, float, false>), kc::attn_cu::kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("attention/merge/bf16/d64", (kc_attn_merge<64, uint16_t, false>), kc::attn_cu::kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("attention/merge/bf16/d128", (kc_attn_merge<128, uint16_t, false>), kc::attn_cu::kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("attention/merge/bf16/d256", (kc_attn_merge<256, uint16_t, false>), kc::attn_cu::kThreads, 0, 1, "-");
