// Prompt (prefill) attention on tensor cores, FlashAttention-2's layout (attention.hpp's decode
// formula with many rows a sequence): a block of 4 warps takes 64 query rows (16 a warp, the m16 of
// mma.sync m16n8k16) of one (sequence, q head); q head h reads kv head h / group. It streams 64-key
// tiles of K and V through a cp.async double buffer in shared memory, from the tile of the block's
// first visible key (a window's tiles left of every row skipped) to the diagonal tile (the block's
// last row's position), and keeps each row's online softmax in registers: S = q K^T on the tensor
// cores, one max and one rescale a tile, P packed to bf16 in registers as the A operand of P V.
//
// Masked keys never reach P V through a weight of 0 (0 * Inf is NaN): K and V of keys outside the
// block's union of spans are zero-filled; inside it a key may be masked for some rows only (the
// diagonal tile, a window's first), so such a tile's V is scanned, and where it holds an Inf or NaN
// that tile's P V runs on the CUDA cores over each row's visible keys alone. Finite V (every fill
// but gate 1's) always takes the tensor cores.
// Head dims 64 and 128 keep q in registers; at 256 the accumulators alone are 128 fp32 a thread, so
// q stays in shared memory (read by ldmatrix a tile) and a tile is 32 keys: q and the two stages are
// 96 KB, inside the 99 KB an SM 8.6, 8.9 or 12.x block may opt in to.
// The sizes, faults and arguments above the device guard are plain C++, for the registrations.
#pragma once
#include <climits>
#include <stdexcept>
#include <string>

#include "../cuda_launch.cuh"  // cuda_attention.cuh's helpers, check_launch

namespace kc::attn_cu {

inline constexpr int kPromptRows = 64;  // query rows a block
inline constexpr int prompt_keys(int d) { return d == 256 ? 32 : 64; }  // keys a tile
template <int D> inline constexpr bool kPromptQSmem = D == 256;          // q in shared memory
// 2 stages of K and V, then q's 64 rows where kPromptQSmem.
template <int D>
inline constexpr int kPromptSmem = 2 * 2 * prompt_keys(D) * D * 2 + (kPromptQSmem<D> ? kPromptRows * D * 2 : 0);

// Planted faults of the prompt controls (controls/cuda/attention/attention_prompt.cuh); 0 in the served kernel.
enum PromptFault : int {
  kPromptNone = 0,
  kPromptPastEdge,   // each row sees the key after its position
  kPromptPadLane,    // the last tile's lanes past the sequence read key 0 and count for its last row
  kPromptDiagFirst,  // the key loop ends after the tile of the block's first row, not its last
};

struct PromptArgs {
  const uint16_t *q, *k, *v;  // bf16
  const int32_t *lens, *pos, *table;
  uint16_t* out;  // bf16 [seqs, rows, q_heads, d]
  float* lse;     // [seqs, rows, q_heads], natural units
  int cache, seqs, rows, kv_heads, group, window, slots, max_pages;
  float sc;
};

[[noreturn]] inline void bad_prompt_dim(int d) {
  throw std::runtime_error("attention prompt: head dim " + std::to_string(d) + " is not 64, 128 or 256");
}

}  // namespace kc::attn_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include <cuda_runtime.h>

#include "prompt_tile.cuh"

namespace kc::attn_cu {

// Element offset of key j's row (kv head h) in k and v.
template <int D> __device__ __forceinline__ long prompt_kv(const PromptArgs& a, int s, int j, int h) {
  const long row = a.cache == kPaged ? long(a.table[long(s) * a.max_pages + j / a.slots]) * a.slots + j % a.slots
                                     : long(s) * a.slots + j;
  return (row * a.kv_heads + h) * D;
}

}  // namespace kc::attn_cu

