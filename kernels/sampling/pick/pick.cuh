// Greedy and the top-k / top-p draw on CUDA (kc/families/sampling.hpp), a block a row. Greedy: each
// thread keeps its best of a strided share under the stated order (a NaN first, then the larger,
// ties to the lower id), a warp and then the block reduce by the same order. The draw: k rounds of a
// block maximum, each over the elements ordered after the last pick (the order is total: larger
// weight, then lower id), so no pick repeats; thread 0 then applies the rule in fp32, exact there.
#pragma once

namespace kc::cu {
inline constexpr int kPickThreads = 1024;
inline constexpr int kDrawThreads = 256;
inline constexpr int kDrawMaxK = 64;
// logits [rows, vocab] (f32, or bf16 where bf16); id i32 [rows].
void sample_greedy(const void* logits, bool bf16, int* id, int rows, int vocab, void* stream);
// p f32 [rows, vocab], u and top_p f32 [rows]; id i32 [rows]; k <= kDrawMaxK.
void sample_draw(const float* p, const float* u, const float* top_p, int* id, int rows, int vocab, int k, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__)
#include <cuda_bf16.h>

__device__ inline bool kc_pick_above(float a, int ia, float b, int ib) {
  if (ib < 0) return ia >= 0;
  if (ia < 0) return false;
  if (isnan(a) || isnan(b)) return isnan(a) && (!isnan(b) || ia < ib);
  return a > b || (a == b && ia < ib);
}

// The block's best (v, i) by kc_pick_above; every thread gets it.
template <int T> __device__ inline void kc_pick_reduce(float& v, int& i) {
  __shared__ float sv[T / 32];
  __shared__ int si[T / 32];
  for (int o = 16; o > 0; o /= 2) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, o);
    const int oi = __shfl_xor_sync(0xffffffffu, i, o);
    if (kc_pick_above(ov, oi, v, i)) v = ov, i = oi;
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) sv[threadIdx.x / 32] = v, si[threadIdx.x / 32] = i;
  __syncthreads();
  v = sv[0], i = si[0];
  for (int w = 1; w < T / 32; ++w)
    if (kc_pick_above(sv[w], si[w], v, i)) v = sv[w], i = si[w];
}

template <class T>
__global__ void __launch_bounds__(kc::cu::kPickThreads)
kc_sample_greedy(const T* __restrict__ x, int* __restrict__ id, int vocab) {
  const T* r = x + long(blockIdx.x) * vocab;
  float v = 0.f;
  int i = -1;
  for (int c = threadIdx.x; c < vocab; c += kc::cu::kPickThreads) {
    float f;
    if constexpr (sizeof(T) == 2) f = __bfloat162float(r[c]); else f = r[c];
    if (kc_pick_above(f, c, v, i)) v = f, i = c;
  }
  kc_pick_reduce<kc::cu::kPickThreads>(v, i);
  if (threadIdx.x == 0) id[blockIdx.x] = i;
}

// S = true: the control's fault (controls/cuda/moe): the draw stops one bucket short of the last kept.
template <bool S>
__global__ void __launch_bounds__(kc::cu::kDrawThreads)
kc_sample_draw(const float* __restrict__ p, const float* __restrict__ u, const float* __restrict__ top_p,
               int* __restrict__ id, int vocab, int k) {
  __shared__ int pick[kc::cu::kDrawMaxK];
  __shared__ float pw[kc::cu::kDrawMaxK];
  const float* w = p + long(blockIdx.x) * vocab;
  float lv = 0.f;
  int li = -1;  // the last pick: this round takes the best ordered after it
  for (int j = 0; j < k; ++j) {
    float v = 0.f;
    int i = -1;
    for (int c = threadIdx.x; c < vocab; c += kc::cu::kDrawThreads) {
      const float f = w[c];
      if (li >= 0 && !kc_pick_above(lv, li, f, c)) continue;
      if (kc_pick_above(f, c, v, i)) v = f, i = c;
    }
    kc_pick_reduce<kc::cu::kDrawThreads>(v, i);
    if (threadIdx.x == 0) pick[j] = i, pw[j] = v;
    lv = v, li = i;
  }
  if (threadIdx.x) return;
  float* c = pw;  // the running sums, in place in shared memory (no per-thread array: no stack frame)
  for (int j = 1; j < k; ++j) c[j] += c[j - 1];
  const float limit = top_p[blockIdx.x] * c[k - 1];
  int n = 1;
  while (n < k && c[n - 1] < limit) ++n;
  const float target = u[blockIdx.x] * c[n - 1];
  int j = 0;
  while (j < (S && n > 1 ? n - 2 : n - 1) && !(c[j] > target)) ++j;
  id[blockIdx.x] = pick[j];
}
#endif
