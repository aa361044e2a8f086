// Row max, y[r] = max_c x[r,c], bf16 in and out (exact): a NaN anywhere in the row gives NaN, as
// float64's max over the formula does (nan_max, never fmaxf). 16-byte loads, eight in flight a
// thread, row groups as sum.cuh.
#pragma once
#include "../../common/kc_rows.cuh"

__global__ void __launch_bounds__(256)
kc_row_max(const kc_u4* __restrict__ x, uint16_t* __restrict__ y, int rows, int cols, int tpr) {
  using namespace kc::cu;
  __shared__ float red[8];
  const int t = threadIdx.x % tpr;
  const long row = long(blockIdx.x) * (kBlock / tpr) + threadIdx.x / tpr;
  const bool live = row < rows;
  const int nvec = cols / 8;
  const kc_u4* xr = x + row * nvec;
  float m = -kInf;
  if (live)
    strided(t, tpr, nvec, [&](int c) { return ld16(xr + c); }, [&](const kc_u4& v, int) {
      float f[8];
      unpack8(v, f);
#pragma unroll
      for (int j = 0; j < 8; ++j) m = nan_max(m, f[j]);
    });
  m = group_all<false>(m, red, tpr, Max());
  if (live && t == 0) y[row] = uint16_t(f32_to_bf16(m));
}

namespace kc::cu {
inline void launch_row_max(const void* x, void* y, int rows, int cols, cudaStream_t st, int tpr = 0) {
  const RowShape s = fast_shape(cols, loop_tpr(rows, cols, tpr));
  kc_row_max<<<(rows + s.rpb - 1) / s.rpb, kBlock, 0, st>>>(static_cast<const kc_u4*>(x), static_cast<uint16_t*>(y), rows,
                                                           cols, s.tpr);
}
}  // namespace kc::cu
