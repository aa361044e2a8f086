// Layer norm rows, y = (x - mean) * rstd * w + b with rstd = 1 / sqrt(mean((x - mean)^2) + eps),
// each row's mean and rstd written as fp32. bf16 or fp32 in, fp32 sums, two passes over registers.
// kc_layer_norm_vec<F32, Out, VPT, ONE_PASS>: the row read once, in 16-byte loads, and kept in
//   registers; a row group of 32..256 threads a row (ln_shape), VPT units a thread, a unit being
//   eight values: one 16-byte vector of bf16, two of fp32 (F32). The mean is the group's sum (each
//   thread's chain in column order, the warp butterfly, the group's warps in order) / cols; then
//   the sum of (x - mean)^2 the same way, from the registers. w and b are loaded after the sums
//   (one row shared by every row: L2 hits): loading them with x measured no faster on the H200 and
//   holds more registers. cols % 8 == 0, cols <= 16,384. Out: float (whole-sector stores:
//   store8_f32_pair), Bf16Out or F16Out. ONE_PASS (the gate 3 control only): var = E[x^2] - mean^2
//   from one pass, clamped at 0 (a NaN kept).
// H200, 8,192 rows (bench/cuda/bench_rows.cu): bf16 at 4,096 / 8,192 / 16,384 wide 39.8 / 71.8 /
//   137.7 us, 88% / 92% / 94% of the copy's bandwidth (rms_norm: 98%); fp32 73.9 / 139.7 / 302.4 us
//   (95% / 95% / 86%); torch eager 1.45-1.75x slower, torch.compile 0.93-1.34x of ours.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// Threads a row: the fewest that hold it in 8 16-byte vectors a thread (bf16: 8 units, fp32: 4)
// from kWarpRowsFrom rows on (fewer warps to meet, twice, and rows enough to fill every SM), in 4
// below (a decode row's latency is what counts); a forced tpr (bench) as fast_shape takes it.
template <bool F32> constexpr RowShape ln_shape(long rows, long cols, int tpr = 0) {
  const int vecs = rows >= kWarpRowsFrom ? kInFlight : kRegInFlight;
  return fast_shape(cols, tpr, F32 ? vecs / 2 : vecs);
}
// Both sums' longest chain: a thread's values in column order, the butterfly, the group's warps.
template <bool F32> constexpr double ln_depth(long rows, long cols) {
  return chain_depth(cols, ln_shape<F32>(rows, cols).tpr);
}
// The launchers layer_norm.cu exports to the contracts (cuda.cpp): x and y [rows, cols], w and b
// [cols], in bf16 (launch_layer_norm<false, Bf16Out>) or fp32 (<true, float>), the rows' fp32 mean
// and rstd, on the harness's stream.
void layer_norm_bf16(const void* x, const void* w, const void* b, void* y, float* mean, float* rstd, int rows, int cols,
                     float eps, void* stream);
