// Row dot, y[r] = sum_c x[r,c] * w[c], bf16 in, fp32 sums and out: each product of two bf16 is
// exact in fp32, so an fma adds it with one rounding. 16-byte loads, eight in flight a thread; w is
// read by every row, x once: x streams past the L1 (evict-first loads) so w stays there, and at
// prompt sizes (a warp a row) a thread takes R = 2 rows, so each w vector it loads serves both
// (at 8192 x 4096 on the H200: 21.5 us before, 20.1 with two rows, 19.5 with both; bench_rows.cu).
// Each row's chain of sums is the same for R = 1 and 2.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// Rows a thread takes: two at prompt sizes, where a warp takes a row (rows_a_thread = 1 or 2 forces
// one or two, to compare in the benchmark). The contract's pick reads the same rule.
inline int dot_rows_a_thread(int rows, int cols, int tpr = 0, int rows_a_thread = 0) {
  if (rows_a_thread) return rows_a_thread;
  return fast_shape(cols, loop_tpr(rows, cols, tpr)).tpr == 32 && rows >= kWarpRowsFrom ? 2 : 1;
}
// The launcher dot.cu exports to the contract (cuda.cpp): bf16 x [rows, cols] and w [cols], fp32 y
// [rows], on the harness's stream.
void row_dot_f32(const void* x, const void* w, float* y, int rows, int cols, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
template <int R>
__global__ void __launch_bounds__(256)
kc_row_dot(const kc_u4* __restrict__ x, const kc_u4* __restrict__ w, float* __restrict__ y, int rows, int cols,
           int tpr) {
  using namespace kc::cu;
  static_assert(R == 1 || R == 2, "one or two rows a thread");
  __shared__ float red[8];
  const int t = threadIdx.x % tpr;
  const long row0 = (long(blockIdx.x) * (kBlock / tpr) + threadIdx.x / tpr) * R;
  const int nvec = cols / 8;
  bool live[R];
  const kc_u4* xr[R];
  float s[R];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    live[j] = row0 + j < rows;
    xr[j] = x + (live[j] ? row0 + j : 0) * nvec;
    s[j] = 0.f;
  }
  struct XW { kc_u4 x[R], w; };
  if (live[0])
    strided(t, tpr, nvec,
            [&](int c) {
              XW v;
              v.w = ld16(w + c);
#pragma unroll
              for (int j = 0; j < R; ++j) v.x[j] = __ldcs(xr[j] + c);  // a dead row reads row 0 again
              return v;
            },
            [&](const XW& v, int) {
              float g[8];
              unpack8(v.w, g);
#pragma unroll
              for (int j = 0; j < R; ++j) {
                float f[8];
                unpack8(v.x[j], f);
#pragma unroll
                for (int i = 0; i < 8; ++i) s[j] = fmaf(f[i], g[i], s[j]);
              }
            });
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const float r = group_all<true>(s[j], red, tpr, Add());
    if (live[j] && t == 0) y[row0 + j] = r;
  }
}

namespace kc::cu {
inline void launch_row_dot(const void* x, const void* w, float* y, int rows, int cols, cudaStream_t st, int tpr = 0,
                           int rows_a_thread = 0) {
  const RowShape s = fast_shape(cols, loop_tpr(rows, cols, tpr));
  auto xx = static_cast<const kc_u4*>(x);
  auto ww = static_cast<const kc_u4*>(w);
  if (dot_rows_a_thread(rows, cols, tpr, rows_a_thread) == 2) {
    const int rpb = 2 * s.rpb;
    kc_row_dot<2><<<(rows + rpb - 1) / rpb, kBlock, 0, st>>>(xx, ww, y, rows, cols, s.tpr);
  } else {
    kc_row_dot<1><<<(rows + s.rpb - 1) / s.rpb, kBlock, 0, st>>>(xx, ww, y, rows, cols, s.tpr);
  }
}
}  // namespace kc::cu
#endif
