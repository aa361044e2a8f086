// Softmax rows, y = exp(x - max) / sum exp(x - max), bf16 in and out, fp32 sums.
// kc_softmax_vec: the row kept in registers (reg_shape), one pass over memory: group max, group
//   sum of exp(x - max), each exp computed once and kept, then y from the registers.
//   cols % 8 == 0, cols <= 16,384 (the long entry uses it to 16,384 too).
// kc_softmax_online: any cols % 8 == 0 (served past 16,384), no row in registers: one read pass
//   keeps a running (max, sum) a thread (the sum rescaled when the max grows), the pairs merge over the group, a
//   second pass (from cache) writes y.
// Both keep NaN (a NaN max gives a NaN row) and the infinities' classes as float64 does.
// Other forms measured on the H200 and not adopted (an ex2.approx exp, exps recomputed, the next
// row's loads in flight): kernels/rows/softmax/h200_ex2_form.txt; their source is in commit 14334cc.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// One row group's softmax from its vectors in registers (v: zeros past the row): group max, exp
// once a value (kept), group sum, y. Every thread of the block calls it; red/red2 are one array a
// reduction, so no barrier frees one for the next (a caller that calls again syncs first).
template <int VPT>
__device__ __forceinline__ void softmax_group(const kc_u4 (&v)[VPT], kc_u4* __restrict__ y, long row, bool live, int t,
                                              int tpr, int nvec, float* red, float* red2) {
  float m = -kInf;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    if (!(live && t + i * tpr < nvec)) continue;
    float f[8];
    unpack8(v[i], f);
#pragma unroll
    for (int j = 0; j < 8; ++j) m = max_nan(m, f[j]);
  }
  m = group_all<false>(m, red, tpr, MaxNan());
  // exp(x - max) once, kept in registers for the write.
  float e[VPT][8];
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const bool ok = live && t + i * tpr < nvec;
    float f[8];
    unpack8(v[i], f);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float ej = ok ? exp_diff(f[j], m) : 0.f;
      e[i][j] = ej;
      s += ej;
    }
  }
  s = group_all<false>(s, red2, tpr, Add());
  const float inv = 1.0f / s;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int c = t + i * tpr;
    if (!(live && c < nvec)) continue;
    float o[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) o[j] = e[i][j] * inv;
    Store8<Bf16Out>::at(reinterpret_cast<Bf16Out*>(y + row * nvec + c), o);
  }
}
template <int VPT>
__device__ __forceinline__ void softmax_load(kc_u4 (&v)[VPT], const kc_u4* __restrict__ x, long row, bool live, int t,
                                             int tpr, int nvec) {
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int c = t + i * tpr;
    v[i] = (live && c < nvec) ? ld16(x + row * nvec + c) : zero4();
  }
}
}  // namespace kc::cu

template <int VPT>
__global__ void __launch_bounds__(256)
kc_softmax_vec(const kc_u4* __restrict__ x, kc_u4* __restrict__ y, int rows, int cols, int tpr) {
  using namespace kc::cu;
  __shared__ float red[8], red2[8];
  const int t = threadIdx.x % tpr;
  const long row = long(blockIdx.x) * (kBlock / tpr) + threadIdx.x / tpr;
  const bool live = row < rows;
  const int nvec = cols / 8;
  kc_u4 v[VPT];
  softmax_load(v, x, row, live, t, tpr, nvec);
  softmax_group(v, y, row, live, t, tpr, nvec, red, red2);
}

namespace kc::cu {
// Merge a running (max, sum) with another: symmetric, so a butterfly leaves every lane the same.
// A side whose max is -inf holds nothing (sum 0); a side already at the new max is not rescaled.
__device__ __forceinline__ void ms_merge(float& m, float& s, float om, float os) {
  const float M = nan_max(m, om);
  if (M == -kInf) return;  // both empty (or all -inf so far): nothing to add yet
  const float a = (m == M) ? s : s * exp_diff(m, M);
  const float b = (om == M) ? os : os * exp_diff(om, M);
  s = a + b;
  m = M;
}
}  // namespace kc::cu