void layer_norm_f32(const void* x, const void* w, const void* b, void* y, float* mean, float* rstd, int rows, int cols,
                    float eps, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
namespace kc::cu {
// Eight values of a row: one 16-byte vector of bf16, or two of fp32 (F32).
template <bool F32> struct Unit8 {
  static constexpr int kVecs = F32 ? 2 : 1;
  kc_u4 v[kVecs];
  __device__ __forceinline__ void load(const kc_u4* row, int c, bool ok) {
#pragma unroll
    for (int k = 0; k < kVecs; ++k) v[k] = ok ? ld16(row + c * kVecs + k) : zero4();
  }
  __device__ __forceinline__ void get(float (&f)[8]) const {
    if constexpr (F32) {
      f[0] = __uint_as_float(v[0].x); f[1] = __uint_as_float(v[0].y); f[2] = __uint_as_float(v[0].z);
      f[3] = __uint_as_float(v[0].w); f[4] = __uint_as_float(v[1].x); f[5] = __uint_as_float(v[1].y);
      f[6] = __uint_as_float(v[1].z); f[7] = __uint_as_float(v[1].w);
    } else {
      unpack8(v[0], f);
    }
  }
};
}  // namespace kc::cu

// Blocks an SM: bf16's forms fit 64 registers (4 blocks; with no minimum ptxas spills its 8-unit
// form at 64 anyway), fp32's 8-unit form needs about 113 (2 blocks).
template <bool F32, class Out, int VPT, bool ONE_PASS>
__global__ void __launch_bounds__(256, F32 ? 2 : 4)
kc_layer_norm_vec(const kc_u4* __restrict__ x, const kc_u4* __restrict__ w, const kc_u4* __restrict__ b,
                  Out* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, int rows, int cols,
                  float eps, int tpr) {
  using namespace kc::cu;
  using U = Unit8<F32>;
  __shared__ float red[8], red2[8];
  const auto [t, row, live, nvec] = row_thread(rows, cols, tpr);
  const kc_u4* xr = x + row * nvec * U::kVecs;
  U v[VPT];
#pragma unroll
  for (int i = 0; i < VPT; ++i) v[i].load(xr, t + i * tpr, live && t + i * tpr < nvec);
  // The mean (zeros past the row add nothing); the one-pass control sums the squares beside it.
  float s = 0.f, s2 = 0.f;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    float f[8];
    v[i].get(f);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      s += f[j];
      if constexpr (ONE_PASS) s2 = fmaf(f[j], f[j], s2);
    }
  }
  const float mu = group_all<false>(s, red, tpr, Add()) / float(cols);
  float var;
  if constexpr (ONE_PASS) {
    var = group_all<false>(s2, red2, tpr, Add()) / float(cols) - mu * mu;
    var = var < 0.f ? 0.f : var;
  } else {
    float q = 0.f;
#pragma unroll
    for (int i = 0; i < VPT; ++i) {
      if (t + i * tpr >= nvec) continue;  // a value past the row would add mean^2
      float f[8];
      v[i].get(f);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float d = f[j] - mu;
        q = fmaf(d, d, q);
      }
    }
    var = group_all<false>(q, red2, tpr, Add()) / float(cols);
  }
  const float rs = rsqrtf(var + eps);
  if (!live) return;  // whole warps: a row group is 32 or more threads
  if (t == 0) {
    mean[row] = mu;
    rstd[row] = rs;
  }
  Out* yr = y + row * cols;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int c = t + i * tpr;
    if (!IsF32<Out>::value && c >= nvec) break;
    if (IsF32<Out>::value && i * tpr >= nvec) break;  // uniform over the warp: every lane past the row
    float o[8] = {};
    if (c < nvec) {
      U wl, bl;
      wl.load(w, c, true);
      bl.load(b, c, true);
      float f[8], g[8], h[8];
      v[i].get(f);
      wl.get(g);
      bl.get(h);
#pragma unroll
      for (int j = 0; j < 8; ++j) o[j] = fmaf((f[j] - mu) * rs, g[j], h[j]);  // * w inside + b's rounding
    }
    if constexpr (IsF32<Out>::value) {
      store8_f32_pair(reinterpret_cast<float*>(yr), c, nvec, o);
    } else {
      Store8<Out>::at(yr + c * 8, o);
    }
  }
}

namespace kc::cu {
// The launch, shared by the contracts, the control and the benchmark: ln_shape's row groups, one
// instantiation for each units-a-thread count (1, 2, 4, 8). tpr forces threads a row (bench).
template <bool F32, class Out, bool ONE_PASS = false>
inline void launch_layer_norm(const void* x, const void* w, const void* b, Out* y, float* mean, float* rstd, int rows,
                              int cols, float eps, cudaStream_t st, int tpr = 0) {
  RowShape s = ln_shape<F32>(rows, cols, tpr);
  if (s.vpt > kMaxVpt) s = ln_shape<F32>(rows, cols);  // a forced shape that does not fit in registers
  const dim3 grid((rows + s.rpb - 1) / s.rpb);
  auto xv = static_cast<const kc_u4*>(x);
  auto wv = static_cast<const kc_u4*>(w);
  auto bv = static_cast<const kc_u4*>(b);
  switch (s.vpt) {
    case 1: kc_layer_norm_vec<F32, Out, 1, ONE_PASS><<<grid, kBlock, 0, st>>>(xv, wv, bv, y, mean, rstd, rows, cols, eps, s.tpr); break;
    case 2: kc_layer_norm_vec<F32, Out, 2, ONE_PASS><<<grid, kBlock, 0, st>>>(xv, wv, bv, y, mean, rstd, rows, cols, eps, s.tpr); break;
    case 4: kc_layer_norm_vec<F32, Out, 4, ONE_PASS><<<grid, kBlock, 0, st>>>(xv, wv, bv, y, mean, rstd, rows, cols, eps, s.tpr); break;
    default: kc_layer_norm_vec<F32, Out, 8, ONE_PASS><<<grid, kBlock, 0, st>>>(xv, wv, bv, y, mean, rstd, rows, cols, eps, s.tpr); break;
  }
}
}  // namespace kc::cu
#endif
