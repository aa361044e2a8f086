// Row argmax, bf16 in, i32 out. Stated rule: the lowest column holding the row's max; a row holding
// a NaN gives -1. Each element becomes a 32-bit key (its rank as a bf16 above its inverted column,
// NaN ranking highest), so the row's largest key is the answer and ties go to the lower id by
// construction; a max over unsigned keys is order-free, so every run gives the same bytes. A thread
// first finds its own best value and lowest column with float compares, then makes one key.
// Threads a row: a warp a row at prompt sizes, more at decode (loop_tpr in kc_rows.cuh).
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// The launcher argmax.cu exports to the contract (cuda.cpp): bf16 x [rows, cols], i32 id [rows], on
// the harness's stream.
void row_argmax_bf16(const void* x, int32_t* id, int rows, int cols, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
__global__ void __launch_bounds__(256, 3)  // 3 blocks an SM: 72 registers, no spill (ptxas spills at its own choice of 64)
kc_row_argmax(const kc_u4* __restrict__ x, int32_t* __restrict__ id, int rows, int cols, int tpr) {
  using namespace kc::cu;
  __shared__ uint32_t red[8];
  const auto [t, row, live, nvec] = row_thread(rows, cols, tpr);
  const kc_u4* xr = x + row * nvec;
  // A thread's best vector: its max (NaN if it holds one), the vector's index and its bits. Vectors
  // come in column order and only a strictly larger max, or a first NaN, replaces the best, so the
  // best vector holds the thread's lowest column of its max. The update is branch-free (selects),
  // so the vectors' max trees overlap; the column inside the best vector is found once, at the end.
  float bv = 0.f;
  int bc = -1;
  kc_u4 bvec = zero4();
  if (live)
    strided(t, tpr, nvec, [&](int c) { return ld16(xr + c); }, [&](const kc_u4& v, int c) {
      // The vector's max on bf16 pairs (max2_nan_bf16: 3 pair maxes, then the larger half; NaN if any).
      const uint32_t m2 = max2_nan_bf16(max2_nan_bf16(v.x, v.y), max2_nan_bf16(v.z, v.w));
      const float vm = max_nan(bf16_lo(m2), bf16_hi(m2));
      const bool take = bc < 0 || vm > bv || (vm != vm && bv == bv);
      bv = take ? vm : bv;
      bc = take ? c : bc;
      bvec.x = take ? v.x : bvec.x;
      bvec.y = take ? v.y : bvec.y;
      bvec.z = take ? v.z : bvec.z;
      bvec.w = take ? v.w : bvec.w;
    });
  if (bc >= 0) {
    float f[8];
    unpack8(bvec, f);
    int at = 7;
#pragma unroll
    for (int j = 7; j >= 0; --j)
      if (f[j] == bv || (bv != bv && f[j] != f[j])) at = j;
    bc = bc * 8 + at;
  }
  uint32_t best = bc < 0 ? 0u : rank_key(f32_to_bf16(bv), bc);  // 0: below every real key
  best = group_max_u32(best, red, tpr);
  if (live && t == 0) id[row] = (best >> 16) == 0xffffu ? -1 : key_col(best);
}

namespace kc::cu {
inline void launch_row_argmax(const void* x, int32_t* id, int rows, int cols, cudaStream_t st, int tpr = 0) {
  const RowShape s = fast_shape(cols, loop_tpr(rows, cols, tpr));
  kc_row_argmax<<<(rows + s.rpb - 1) / s.rpb, kBlock, 0, st>>>(static_cast<const kc_u4*>(x), id, rows, cols, s.tpr);
}
}  // namespace kc::cu
#endif
