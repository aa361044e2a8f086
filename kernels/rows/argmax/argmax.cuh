// Row argmax, bf16 in, i32 out. Stated rule: the lowest column holding the row's max; a row holding
// a NaN gives -1. Each element becomes a 32-bit key (its rank as a bf16 above its inverted column,
// NaN ranking highest), so the row's largest key is the answer and ties go to the lower id by
// construction; a max over unsigned keys is order-free, so every run gives the same bytes.
#pragma once
#include "../../common/kc_rows.cuh"

__global__ void __launch_bounds__(256)
kc_row_argmax(const kc_u4* __restrict__ x, int32_t* __restrict__ id, int rows, int cols, int tpr) {
  using namespace kc::cu;
  __shared__ uint32_t red[8];
  const int t = threadIdx.x % tpr;
  const long row = long(blockIdx.x) * (kBlock / tpr) + threadIdx.x / tpr;
  const bool live = row < rows;
  const int nvec = cols / 8;
  const kc_u4* xr = x + row * nvec;
  uint32_t best = 0;  // below every real key
  if (live) {
#pragma unroll 4
    for (int c = t; c < nvec; c += tpr) {
      const kc_u4 v = ld16(xr + c);
      const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const uint32_t a = rank_key(w[j] & 0xffffu, c * 8 + 2 * j), b = rank_key(w[j] >> 16, c * 8 + 2 * j + 1);
        best = a > best ? a : best;
        best = b > best ? b : best;
      }
    }
  }
  best = group_max_u32(best, red, tpr);
  if (live && t == 0) id[row] = (best >> 16) == 0xffffu ? -1 : key_col(best);
}

namespace kc::cu {
inline void launch_row_argmax(const void* x, int32_t* id, int rows, int cols, cudaStream_t st) {
  const RowShape s = row_shape(cols < kMaxCols ? cols : kMaxCols);
  kc_row_argmax<<<(rows + s.rpb - 1) / s.rpb, kBlock, 0, st>>>(static_cast<const kc_u4*>(x), id, rows, cols, s.tpr);
}
}  // namespace kc::cu
