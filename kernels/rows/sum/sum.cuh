// Row sum, y[r] = sum_c x[r,c], bf16 in, fp32 sum and out. 16-byte loads, eight in flight a thread;
// a row group of 32..256 threads a row (loop_tpr: a warp a row at prompt sizes, by width below),
// each thread adds its vectors in a chain, then the group's reduction.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// The launcher sum.cu exports to the contract (cuda.cpp): bf16 x [rows, cols], fp32 y [rows], on the
// harness's stream.
void row_sum_f32(const void* x, float* y, int rows, int cols, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
__global__ void __launch_bounds__(256)
kc_row_sum(const kc_u4* __restrict__ x, float* __restrict__ y, int rows, int cols, int tpr) {
  using namespace kc::cu;
  __shared__ float red[8];
  const auto [t, row, live, nvec] = row_thread(rows, cols, tpr);
  const kc_u4* xr = x + row * nvec;
  float s = 0.f;
  if (live)
    strided(t, tpr, nvec, [&](int c) { return ld16(xr + c); }, [&](const kc_u4& v, int) {
      float f[8];
      unpack8(v, f);
#pragma unroll
      for (int j = 0; j < 8; ++j) s += f[j];
    });
  s = group_all<false>(s, red, tpr, Add());
  if (live && t == 0) y[row] = s;
}

namespace kc::cu {
inline void launch_row_sum(const void* x, float* y, int rows, int cols, cudaStream_t st, int tpr = 0) {
  const RowShape s = fast_shape(cols, loop_tpr(rows, cols, tpr));
  kc_row_sum<<<(rows + s.rpb - 1) / s.rpb, kBlock, 0, st>>>(static_cast<const kc_u4*>(x), y, rows, cols, s.tpr);
}
}  // namespace kc::cu
#endif
