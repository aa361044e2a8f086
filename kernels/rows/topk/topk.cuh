// bf16 top-k rows, k <= 64: ids (i32) and values (bf16) of the k largest, descending.
// Stated rule: a NaN ranks above +inf (NaNs tie with each other), -0 ties +0, ties go to the lower
// id, and the order is deterministic.
// Each element becomes a unique 32-bit key (its rank as a bf16 above its inverted column: larger
// key = larger value, then lower id). The row's keys stay in registers (16-byte loads, one pass);
// a radix select over four 8-bit digits (a 256-bin shared histogram each; integer counts, so
// order-free) finds the k-th largest key; the k keys at or above it are gathered and each finds
// its place by counting the keys above it. Values are copied from x by id, so a NaN keeps its bits.
// One block a row; cols % 8 == 0, k <= cols <= 16,384.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
constexpr int kMaxK = 64;
// The launcher topk.cu exports to the contract (cuda.cpp): bf16 x [rows, cols], the k largest's i32
// ids and bf16 values [rows, k], on the harness's stream.
void topk_bf16(const void* x, int32_t* ids, void* vals, int rows, int cols, int k, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
template <int VPT>
__global__ void __launch_bounds__(256)
kc_topk_bf16(const kc_u4* __restrict__ x, int32_t* __restrict__ ids, uint16_t* __restrict__ vals, int cols, int k) {
  using namespace kc::cu;
  __shared__ uint32_t hist[256];
  __shared__ uint32_t sel[kMaxK];
  __shared__ uint32_t prefix_s, want_s, count_s;
  const long row = blockIdx.x;
  const int tid = threadIdx.x, nt = blockDim.x, nvec = cols / 8;
  const kc_u4* xr = x + row * nvec;

  uint32_t key[VPT * 8];
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int c = tid + i * nt;
    if (c < nvec) {
      const kc_u4 v = ld16(xr + c);
      const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        key[i * 8 + 2 * j] = rank_key(w[j] & 0xffffu, c * 8 + 2 * j);
        key[i * 8 + 2 * j + 1] = rank_key(w[j] >> 16, c * 8 + 2 * j + 1);
      }
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j) key[i * 8 + j] = 0;  // below every real key, never selected (k <= cols)
    }
  }

  uint32_t prefix = 0, mask = 0, want = uint32_t(k);
#pragma unroll 1
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (int b = tid; b < 256; b += nt) hist[b] = 0;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < VPT * 8; ++i)
      if ((key[i] & mask) == prefix && key[i] != 0) atomicAdd(&hist[(key[i] >> shift) & 255u], 1u);
    __syncthreads();
    if (tid < 32) {
      // Lane l holds bins 255-8l .. 248-8l (highest first); find the bin where the count of keys
      // above it reaches `want`.
      uint32_t cnt[8], tot = 0;
#pragma unroll
      for (int j = 0; j < 8; ++j) tot += (cnt[j] = hist[255 - 8 * tid - j]);
      uint32_t incl = tot;
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const uint32_t o = uint32_t(__shfl_up_sync(KC_FULL_MASK, int(incl), d));
        if (tid >= d) incl += o;
      }
      const uint32_t excl = incl - tot;
      if (excl < want && want <= incl) {
        // Unrolled without a break, so cnt[] stays in registers.
        uint32_t cum = excl, digit = 0, left = 0;
        bool found = false;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          if (!found && cum + cnt[j] >= want) {
            found = true;
            digit = uint32_t(255 - 8 * tid - j);
            left = want - cum;
          }
          cum += cnt[j];
        }
        prefix_s = prefix | (digit << shift);
        want_s = left;
      }
      if (tid == 0) count_s = 0;
    }
    __syncthreads();
    prefix = prefix_s;
    want = want_s;
    mask |= 255u << shift;
  }
  // prefix is now the k-th largest key (keys are unique): exactly k keys are >= it.
#pragma unroll
  for (int i = 0; i < VPT * 8; ++i)
    if (key[i] >= prefix && key[i] != 0) sel[atomicAdd(&count_s, 1u)] = key[i];
  __syncthreads();
  const uint16_t* xs = reinterpret_cast<const uint16_t*>(xr);
  for (int i = tid; i < k; i += nt) {
    const uint32_t me = sel[i];
    int place = 0;
    for (int j = 0; j < k; ++j) place += sel[j] > me;
    const int col = key_col(me);
    ids[row * k + place] = col;
    vals[row * k + place] = xs[col];
  }
}

namespace kc::cu {
inline void launch_topk_bf16(const void* x, int32_t* ids, void* vals, int rows, int cols, int k, cudaStream_t st) {
  const RowShape s = row_shape(cols);
  auto xv = static_cast<const kc_u4*>(x);
  auto vv = static_cast<uint16_t*>(vals);
  switch (s.vpt) {
    case 1: kc_topk_bf16<1><<<rows, s.tpr, 0, st>>>(xv, ids, vv, cols, k); break;
    case 2: kc_topk_bf16<2><<<rows, s.tpr, 0, st>>>(xv, ids, vv, cols, k); break;
    case 4: kc_topk_bf16<4><<<rows, s.tpr, 0, st>>>(xv, ids, vv, cols, k); break;
    default: kc_topk_bf16<8><<<rows, s.tpr, 0, st>>>(xv, ids, vv, cols, k); break;
  }
}
}  // namespace kc::cu
#endif
