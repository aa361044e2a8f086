// Row argmax, bf16 in, i32 out. Stated rule: the lowest column holding the row's max; a row holding
// a NaN gives -1. Each element becomes a 32-bit key (its rank as a bf16 above its inverted column,
// NaN ranking highest), so the row's largest key is the answer and ties go to the lower id by
// construction; a max over unsigned keys is order-free, so every run gives the same bytes. A thread
// first finds its own best value and lowest column with float compares, then makes one key.
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
  // A thread's best value and its lowest column (vectors come in column order; only a strictly
  // larger max, or a first NaN, replaces it), then one key a thread for the group's max.
  float bv = 0.f;
  int bc = -1;
  if (live)
    strided(t, tpr, nvec, [&](int c) { return ld16(xr + c); }, [&](const kc_u4& v, int c) {
      float f[8];
      unpack8(v, f);
      float vm = f[0];
#pragma unroll
      for (int j = 1; j < 8; ++j) vm = nan_max(vm, f[j]);
      if (bc < 0 || vm > bv || (vm != vm && bv == bv)) {
        int at = 7;
#pragma unroll
        for (int j = 7; j >= 0; --j)
          if (f[j] == vm || (vm != vm && f[j] != f[j])) at = j;
        bv = vm;
        bc = c * 8 + at;
      }
    });
  uint32_t best = bc < 0 ? 0u : rank_key(f32_to_bf16(bv), bc);  // 0: below every real key
  best = group_max_u32(best, red, tpr);
  if (live && t == 0) id[row] = (best >> 16) == 0xffffu ? -1 : key_col(best);
}

namespace kc::cu {
inline void launch_row_argmax(const void* x, int32_t* id, int rows, int cols, cudaStream_t st) {
  const RowShape s = row_shape(cols < kMaxCols ? cols : kMaxCols);
  kc_row_argmax<<<(rows + s.rpb - 1) / s.rpb, kBlock, 0, st>>>(static_cast<const kc_u4*>(x), id, rows, cols, s.tpr);
}
}  // namespace kc::cu
