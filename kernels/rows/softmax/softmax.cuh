// Softmax rows, y = exp(x - max) / sum exp(x - max), bf16 in and out, fp32 sums.
// kc_softmax_vec: the row kept in registers (reg_shape), one pass over memory: group max, group
//   sum of exp(x - max) (exp2_diff), then y from the registers. cols % 8 == 0, cols <= 16,384 (the
//   long entry uses it to 16,384 too). Up to 4 vectors a thread each exp is computed once and kept;
//   at 8 (past 8,192 wide) it is computed again for the write, the same value from the same x and
//   max, so a thread holds 32 values, not 64: 80 registers and three blocks an SM instead of two.
//   H200 (bench/cuda/h200_rows.txt): 95-96%, 93-94% and 97% of copy bandwidth at 4,096, 8,192 and
//   16,384 wide. History: with expf and the subtraction's correction (about 37 instructions an
//   element) ncu showed 0.80 warp instructions a scheduler a cycle and it ran at 63-73%; with exp2f,
//   90%, 82% and 84%; with the max on bf16 pairs and exp2_diff's scaled ex2, 95%, 94% and 84-86%,
//   where 16,384 wide walked row groups with the next group's loads in flight (cp.async); loading
//   each block's row straight into registers then measured 86%, and not keeping the exps 97%.
// kc_softmax_online: any cols % 8 == 0 (served past 16,384), no row in registers: one read pass
//   keeps a running (max, sum) a thread (the sum rescaled when the max grows), the pairs merge over the group, a
//   second pass (from cache) writes y.
// Both keep NaN (a NaN max gives a NaN row) and the infinities' classes as float64 does.
// Other forms measured on the H200 and not adopted (an ex2.approx exp that kept every correction, so
// issued as much as expf; exps recomputed with that costlier exp; the next rows' loads held in
// registers, which cost occupancy): kernels/rows/softmax/h200_ex2_form.txt; their source is in
// commit 14334cc. The walking form of 16,384 wide: commit e62d077.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// The online sum's chain: a thread's terms, one rescale (exp_diff then a multiply: 6 roundings of
// 2^-24: expf's declared 2 ulp, counted as 4, with the fma and the multiply) for each of its vectors, and each merge
// level (5 warp, up to 7 group) the same plus an add.
constexpr double online_depth(long cols) {
  const RowShape s = row_shape(cols < kMaxCols ? cols : kMaxCols);
  const long nvec = (cols + 7) / 8, per = (nvec + s.tpr - 1) / s.tpr;
  return double(per) * (8 + 6) + double(5 + s.tpr / 32 - 1) * 7;
}
constexpr double long_depth(long cols) { return cols <= kMaxCols ? reg_depth(cols) : online_depth(cols); }