__global__ void __launch_bounds__(256)
kc_softmax_online(const kc_u4* __restrict__ x, kc_u4* __restrict__ y, int rows, int cols, int tpr) {
  using namespace kc::cu;
  __shared__ float red_m[8], red_s[8];
  const int t = threadIdx.x % tpr;
  const long row = long(blockIdx.x) * (kBlock / tpr) + threadIdx.x / tpr;
  const bool live = row < rows;
  const int nvec = cols / 8;
  const kc_u4* xr = x + row * nvec;
  float m = -kInf, s = 0.f;
  if (live)
    strided(t, tpr, nvec, [&](int c) { return ld16(xr + c); }, [&](const kc_u4& v, int) {
      float f[8];
      unpack8(v, f);
      float lm = f[0];
#pragma unroll
      for (int j = 1; j < 8; ++j) lm = nan_max(lm, f[j]);
      const float M = nan_max(m, lm);
      if (M == -kInf) return;  // every term so far is -inf: each adds 0
      if (!(m == M)) s = s * exp_diff(m, M);
#pragma unroll
      for (int j = 0; j < 8; ++j) s += exp_diff(f[j], M);
      m = M;
    });
#pragma unroll
  for (int k = 16; k >= 1; k >>= 1) ms_merge(m, s, __shfl_xor_sync(KC_FULL_MASK, m, k), __shfl_xor_sync(KC_FULL_MASK, s, k));
  if (tpr > 32) {
    const int warp = threadIdx.x / 32, wpg = tpr / 32, first = warp / wpg * wpg;
    if ((threadIdx.x & 31) == 0) red_m[warp] = m, red_s[warp] = s;
    __syncthreads();
    m = red_m[first];
    s = red_s[first];
    for (int i = 1; i < wpg; ++i) ms_merge(m, s, red_m[first + i], red_s[first + i]);
  }
  if (!live) return;
  const float inv = 1.0f / s;
  kc_u4* yr = y + row * nvec;
  strided(t, tpr, nvec, [&](int c) { return ld16(xr + c); }, [&](const kc_u4& v, int c) {
    float f[8], o[8];
    unpack8(v, f);
#pragma unroll
    for (int j = 0; j < 8; ++j) o[j] = exp_diff(f[j], m) * inv;
    Store8<Bf16Out>::at(reinterpret_cast<Bf16Out*>(yr + c), o);
  });
}

namespace kc::cu {
inline void launch_softmax_vec(const void* x, void* y, int rows, int cols, cudaStream_t st, int tpr = 0) {
  RowShape s = reg_shape(cols, tpr);
  if (s.vpt > kMaxVpt) s = reg_shape(cols);  // a forced shape that does not fit in registers
  const dim3 grid((rows + s.rpb - 1) / s.rpb);
  auto xv = static_cast<const kc_u4*>(x);
  auto yv = static_cast<kc_u4*>(y);
  switch (s.vpt) {
    case 1: kc_softmax_vec<1><<<grid, kBlock, 0, st>>>(xv, yv, rows, cols, s.tpr); break;
    case 2: kc_softmax_vec<2><<<grid, kBlock, 0, st>>>(xv, yv, rows, cols, s.tpr); break;
    case 4: kc_softmax_vec<4><<<grid, kBlock, 0, st>>>(xv, yv, rows, cols, s.tpr); break;
    default: kc_softmax_vec<8><<<grid, kBlock, 0, st>>>(xv, yv, rows, cols, s.tpr); break;
  }
}
inline void launch_softmax_online(const void* x, void* y, int rows, int cols, cudaStream_t st) {
  const RowShape s = row_shape(cols < kMaxCols ? cols : kMaxCols);
  kc_softmax_online<<<(rows + s.rpb - 1) / s.rpb, kBlock, 0, st>>>(static_cast<const kc_u4*>(x), static_cast<kc_u4*>(y),
                                                                  rows, cols, s.tpr);
}
// Rows past 4,096 keys: up to 16,384 the row fits in registers (the vector form: one pass over
// memory, each exp computed once); past that, the online form.
inline void launch_softmax_long(const void* x, void* y, int rows, int cols, cudaStream_t st, int tpr = 0) {
  if (cols <= kMaxCols)
    launch_softmax_vec(x, y, rows, cols, st, tpr);
  else
    launch_softmax_online(x, y, rows, cols, st);
}
// The online sum's chain: a thread's terms, one rescale (exp_diff then a multiply: 6 roundings of
// 2^-24: expf's declared 2 ulp, counted as 4, with the fma and the multiply) for each of its vectors, and each merge
// level (5 warp, up to 7 group) the same plus an add.
constexpr double online_depth(long cols) {
  const RowShape s = row_shape(cols < kMaxCols ? cols : kMaxCols);
  const long nvec = (cols + 7) / 8, per = (nvec + s.tpr - 1) / s.tpr;
  return double(per) * (8 + 6) + double(5 + s.tpr / 32 - 1) * 7;
}
constexpr double long_depth(long cols) { return cols <= kMaxCols ? reg_depth(cols) : online_depth(cols); }
}  // namespace kc::cu
