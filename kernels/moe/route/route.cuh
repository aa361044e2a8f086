// The MoE router on CUDA (kc/families/moe.hpp): a warp a token, up to 256 experts (8 a lane). Top-k
// by k rounds of a warp argmax under the stated rule (a NaN key first, then the larger, ties to the
// lower expert), the picked one struck out; lane j then weighs pick j, the sum one fp32 chain of k.
// The expert-major order is a second kernel of one block, a thread an expert: it counts its slots,
// the block scans the counts, and each thread writes its slots in ascending order (bit-exact).
#pragma once

namespace kc::cu {
inline constexpr int kRouteWarps = 4;  // tokens a block
inline constexpr int kRouteMaxExperts = 256;
// The launchers route.cu exports: logits f32 [tokens, experts], bias f32 [experts] or null; ids,
// weights [tokens, k]; counts, offsets [experts]; perm [tokens, k].
void moe_route(const float* logits, const float* bias, int* ids, float* weights, int* counts, int* offsets,
               int* perm, int tokens, int experts, int k, bool sigmoid, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__)
// F: 0 the served kernels; the controls' faults (controls/cuda/moe/moe_controls.cu instantiates them):
// 1 ties to the higher expert, 2 a NaN ranked by plain comparisons, 3 weights renormalised over every
// expert, 4 the permutation's last slot repeating its first.
template <int F> __device__ inline bool kc_route_above(float a, int ia, float b, int ib) {
  if (F == 2) return a > b || (a == b && ia < ib);
  if (isnan(a) || isnan(b)) return isnan(a) && (!isnan(b) || ia < ib);
  return a > b || (a == b && (F == 1 ? ia > ib : ia < ib));
}

template <int F>
__global__ void __launch_bounds__(kc::cu::kRouteWarps * 32)
kc_moe_route(const float* __restrict__ logits, const float* __restrict__ bias, int* __restrict__ ids,
             float* __restrict__ weights, int tokens, int experts, int k, bool sigmoid) {
  const int lane = threadIdx.x % 32;
  const int t = blockIdx.x * kc::cu::kRouteWarps + threadIdx.x / 32;
  if (t >= tokens) return;
  const float* x = logits + long(t) * experts;
  float key[8];
  bool live[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int e = lane + 32 * i;
    live[i] = e < experts;
    const float v = live[i] ? x[e] : 0.f;
    key[i] = bias && live[i] ? 1.f / (1.f + expf(-v)) + bias[e] : v;
  }
  // Pick j is warp-uniform once reduced: lane j keeps it (no array indexed by lane, which would sit in
  // local memory), and pick 0 (the maximum's) goes to every lane.
  int mine = -1, first = -1;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    if (j >= k) continue;  // k is the warp's (the kernel's): the shuffles stay convergent
    float bv = 0.f;
    int bi = -1;
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if (live[i] && (bi < 0 || kc_route_above<F>(key[i], lane + 32 * i, bv, bi))) bv = key[i], bi = lane + 32 * i;
    for (int o = 16; o > 0; o /= 2) {
      const float ov = __shfl_xor_sync(0xffffffffu, bv, o);
      const int oi = __shfl_xor_sync(0xffffffffu, bi, o);
      if (oi >= 0 && (bi < 0 || kc_route_above<F>(ov, oi, bv, bi))) bv = ov, bi = oi;
    }
    if (j == 0) first = bi;
    if (lane == j) mine = bi;
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if (bi == lane + 32 * i) live[i] = false;
  }
  // Lane j < k weighs pick j; the sum is one fp32 chain over j = 0..k-1 on every lane, in pick order.
  const float m = x[first];
  const float v = lane < k ? (sigmoid ? 1.f / (1.f + expf(-x[mine])) : expf(x[mine] - m)) : 0.f;
  float s = 0.f;
  if (F == 3) {
    for (int e = 0; e < experts; ++e) s += sigmoid ? 1.f / (1.f + expf(-x[e])) : expf(x[e] - m);
  } else {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float vj = __shfl_sync(0xffffffffu, v, j);
      if (j < k) s += vj;
    }
  }
  if (lane < k) {
    ids[long(t) * k + lane] = mine;
    weights[long(t) * k + lane] = v / s;
  }
}

template <int F>
__global__ void __launch_bounds__(kc::cu::kRouteMaxExperts)
kc_moe_order(const int* __restrict__ ids, int* __restrict__ counts, int* __restrict__ offsets, int* __restrict__ perm,
             int slots, int experts) {
  __shared__ int scan[kc::cu::kRouteMaxExperts];
  const int e = threadIdx.x;
  int n = 0;
  if (e < experts)
    for (int s = 0; s < slots; ++s) n += ids[s] == e;
  scan[e] = n;
  __syncthreads();
  if (e == 0)
    for (int i = 1; i < experts; ++i) scan[i] += scan[i - 1];
  __syncthreads();
  if (e < experts) {  // no thread leaves before the last barrier
    int at = scan[e] - n;
    counts[e] = n;
    offsets[e] = at;
    for (int s = 0; s < slots && n; ++s)
      if (ids[s] == e) perm[at++] = s, --n;
  }
  if (F == 4) {
    __syncthreads();
    if (e == 0 && slots > 1) perm[slots - 1] = perm[0];
  }
}
namespace kc::cu {
template <int F>
void moe_route_launch(const float* logits, const float* bias, int* ids, float* weights, int* counts, int* offsets,
                      int* perm, int tokens, int experts, int k, bool sigmoid, cudaStream_t st) {
  kc_moe_route<F><<<(tokens + kRouteWarps - 1) / kRouteWarps, kRouteWarps * 32, 0, st>>>(logits, bias, ids, weights,
                                                                                        tokens, experts, k, sigmoid);
  kc_moe_order<F><<<1, kRouteMaxExperts, 0, st>>>(ids, counts, offsets, perm, tokens * k, experts);
}
}  // namespace kc::cu
#endif