// Grid (ceil(rows / 64), q_heads, seqs), the latest rows first (the longest key loops); 128 threads,
// dynamic shared memory kPromptSmem<D>.
template <int D, int F>
__global__ void __launch_bounds__(kc::attn_cu::kThreads, 1) kc_attn_prompt(kc::attn_cu::PromptArgs a) {
  using namespace kc::attn_cu;
  constexpr int T = prompt_keys(D), KD = D / 16, CH = D / 8, NT = T / 8, NO = D / 8;
  constexpr bool QS = kPromptQSmem<D>;
  extern __shared__ __align__(128) uint8_t kv_smem[];
  __shared__ int s_lo[kPromptRows], s_end[kPromptRows], s_blo, s_bend, s_flo, s_fend;
  const int qt = int(gridDim.x) - 1 - int(blockIdx.x), hq = blockIdx.y, s = blockIdx.z, h = hq / a.group;
  const int q_heads = a.kv_heads * a.group, tid = threadIdx.x, warp = tid / 32, lane = tid % 32, quad = lane % 4;
  const int len = a.lens[s], r0 = qt * kPromptRows;

  // The rows' spans; the block's union [blo, bend) and intersection [flo, fend) of non-empty ones.
  if (tid == 0) s_blo = INT_MAX, s_bend = 0, s_flo = 0, s_fend = INT_MAX;
  __syncthreads();
  if (tid < kPromptRows) {
    int lo = 0, end = 0;
    if (r0 + tid < a.rows) row_span<0>(len, a.pos[s * a.rows + r0 + tid], a.window, lo, end);
    if (F == kPromptPastEdge && end > lo) end += 1;
    s_lo[tid] = lo, s_end[tid] = end;
    if (end > lo) atomicMin(&s_blo, lo), atomicMax(&s_bend, end), atomicMax(&s_flo, lo), atomicMin(&s_fend, end);
  }
  __syncthreads();
  const int blo = s_blo, bend = s_bend, flo = s_flo, fend = s_fend;
  const int row_w = warp * 16 + lane / 4;  // this thread's rows in the block: row_w, row_w + 8
  int lo_r[2], end_r[2];
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) lo_r[rr] = s_lo[row_w + rr * 8], end_r[rr] = s_end[row_w + rr * 8];
  // Row row_w + 8 rr's offset in q's rows (and out's, lse's); -1 past the last. Recomputed where
  // used, not kept live through the key loop (at head dim 256 no register is spare).
  auto row_at = [&](int rr) -> long {
    const int r = r0 + row_w + rr * 8;
    return r < a.rows ? (long(s) * a.rows + r) * q_heads + hq : -1;
  };
  // q as A fragments: rows lane / 4 (+ 8), columns 2 (lane % 4) (+ 8) of each k16 step; where
  // kPromptQSmem, the block's 64 rows of q (0 past the last row) after the stages, committed with
  // the first tile.
  const uint32_t qb = smem_u32(kv_smem) + uint32_t(2 * 2 * T * D * 2);
  uint32_t qa[QS ? 1 : KD][4];
  if constexpr (QS) {
    for (int i = tid; i < kPromptRows * CH; i += kThreads) {
      const int r = i / CH, c = i % CH;
      const bool in = r0 + r < a.rows;
      cp_async16(qb + swz_row<D>(r, c), a.q + (in ? ((long(s) * a.rows + r0 + r) * q_heads + hq) * D + c * 8 : 0), in);
    }
  } else {
#pragma unroll
    for (int kk = 0; kk < KD; ++kk)
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const long at = row_at(x & 1);
        qa[kk][x] = at >= 0 ? ld32(a.q + at * D + kk * 16 + 2 * quad + (x >> 1) * 8) : 0u;
      }
  }

  const int pad_end = (len + T - 1) / T * T;  // kPromptPadLane: the last tile's lanes past len
  auto load_tile = [&](int t0, int stage) {
    const uint32_t kb = smem_u32(kv_smem) + uint32_t(stage * 2 * T * D * 2), vb = kb + uint32_t(T * D * 2);
#pragma unroll
    for (int i = tid; i < T * CH; i += kThreads) {
      const int r = i / CH, c = i % CH, j = t0 + r;
      const bool pad = F == kPromptPadLane && j >= len && j < pad_end;
      const bool in = (j >= blo && j < bend) || pad;
      const long off = in ? prompt_kv<D>(a, s, pad ? 0 : j, h) + c * 8 : 0;
      cp_async16(kb + swz_row<D>(r, c), a.k + off, in);
      cp_async16(vb + swz_row<D>(r, c), a.v + off, in);
    }
  };

  int lend = bend;  // the key loop's end: after the diagonal tile
  if (F == kPromptDiagFirst && fend < bend) lend = min(bend, (fend - 1) / T * T + T);
  const int ntiles = blo < lend ? (lend - 1) / T - blo / T + 1 : 0, tfirst = blo / T * T;
  if (ntiles > 0) load_tile(tfirst, 0);
  cp_commit();
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, acc[NO][4];
#pragma unroll
  for (int nt = 0; nt < NO; ++nt) acc[nt][0] = acc[nt][1] = acc[nt][2] = acc[nt][3] = 0.f;

  for (int it = 0; it < ntiles; ++it) {
    cp_wait<0>();
    __syncthreads();  // tile it is in; every warp is past tile it - 1, whose stage is refilled next
    if (it + 1 < ntiles) load_tile(tfirst + (it + 1) * T, (it + 1) & 1);
    cp_commit();
    const int t0 = tfirst + it * T;
    const uint32_t kb = smem_u32(kv_smem) + uint32_t((it & 1) * 2 * T * D * 2), vb = kb + uint32_t(T * D * 2);
    // A tile whose keys some row of the block may not see: does its V hold an Inf or NaN?
    const int ka = max(t0, blo), kz = min(t0 + T, bend);
    bool slow = false;
    if (!(flo <= ka && kz <= fend)) {
      bool bad = false;
      for (int i = tid; i < T * CH; i += kThreads) {
        const int r = i / CH;
        if (t0 + r < ka || t0 + r >= kz) continue;
        const uint4 w = *reinterpret_cast<const uint4*>(kv_smem + (vb - smem_u32(kv_smem)) + swz_row<D>(r, i % CH));
        bad = bad || nonfinite2(w.x) || nonfinite2(w.y) || nonfinite2(w.z) || nonfinite2(w.w);
      }
      slow = __syncthreads_or(bad);
    }

    // S = q K^T over the tile's 64 keys, scaled; keys a row may not see are -Inf.
    float sc[NT][4];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) sc[nt][0] = sc[nt][1] = sc[nt][2] = sc[nt][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < KD; ++kk) {
      uint32_t qs[4];  // ldmatrix x4: rows 0-15 of the warp, k 0-7 (lanes 0-15) and 8-15 (16-31)
      if constexpr (QS) ldsm_x4(qb + swz_row<D>(warp * 16 + lane % 16, kk * 2 + lane / 16), qs);
      const uint32_t(&qf)[4] = QS ? qs : qa[QS ? 0 : kk];
#pragma unroll
      for (int np = 0; np < NT / 2; ++np) {
        uint32_t b[4];
        const int q = lane / 8;
        ldsm_x4(kb + swz_row<D>(np * 16 + (q / 2) * 8 + lane % 8, kk * 2 + q % 2), b);
        mma_bf16(sc[2 * np], qf, b[0], b[1]);
        mma_bf16(sc[2 * np + 1], qf, b[2], b[3]);
      }
    }
    uint32_t pa[NT / 2][4];
    prompt_softmax<NT, NO>(sc, acc, t0, quad, a.sc, [&](int rr, int j) {
      bool vis = j >= lo_r[rr] && j < end_r[rr];
      if (F == kPromptPadLane) vis = vis || (j >= len && j < pad_end && end_r[rr] == len);
      return vis;
    }, m, l, pa);
    if (!slow) {  // O += P V on the tensor cores
#pragma unroll
      for (int ks = 0; ks < NT / 2; ++ks)
#pragma unroll
        for (int np = 0; np < NO / 2; ++np) {
          uint32_t b[4];
          ldsm_x4_t(vb + swz_row<D>(ks * 16 + lane % 8 + ((lane / 8) % 2) * 8, np * 2 + lane / 16), b);
          mma_bf16(acc[2 * np], pa[ks], b[0], b[1]);
          mma_bf16(acc[2 * np + 1], pa[ks], b[2], b[3]);
        }
    } else {  // an Inf or NaN in V of a key some row may not see
      prompt_pv_rows<NT, NO>(acc, pa, t0, lane, lo_r, end_r, [&](int r, int c) { return vb + swz_row<D>(r, c); });
    }
  }
  cp_wait<0>();

  const long at[2] = {row_at(0), row_at(1)};
  prompt_store<D>(a.out, a.lse, at, quad, acc, m, l);
}

