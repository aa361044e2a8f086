// Row dot, y[r] = sum_c x[r,c] * w[c], bf16 in, fp32 sums and out: each product of two bf16 is
// exact in fp32, so an fma adds it with one rounding. 16-byte loads, eight in flight a thread; w is
// read by every row (cache: a warp a row at prompt sizes puts eight rows a block on one w read).
#pragma once
#include "../../common/kc_rows.cuh"

__global__ void __launch_bounds__(256)
kc_row_dot(const kc_u4* __restrict__ x, const kc_u4* __restrict__ w, float* __restrict__ y, int rows, int cols,
           int tpr) {
  using namespace kc::cu;
  __shared__ float red[8];
  const int t = threadIdx.x % tpr;
  const long row = long(blockIdx.x) * (kBlock / tpr) + threadIdx.x / tpr;
  const bool live = row < rows;
  const int nvec = cols / 8;
  const kc_u4* xr = x + row * nvec;
  float s = 0.f;
  struct XW { kc_u4 x, w; };
  if (live)
    strided(t, tpr, nvec, [&](int c) { return XW{ld16(xr + c), ld16(w + c)}; }, [&](const XW& v, int) {
      float f[8], g[8];
      unpack8(v.x, f);
      unpack8(v.w, g);
#pragma unroll
      for (int j = 0; j < 8; ++j) s = fmaf(f[j], g[j], s);
    });
  s = group_all<false>(s, red, tpr, Add());
  if (live && t == 0) y[row] = s;
}

namespace kc::cu {
inline void launch_row_dot(const void* x, const void* w, float* y, int rows, int cols, cudaStream_t st, int tpr = 0) {
  const RowShape s = fast_shape(cols, loop_tpr(rows, cols, tpr));
  kc_row_dot<<<(rows + s.rpb - 1) / s.rpb, kBlock, 0, st>>>(static_cast<const kc_u4*>(x), static_cast<const kc_u4*>(w),
                                                           y, rows, cols, s.tpr);
}
}  // namespace kc::cu
