// A key tile's steps that prompt.cuh's mma.sync kernel and prompt_sm90a.cuh's wgmma kernel share:
// both hold S and O in the mma accumulator layout (n8 block nt, element e: row rr = e / 2 of the
// thread's two, lane / 4 and lane / 4 + 8 of its warp's 16; column nt * 8 + 2 (lane % 4) + e % 2).
#pragma once
#include "../cuda_attention.cuh"  // nan_max, pack_bf16, lo16, hi16

namespace kc::attn_cu {

__device__ __forceinline__ bool nonfinite2(uint32_t w) {  // either bf16 of the pair Inf or NaN
  return (w & 0x7f800000u) == 0x7f800000u || (w & 0x7f80u) == 0x7f80u;
}

// The online softmax over keys t0 .. t0 + 8 NT - 1: keys vis(rr, j) refuses are -Inf, the rest
// scaled; each row's max over its quad moves m (and rescales l and o where it moved, shifting by 0
// where nothing is left to overflow); P goes into l in fp32 and into pa in bf16, as P V's A
// fragments (the S accumulators' layout is the A fragment's).
template <int NT, int NO, class Vis>
__device__ __forceinline__ void prompt_softmax(float (&s)[NT][4], float (&o)[NO][4], int t0, int quad, float scale,
                                               Vis&& vis, float (&m)[2], float (&l)[2], uint32_t (&pa)[NT / 2][4]) {
  float wm[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int rr = e >> 1;
      s[nt][e] = vis(rr, t0 + nt * 8 + 2 * quad + (e & 1)) ? s[nt][e] * scale : -INFINITY;
      wm[rr] = nan_max(wm[rr], s[nt][e]);
    }
  float alpha[2], c[2], ps[2] = {0.f, 0.f};
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) {
    wm[rr] = nan_max(wm[rr], __shfl_xor_sync(0xffffffffu, wm[rr], 1));
    wm[rr] = nan_max(wm[rr], __shfl_xor_sync(0xffffffffu, wm[rr], 2));
    const float mnew = nan_max(m[rr], wm[rr]);
    c[rr] = mnew == -INFINITY ? 0.f : mnew;
    alpha[rr] = mnew == m[rr] ? 1.f : expf(m[rr] - c[rr]);
    m[rr] = mnew;
  }
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
#pragma unroll
    for (int rr = 0; rr < 2; ++rr) {
      const float x0 = s[nt][2 * rr], x1 = s[nt][2 * rr + 1];
      const float p0 = x0 == -INFINITY ? 0.f : expf(x0 - c[rr]), p1 = x1 == -INFINITY ? 0.f : expf(x1 - c[rr]);
      ps[rr] += p0 + p1;
      pa[nt / 2][(nt % 2) * 2 + rr] = pack_bf16(p0, p1);
    }
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) {
    ps[rr] += __shfl_xor_sync(0xffffffffu, ps[rr], 1);
    ps[rr] += __shfl_xor_sync(0xffffffffu, ps[rr], 2);
    l[rr] = l[rr] * alpha[rr] + ps[rr];
  }
#pragma unroll
  for (int nt = 0; nt < NO; ++nt) o[nt][0] *= alpha[0], o[nt][1] *= alpha[0], o[nt][2] *= alpha[1], o[nt][3] *= alpha[1];
}

// P V on the CUDA cores, for a tile whose V holds an Inf or NaN of a key some row may not see: each
// row adds its visible keys [lo, end) alone (a masked key's 0 * Inf would be NaN). Key j's p is in
// the register of the quad's lane (j % 8) / 2, its half j % 2; v_at(r, c) is the shared address of
// key row r's 16-byte chunk c of V.
template <int NT, int NO, class VAt>
__device__ __forceinline__ void prompt_pv_rows(float (&o)[NO][4], const uint32_t (&pa)[NT / 2][4], int t0, int lane,
                                               const int (&lo)[2], const int (&end)[2], VAt&& v_at) {
  const int quad = lane % 4;
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
#pragma unroll 1
    for (int jj = 0; jj < 8; ++jj) {
      const int r = nt * 8 + jj, j = t0 + r;
      float p[2];
      bool vis[2];
#pragma unroll
      for (int rr = 0; rr < 2; ++rr) {
        const uint32_t w = __shfl_sync(0xffffffffu, pa[nt / 2][(nt % 2) * 2 + rr], (lane & ~3) | (jj / 2));
        p[rr] = jj & 1 ? hi16(w) : lo16(w);
        vis[rr] = j >= lo[rr] && j < end[rr];
      }
      if (!vis[0] && !vis[1]) continue;
#pragma unroll
      for (int no = 0; no < NO; ++no) {
        uint32_t v;
        asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(v_at(r, no) + 4 * quad));
#pragma unroll
        for (int rr = 0; rr < 2; ++rr)
          if (vis[rr]) {
            o[no][2 * rr] = fmaf(p[rr], lo16(v), o[no][2 * rr]);
            o[no][2 * rr + 1] = fmaf(p[rr], hi16(v), o[no][2 * rr + 1]);
          }
      }
    }
}

// out = o / l (a row of no weight: 0 / 0, NaN, as float64), lse = m + log l, for the thread's rows
// at offsets at[rr] of q's rows (-1: past the last row).
template <int D>
__device__ __forceinline__ void prompt_store(uint16_t* out, float* lse, const long (&at)[2], int quad,
                                             const float (&o)[D / 8][4], const float (&m)[2], const float (&l)[2]) {
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) {
    if (at[rr] < 0) continue;
#pragma unroll
    for (int nt = 0; nt < D / 8; ++nt)
      *reinterpret_cast<uint32_t*>(out + at[rr] * D + nt * 8 + 2 * quad) =
          pack_bf16(o[nt][2 * rr] / l[rr], o[nt][2 * rr + 1] / l[rr]);
    if (quad == 0) lse[at[rr]] = (m[rr] == -INFINITY ? 0.f : m[rr]) + logf(l[rr]);
  }
}

}  // namespace kc::attn_cu
