// The MoE combine on CUDA (kc/families/moe.hpp): y[t,h] = sum_j w[t,j] * e[slot[t,j], h] by fma in
// j's order (one chain of k), then + shared[t,h], rounded once to bf16; eight elements a thread, so
// hidden is a multiple of 8 and every row 16-byte aligned. In place, y is shared's memory: each
// thread reads its elements before it writes them.
#pragma once

namespace kc::cu {
inline constexpr int kCombineThreads = 256;
// bf16 e [slots, hidden], slot i32 and w f32 [tokens, k], bf16 shared [tokens, hidden] or null; bf16 y;
// hidden a multiple of 8.
void moe_combine_bf16(const void* e, const int* slot, const float* w, const void* shared, void* y, int tokens,
                      int hidden, int k, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__)
#include "../../common/kc_rows.cuh"

// A thread eight elements of a row (16-byte loads of each expert's row and the shared one, one
// 16-byte store): the same chain for each element as one element a thread, k fmas in j's order then
// the shared add. F = 1: the control's fault (controls/cuda/moe): the k-th expert's row is never added.
template <int F>
__global__ void __launch_bounds__(kc::cu::kCombineThreads)
kc_moe_combine_bf16(const kc_u4* __restrict__ e, const int* __restrict__ slot, const float* __restrict__ w,
                    const kc_u4* shared, kc_u4* y, int hidden, int k) {
  using namespace kc::cu;
  const int t = blockIdx.y, v = blockIdx.x * kCombineThreads + threadIdx.x, nv = hidden / 8;
  if (v >= nv) return;
  float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  for (int j = 0; j < k - F; ++j) {
    const float wj = w[t * k + j];
    float x[8];
    unpack8(e[long(slot[t * k + j]) * nv + v], x);
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[i] = fmaf(wj, x[i], acc[i]);
  }
  if (shared) {
    float s[8];
    unpack8(shared[long(t) * nv + v], s);
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[i] += s[i];
  }
  kc_u4 o;
  o.x = pack_bf16(acc[0], acc[1]), o.y = pack_bf16(acc[2], acc[3]);
  o.z = pack_bf16(acc[4], acc[5]), o.w = pack_bf16(acc[6], acc[7]);
  y[long(t) * nv + v] = o;
}
#endif