// The launchers softmax.cu exports to the contract (cuda.cpp): bf16 x and y [rows, cols], on the
// harness's stream. softmax_bf16 runs the vector form (launch_softmax_vec), softmax_bf16_long the
// vector form to 16,384 wide and the online form past it (launch_softmax_long).
void softmax_bf16(const void* x, void* y, int rows, int cols, void* stream);
void softmax_bf16_long(const void* x, void* y, int rows, int cols, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
namespace kc::cu {
// e^(x - m) 2^64, the row form's exp: ex2.approx.ftz on fma(x - m, log2(e), 64). The scale cancels
// in y = e / sum e; it keeps every result that matters normal, so the exp needs no subnormal
// handling: exp2f's range check and two rescaling multiplies (3 of about 12 instructions an
// element) are gone, and the row form is bound by issue (ncu on the H200: 0.82 warp instructions a
// scheduler a cycle). A result below 2^-126 (flushed to 0) is an e^(x - m) below 2^-190, whose y is
// far under bf16's floor (2^-134). Sum <= 16,384 2^64: no overflow.
// Error, as the contract declares it: ex2's 2 ulp (exp2f's documented error, which is ex2.approx on
// a rescaled argument), plus the roundings of x - m (|x - m| 2^-24 of the result), of log2(e)
// (0.224 |x - m| 2^-24) and of the fma (at most 2^-19 in the exponent while |x - m| <= 88, 22.2 x
// 2^-24 of the result): where y is a bf16 normal, e^(x - m) >= y >= 2^-126, so |x - m| <= 88 and the
// argument's part is at most 130.4 x 2^-24 (65.2 ulps of 2^-23). Classes as float64's: e^(-inf) = 0,
// inf - inf = NaN. Measured over every finite bf16 pair x <= m: bench_rows --exp-check.
// (The earlier form, exp2f((x - m) log2(e)): 2.23 |x - m| 2^-24, up to 98.1 ulps; 84% of copy at
// 8,192 wide.)
constexpr float kExpScale = 0x1p64f;
__device__ __forceinline__ float exp2_diff(float x, float m) {
  const float a = fmaf(x - m, 1.44269504088896341f, 64.f);
#if defined(__CUDA_ARCH__)
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  return r;
#else
  return exp2f(a);  // HIP: its exp2f, on the same argument
#endif
}
struct Exp2Diff {
  __device__ float operator()(float x, float m) const { return exp2_diff(x, m); }
};

// Vectors a thread from which the exps are computed again for y instead of kept (softmax_group), so
// that a thread holds 32 values, not 64, and an SM three blocks (kc_softmax_vec's launch bounds).
constexpr int kSoftmaxRecomputeVpt = 8;

// One row group's softmax from its vectors in registers (v: zeros past the row): group max, exp
// a value (kept below 8 vectors a thread, computed again for y at 8; Exp is exp2_diff where served:
// any positive scale of e^(x - m) serves, as it cancels in y), group sum, y. Every thread of the
// block calls it; red/red2 are one array a reduction, so no barrier frees one for the next: a
// caller that calls again may, as every read of red comes before the barrier of red2, and every
// read of red2 before the next call's first barrier.
template <int VPT, class Exp = Exp2Diff>
__device__ __forceinline__ void softmax_group(const kc_u4 (&v)[VPT], kc_u4* __restrict__ y, long row, bool live, int t,
                                              int tpr, int nvec, float* red, float* red2) {
  // The max on the packed pairs (a max is exact in any format): a quarter of the issue of unpacking
  // every value first, where the form is bound by issue.
  uint32_t mp = 0xff80ff80u;  // -inf, -inf
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    if (!(live && t + i * tpr < nvec)) continue;
    mp = max2_nan_bf16(max2_nan_bf16(mp, v[i].x), max2_nan_bf16(v[i].y, max2_nan_bf16(v[i].z, v[i].w)));
  }
  const float m = group_all<false>(max_nan(bf16_lo(mp), bf16_hi(mp)), red, tpr, MaxNan());
  // exp(x - max) once, kept in registers for the write (KEEP); or computed again for the write, the
  // same value (the same instructions on the same x and m), where 64 kept values a thread would hold
  // the SM to two blocks.
  constexpr bool KEEP = VPT < kSoftmaxRecomputeVpt;
  float e[KEEP ? VPT : 1][8];
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const bool ok = live && t + i * tpr < nvec;
    float f[8];
    unpack8(v[i], f);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float ej = ok ? Exp{}(f[j], m) : 0.f;
      if constexpr (KEEP) e[i][j] = ej;
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
    if constexpr (KEEP) {
#pragma unroll
      for (int j = 0; j < 8; ++j) o[j] = e[i][j] * inv;
    } else {
      float f[8];
      unpack8(v[i], f);
#pragma unroll
      for (int j = 0; j < 8; ++j) o[j] = Exp{}(f[j], m) * inv;
    }
    Store8<Bf16Out>::at(reinterpret_cast<Bf16Out*>(y + row * nvec + c), o);
  }
}
}  // namespace kc::cu

// A block takes one row group (rpb rows of tpr threads), its vectors loaded straight into registers.
// At 8 vectors a thread (8,200 to 16,384 wide) the exps are not kept (softmax_group): 80 registers,
// three blocks an SM.
template <int VPT>
__global__ void __launch_bounds__(256, VPT < kc::cu::kSoftmaxRecomputeVpt ? 1 : 3)
kc_softmax_vec(const kc_u4* __restrict__ x, kc_u4* __restrict__ y, int rows, int cols, int tpr) {
  using namespace kc::cu;
  __shared__ float red[8], red2[8];
  const int t = threadIdx.x % tpr, rpb = kBlock / tpr;
  const int nvec = cols / 8;
  const long row = long(blockIdx.x) * rpb + threadIdx.x / tpr;
  const bool live = row < rows;
  kc_u4 v[VPT];
#pragma unroll
  for (int i = 0; i < VPT; ++i) v[i] = (live && t + i * tpr < nvec) ? ld16(x + row * nvec + t + i * tpr) : zero4();
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
  const auto [t, row, live, nvec] = row_thread(rows, cols, tpr);
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
template <int VPT> inline void launch_softmax_vpt(const kc_u4* x, kc_u4* y, int rows, int cols, RowShape s, cudaStream_t st) {
  kc_softmax_vec<VPT><<<(rows + s.rpb - 1) / s.rpb, kBlock, 0, st>>>(x, y, rows, cols, s.tpr);
}
inline void launch_softmax_vec(const void* x, void* y, int rows, int cols, cudaStream_t st, int tpr = 0) {
  RowShape s = reg_shape(cols, tpr);
  if (s.vpt > kMaxVpt) s = reg_shape(cols);  // a forced shape that does not fit in registers
  auto xv = static_cast<const kc_u4*>(x);
  auto yv = static_cast<kc_u4*>(y);
  switch (s.vpt) {
    case 1: launch_softmax_vpt<1>(xv, yv, rows, cols, s, st); break;
    case 2: launch_softmax_vpt<2>(xv, yv, rows, cols, s, st); break;
    case 4: launch_softmax_vpt<4>(xv, yv, rows, cols, s, st); break;
    default: launch_softmax_vpt<8>(xv, yv, rows, cols, s, st); break;
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
}  // namespace kc::cu
#endif
