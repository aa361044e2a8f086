// The MoE combine on CUDA (kc/families/moe.hpp): a thread an output element, y[t,h] = sum_j w[t,j] *
// e[slot[t,j], h] by fma in j's order (one chain of k), then + shared[t,h], rounded once to bf16. In
// place, y is shared's memory: each thread reads its element before it writes it.
#pragma once

namespace kc::cu {
inline constexpr int kCombineThreads = 256;
// bf16 e [slots, hidden], slot i32 and w f32 [tokens, k], bf16 shared [tokens, hidden] or null; bf16 y.
void moe_combine_bf16(const void* e, const int* slot, const float* w, const void* shared, void* y, int tokens,
                      int hidden, int k, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__)
#include <cuda_bf16.h>

// F = 1: the control's fault (controls/cuda/moe): the k-th expert's row is never added.
template <int F>
__global__ void __launch_bounds__(kc::cu::kCombineThreads)
kc_moe_combine_bf16(const __nv_bfloat16* __restrict__ e, const int* __restrict__ slot, const float* __restrict__ w,
                    const __nv_bfloat16* shared, __nv_bfloat16* y, int hidden, int k) {
  const int t = blockIdx.y, h = blockIdx.x * kc::cu::kCombineThreads + threadIdx.x;
  if (h >= hidden) return;
  float acc = 0.f;
  for (int j = 0; j < k - F; ++j)
    acc = fmaf(w[t * k + j], __bfloat162float(e[long(slot[t * k + j]) * hidden + h]), acc);
  if (shared) acc += __bfloat162float(shared[long(t) * hidden + h]);
  y[long(t) * hidden + h] = __float2bfloat16_rn(acc);
}
#endif