namespace kc::attn_cu {

// Internal linkage (cuda_launch.cuh says why): this unit's copies opt in to their shared memory.
template <int D, int F> static void prepare_prompt() {
  static const cudaError_t e =
      cudaFuncSetAttribute(kc_attn_prompt<D, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, kPromptSmem<D>);
  if (e != cudaSuccess)
    throw std::runtime_error("attention prompt: cannot opt in to " + std::to_string(kPromptSmem<D>) +
                             " bytes of dynamic shared memory: " + cudaGetErrorString(e));
}
template <int D, int F> static void launch_prompt_one(const PromptArgs& a, cudaStream_t st) {
  prepare_prompt<D, F>();
  const dim3 grid(unsigned((a.rows + kPromptRows - 1) / kPromptRows), unsigned(a.kv_heads * a.group), unsigned(a.seqs));
  kc_attn_prompt<D, F><<<grid, kThreads, kPromptSmem<D>, st>>>(a);
}
template <int F = kPromptNone> static void launch_prompt(const PromptArgs& a, int d, cudaStream_t st) {
  switch (d) {
    case 64: launch_prompt_one<64, F>(a, st); break;
    case 128: launch_prompt_one<128, F>(a, st); break;
    case 256: launch_prompt_one<256, F>(a, st); break;
    default: bad_prompt_dim(d);
  }
  check_launch("attention prompt");
}

}  // namespace kc::attn_cu
#endif
