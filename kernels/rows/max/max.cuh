// Row max, y[r] = max_c x[r,c], bf16 in and out (exact): a NaN anywhere in the row gives NaN, as
// float64's max over the formula does (never fmaxf). 16-byte loads, eight in flight a thread, row
// groups as sum.cuh. A thread keeps its max as a bf16 pair (max2_nan_bf16: a vector's 8 values in 4
// pair maxes, where a float max takes 8 unpacks and 8 compare-selects) and takes the larger half at
// the end: a max is exact in any order and form, and NaN in if NaN anywhere.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// The launcher max.cu exports to the contract (cuda.cpp): bf16 x [rows, cols], bf16 y [rows], on the
// harness's stream.
void row_max_bf16(const void* x, void* y, int rows, int cols, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
__global__ void __launch_bounds__(256)
kc_row_max(const kc_u4* __restrict__ x, uint16_t* __restrict__ y, int rows, int cols, int tpr) {
  using namespace kc::cu;
  __shared__ float red[8];
  const auto [t, row, live, nvec] = row_thread(rows, cols, tpr);
  const kc_u4* xr = x + row * nvec;
  uint32_t m2 = 0xff80ff80u;  // -inf, -inf
  if (live)
    strided(t, tpr, nvec, [&](int c) { return ld16(xr + c); }, [&](const kc_u4& v, int) {
      m2 = max2_nan_bf16(max2_nan_bf16(m2, v.x), max2_nan_bf16(v.y, max2_nan_bf16(v.z, v.w)));
    });
  float m = nan_max(bf16_lo(m2), bf16_hi(m2));
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
#endif
