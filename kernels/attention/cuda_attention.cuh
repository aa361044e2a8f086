// Decode attention on tensor cores (attention.hpp's family): a block takes one KV chunk of one
// sequence's kv head for up to 16 query vectors (rows x GQA heads: the m16 of mma.sync m16n8k16),
// streams the chunk's K and V tiles through a cp.async ring in shared memory, and runs one online
// softmax over the tiles: each warp scores a quarter of a tile's keys (S = q K^T), the block takes
// the tile's max (one running max a row, one rescale a tile at most, as the family's range counts),
// P goes to shared memory in bf16 and each warp adds P V for a quarter of the head dim. It writes
// the chunk's partial: (max, sum, unnormalized P V), or (P V / sum, lse) under the empty-row rule.
// A merge kernel folds a row's partials into out and lse.
//
// Masked keys never reach P V through a weight of 0 (0 * Inf is NaN): K and V of keys no row may
// see are zero-filled, and so is V of the few keys only some rows see (a causal edge's, a window
// start's); those are added on the CUDA cores for the rows that see them.
// Sums (fp32, on tensor cores for the dots and P V: the contracts bound them by the rule
// tools/tc-probe measured, cuda_depth.cuh), l in fp32 on the CUDA cores.
//
// The sizes, enums and argument structs above the device guard are plain C++: the contracts'
// registrations (cuda.cpp), compiled without nvcc, build Args and MergeArgs from them.
#pragma once
#include <climits>
#include <cstdint>

#if defined(__CUDACC__) || defined(__HIP__)
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#endif

namespace kc::attn_cu {

inline constexpr int kThreads = 128, kWarps = 4, kRows = 16;

// A head dim's tiles: T keys a tile (32 at d 256, so three stages fit the 99 KiB every served SM
// allows a block), S cp.async stages of K then V.
template <int D> struct Tile {
  static_assert(D == 64 || D == 128 || D == 256, "head dims 64, 128, 256");
  static constexpr int T = D == 256 ? 32 : 64, S = D == 64 ? 4 : 3;
  static constexpr int kStage = 2 * T * D * 2, kSmem = S * kStage;
  static constexpr int NT_S = T / kWarps / 8;  // n8 tiles of keys a warp scores
  static constexpr int COLS = D / kWarps, NT_O = COLS / 8, KS = T / 16;  // a warp's P V columns, its k16 steps
};
enum CacheKind : int { kLinear = 0, kRing = 1, kPaged = 2 };
// Planted faults of the controls (controls/cuda/attention); 0 in every served kernel.
enum Fault : int { kNone = 0, kKeepL, kPastEdge, kPastWindow, kStalePage, kSwapTables, kMaskedTiles };

struct Args {
  const uint16_t *q, *k, *v;  // bf16
  const int32_t *lens, *pos, *table;
  int cache, seqs, rows, kv_heads, group, window, slots, max_pages;
  float sc;                    // the scale (times log2(e) where base2)
  int base2;                   // scores and lse in log2 units, exp2f / log2f
  int chunk, chunks, absolute;  // absolute: chunk c covers keys [c chunk, (c+1) chunk); else from the
                                // block's first visible key rounded down to a tile
  int lse_form;                // 1: part_o = P.V / sum, part_lse (0 and -Inf where empty); 0: m, l, o
  float *pm, *pl, *plse, *po;  // partials [seqs * rows * q_heads, chunks (, d)]
};

struct MergeArgs {
  const float *pm, *pl, *po;  // part_m (or part_lse), part_l (null: the lse form, l = 1), part_o
  void* out;
  float* lse;
  int n, chunks, zero_rule, base2;
};

}  // namespace kc::attn_cu

#if defined(__CUDACC__) || defined(__HIP__)
namespace kc::attn_cu {

__device__ __forceinline__ float lo16(uint32_t u) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float hi16(uint32_t u) { return __uint_as_float(u & 0xffff0000u); }
__device__ __forceinline__ uint32_t ld32(const uint16_t* p) { return __ldg(reinterpret_cast<const unsigned*>(p)); }
__device__ __forceinline__ float ex(float x, int base2) { return base2 ? exp2f(x) : expf(x); }
// A max that keeps NaN (fmaxf drops it: a NaN score must make its row NaN).
__device__ __forceinline__ float nan_max(float a, float b) { return a != a || b != b ? NAN : fmaxf(a, b); }
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);  // nearest-even, NaN and Inf kept
  return *reinterpret_cast<const uint32_t*>(&v);
}

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }
// Byte offset of 16-byte chunk c of row r of a K or V tile (rows of D bf16): XOR-swizzled so the
// 8 rows an ldmatrix reads fall in 8 bank groups.
template <int D> __device__ __forceinline__ uint32_t swz_row(int r, int c) {
  return uint32_t(r * D * 2 + ((c ^ (r & 7)) << 4));
}
// The same for P [16][T] bf16: rows of 128 bytes (T 64) or 64 (T 32).
template <int T> __device__ __forceinline__ uint32_t swz_p(int r, int c) {
  if constexpr (T == 64) return uint32_t(r * 128 + ((c ^ (r & 7)) << 4));
  else return uint32_t(r * 64 + ((c ^ ((r >> 1) & 3)) << 4));
}
__device__ __forceinline__ float bf16_at(const uint16_t* base, uint32_t i) { return __uint_as_float(uint32_t(base[i]) << 16); }
__device__ __forceinline__ void st32(uint32_t addr, uint32_t v) { asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v)); }
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));  // 0: zero-filled
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
__device__ __forceinline__ void ldsm_x4(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_t(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
// d += a b on the tensor cores: m16n8k16, bf16 in, fp32 accumulators.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// A row's visible keys [lo, end): 0 <= j <= pos, j > pos - window, j < len (attention.hpp).
template <int F> __device__ __forceinline__ void row_span(int len, int pos, int window, int& lo, int& end) {
  lo = end = 0;
  if (pos < 0 || len <= 0) return;
  lo = window > 0 ? max(0, pos - window + 1) : 0;
  end = max(lo, min(pos + 1, len));
  if (F == kPastEdge && end > lo) end += 1;
  if (F == kPastWindow && end > lo) lo = max(0, lo - 1);
}

// Element offset of key j's row (kv head h) in k and v.
template <int D, int F>
__device__ __forceinline__ long kv_off(const Args& a, int s, int j, int h, int len) {
  long row;
  if (a.cache == kPaged) {
    int ts = s, p = j / a.slots;
    if (F == kSwapTables && a.seqs >= 2 && s < 2) ts = 1 - s;
    if (F == kStalePage && p >= 1 && p == (len - 1) / a.slots) --p;
    row = long(a.table[long(ts) * a.max_pages + p]) * a.slots + j % a.slots;
  } else {
    row = long(s) * a.slots + (a.cache == kRing ? j % a.slots : j);
  }
  return (row * a.kv_heads + h) * D;
}

template <class O> __device__ __forceinline__ void put(O* p, float x);
template <> __device__ __forceinline__ void put<float>(float* p, float x) { *p = x; }
template <> __device__ __forceinline__ void put<uint16_t>(uint16_t* p, float x) {  // bf16, nearest-even, NaN kept
  const uint32_t u = __float_as_uint(x);
  *p = isnan(x) ? uint16_t((u >> 16) | 0x40) : uint16_t((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

}  // namespace kc::attn_cu

// The kernels sit outside the namespace so their names in the images are the launch records' symbols.

// Grid (chunks, seqs * kv_heads, ceil(rows * group / 16)); dynamic shared memory Tile<D>::kSmem.
template <int D, int F>
__global__ void __launch_bounds__(kc::attn_cu::kThreads) kc_attn_split(kc::attn_cu::Args a) {
  using namespace kc::attn_cu;
  using TL = Tile<D>;
  constexpr int T = TL::T, KD = D / 16, CH = D / 8;
  extern __shared__ __align__(128) uint8_t kv_smem[];
  __shared__ __align__(128) uint16_t s_p[kRows * T];
  __shared__ float s_wmax[kWarps][kRows], s_wsum[kWarps][kRows];
  const int ci = blockIdx.x, s = blockIdx.y / a.kv_heads, h = blockIdx.y % a.kv_heads;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, quad = lane % 4;
  const int G = a.rows * a.group, q_heads = a.kv_heads * a.group, len = a.lens[s];

  // The block's rows: the union [klo, kend) and intersection [flo, fend) of their non-empty spans;
  // this thread's two fragment rows (lane / 4 and lane / 4 + 8): spans and partial index.
  int klo = INT_MAX, kend = 0, flo = 0, fend = INT_MAX, lo_r[2] = {0, 0}, end_r[2] = {0, 0};
  long at_r[2] = {-1, -1};
#pragma unroll
  for (int g = 0; g < kRows; ++g) {
    const int qv = blockIdx.z * kRows + g;
    int lo = 0, end = 0;
    long at = -1;
    if (qv < G) {
      const int r = qv / a.group;
      row_span<F>(len, a.pos[s * a.rows + r], a.window, lo, end);
      at = long(s * a.rows + r) * q_heads + h * a.group + qv % a.group;
    }
    if (end > lo) klo = min(klo, lo), kend = max(kend, end), flo = max(flo, lo), fend = min(fend, end);
    if (g == lane / 4) lo_r[0] = lo, end_r[0] = end, at_r[0] = at;
    if (g == lane / 4 + 8) lo_r[1] = lo, end_r[1] = end, at_r[1] = at;
  }
  const int base = a.absolute || klo == INT_MAX ? 0 : klo / T * T;
  const int c0 = base + ci * a.chunk, c1 = ci == a.chunks - 1 ? INT_MAX : c0 + a.chunk;  // the last takes the rest
  const int jlo = max(klo, c0), jend = min(kend, c1);
  // Keys every row sees have their V on the tensor cores; the others (a causal edge's or a window
  // start's few keys) are zero there and added on the CUDA cores for the rows that see them.
  int vlo = max(flo, jlo), vend = min(fend, jend);
  if (vlo >= vend) vlo = vend = jend;

  // q as A fragments (m16 x k16 a step): rows lane / 4 (+ 8), columns 2 (lane % 4) (+ 8).
  uint32_t qa[KD][4];
#pragma unroll
  for (int kk = 0; kk < KD; ++kk)
#pragma unroll
    for (int x = 0; x < 4; ++x) {
      const long at = at_r[x & 1];
      qa[kk][x] = at >= 0 ? ld32(a.q + at * D + kk * 16 + 2 * quad + (x >> 1) * 8) : 0u;
    }

  auto load_tile = [&](int t0, int stage) {
    const uint32_t kb = smem_u32(kv_smem) + uint32_t(stage * TL::kStage), vb = kb + uint32_t(T * D * 2);
#pragma unroll  // every chunk's address first: a paged cache's table reads in flight together
    for (int i = tid; i < T * CH; i += kThreads) {
      const int r = i / CH, c = i % CH, j = t0 + r;
      const bool kin = j >= jlo && j < jend;
      const bool vin = F == kMaskedTiles ? (kin || (a.cache == kLinear && j >= 0 && j < a.slots)) : (j >= vlo && j < vend);
      const long off = kin || vin ? kv_off<D, F>(a, s, j, h, len) + c * 8 : 0;
      cp_async16(kb + swz_row<D>(r, c), a.k + off, kin);
      cp_async16(vb + swz_row<D>(r, c), a.v + off, vin);
    }
  };

  const int ntiles = jlo < jend ? (jend - 1) / T - jlo / T + 1 : 0, tfirst = jlo / T * T;
#pragma unroll
  for (int i = 0; i < TL::S - 1; ++i) {
    if (i < ntiles) load_tile(tfirst + i * T, i);
    cp_commit();
  }
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, acc[TL::NT_O][4];
#pragma unroll
  for (int nt = 0; nt < TL::NT_O; ++nt) acc[nt][0] = acc[nt][1] = acc[nt][2] = acc[nt][3] = 0.f;

  for (int it = 0; it < ntiles; ++it) {
    cp_wait<TL::S - 2>();
    __syncthreads();  // tile it is in; every thread is past tile it - 1, whose stage is refilled next
    if (it + TL::S - 1 < ntiles) load_tile(tfirst + (it + TL::S - 1) * T, (it + TL::S - 1) % TL::S);
    cp_commit();
    const int t0 = tfirst + it * T;
    const uint32_t kb = smem_u32(kv_smem) + uint32_t((it % TL::S) * TL::kStage), vb = kb + uint32_t(T * D * 2);

    // S = q K^T over the warp's T / 4 keys, scaled; keys a row may not see are -Inf.
    float sc[TL::NT_S][4];
#pragma unroll
    for (int nt = 0; nt < TL::NT_S; ++nt) sc[nt][0] = sc[nt][1] = sc[nt][2] = sc[nt][3] = 0.f;
    const int kw = warp * (T / kWarps);
    if constexpr (TL::NT_S == 2) {
#pragma unroll
      for (int kk = 0; kk < KD; ++kk) {
        uint32_t b[4];
        const int q = lane / 8, r = kw + (q / 2) * 8 + lane % 8;
        ldsm_x4(kb + swz_row<D>(r, kk * 2 + q % 2), b);
        mma_bf16(sc[0], qa[kk], b[0], b[1]);
        mma_bf16(sc[1], qa[kk], b[2], b[3]);
      }
    } else {
#pragma unroll
      for (int kk = 0; kk < KD; kk += 2) {
        uint32_t b[4];
        const int q = lane / 8, r = kw + lane % 8;
        ldsm_x4(kb + swz_row<D>(r, kk * 2 + q), b);
        mma_bf16(sc[0], qa[kk], b[0], b[1]);
        mma_bf16(sc[0], qa[kk + 1], b[2], b[3]);
      }
    }
    float wm[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int nt = 0; nt < TL::NT_S; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int rr = e >> 1, j = t0 + kw + nt * 8 + 2 * quad + (e & 1);
        const bool vis = j >= max(lo_r[rr], jlo) && j < min(end_r[rr], jend);
        sc[nt][e] = vis ? sc[nt][e] * a.sc : -INFINITY;
        wm[rr] = nan_max(wm[rr], sc[nt][e]);
      }
#pragma unroll
    for (int rr = 0; rr < 2; ++rr) {
      wm[rr] = nan_max(wm[rr], __shfl_xor_sync(0xffffffffu, wm[rr], 1));
      wm[rr] = nan_max(wm[rr], __shfl_xor_sync(0xffffffffu, wm[rr], 2));
      if (quad == 0) s_wmax[warp][lane / 4 + rr * 8] = wm[rr];
    }
    __syncthreads();
    // The tile's max (every warp alike), the rescale where it moved, P (fp32 into l, bf16 for P.V).
    float alpha[2], c[2];
#pragma unroll
    for (int rr = 0; rr < 2; ++rr) {
      const int row = lane / 4 + rr * 8;
      const float tmax = nan_max(nan_max(s_wmax[0][row], s_wmax[1][row]), nan_max(s_wmax[2][row], s_wmax[3][row]));
      const float mnew = nan_max(m[rr], tmax);
      c[rr] = mnew == -INFINITY ? 0.f : mnew;
      alpha[rr] = mnew == m[rr] ? 1.f : ex(m[rr] - c[rr], a.base2);
      m[rr] = mnew;
    }
    float ps[2] = {0.f, 0.f};
#pragma unroll
    for (int nt = 0; nt < TL::NT_S; ++nt)
#pragma unroll
      for (int rr = 0; rr < 2; ++rr) {
        // -Inf (a masked key, or a row of the m16 no query fills): p is 0 without an exp.
        const float x0 = sc[nt][2 * rr], x1 = sc[nt][2 * rr + 1];
        const float p0 = x0 == -INFINITY ? 0.f : ex(x0 - c[rr], a.base2), p1 = x1 == -INFINITY ? 0.f : ex(x1 - c[rr], a.base2);
        ps[rr] += p0 + p1;
        const int row = lane / 4 + rr * 8, col = kw + nt * 8 + 2 * quad;
        st32(smem_u32(s_p) + swz_p<T>(row, col / 8) + (col % 8) * 2, pack_bf16(p0, p1));
      }
#pragma unroll
    for (int rr = 0; rr < 2; ++rr) {
      ps[rr] += __shfl_xor_sync(0xffffffffu, ps[rr], 1);
      ps[rr] += __shfl_xor_sync(0xffffffffu, ps[rr], 2);
      if (quad == 0) s_wsum[warp][lane / 4 + rr * 8] = ps[rr];
    }
    __syncthreads();
#pragma unroll
    for (int rr = 0; rr < 2; ++rr) {
      const int row = lane / 4 + rr * 8;
      const float ts = ((s_wsum[0][row] + s_wsum[1][row]) + s_wsum[2][row]) + s_wsum[3][row];
      l[rr] = (F == kKeepL ? l[rr] : l[rr] * alpha[rr]) + ts;
    }
#pragma unroll
    for (int nt = 0; nt < TL::NT_O; ++nt) {
      acc[nt][0] *= alpha[0], acc[nt][1] *= alpha[0], acc[nt][2] *= alpha[1], acc[nt][3] *= alpha[1];
    }
    // O[:, the warp's D / 4 columns] += P V over the tile's keys.
    const int n0 = warp * TL::COLS;
#pragma unroll
    for (int ks = 0; ks < TL::KS; ++ks) {
      uint32_t pa[4];
      ldsm_x4(smem_u32(s_p) + swz_p<T>(lane % 8 + ((lane / 8) % 2) * 8, ks * 2 + lane / 16), pa);
#pragma unroll
      for (int np = 0; np < TL::NT_O / 2; ++np) {
        uint32_t b[4];
        const int r = ks * 16 + lane % 8 + ((lane / 8) % 2) * 8;
        ldsm_x4_t(vb + swz_row<D>(r, (n0 + np * 16) / 8 + lane / 16), b);
        mma_bf16(acc[2 * np], pa, b[0], b[1]);
        mma_bf16(acc[2 * np + 1], pa, b[2], b[3]);
      }
    }
    // The keys only some rows see, for those rows, from global memory (a few a sequence).
    if (F != kMaskedTiles) {
      for (int pass = 0; pass < 2; ++pass) {
        const int a0 = pass ? max(vend, t0) : max(jlo, t0), a1 = pass ? min(jend, t0 + T) : min(vlo, t0 + T);
        for (int j = a0; j < a1; ++j) {
          const long off = kv_off<D, F>(a, s, j, h, len);
#pragma unroll
          for (int rr = 0; rr < 2; ++rr) {
            if (!(j >= lo_r[rr] && j < end_r[rr])) continue;
            const int row = lane / 4 + rr * 8, jl = j - t0;
            const float p = bf16_at(s_p, swz_p<T>(row, jl / 8) / 2 + jl % 8);
#pragma unroll
            for (int nt = 0; nt < TL::NT_O; ++nt) {
              const uint32_t v = ld32(a.v + off + n0 + nt * 8 + 2 * quad);
              acc[nt][2 * rr] = fmaf(p, lo16(v), acc[nt][2 * rr]);
              acc[nt][2 * rr + 1] = fmaf(p, hi16(v), acc[nt][2 * rr + 1]);
            }
          }
        }
      }
    }
  }
  cp_wait<0>();

  // The partials of the thread's rows: its quad's columns of the warp's D / 4; m and l from warp 0.
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) {
    if (at_r[rr] < 0) continue;
    const long pa = at_r[rr] * a.chunks + ci;
    const bool none = !(max(lo_r[rr], jlo) < min(end_r[rr], jend));  // no key of this chunk: o is 0
    const float L = l[rr], cg = m[rr] == -INFINITY ? 0.f : m[rr];
#pragma unroll
    for (int nt = 0; nt < TL::NT_O; ++nt) {
      float v0 = acc[nt][2 * rr], v1 = acc[nt][2 * rr + 1];
      if (none) v0 = v1 = 0.f;
      else if (a.lse_form) v0 = L == 0 ? 0.f : v0 / L, v1 = L == 0 ? 0.f : v1 / L;
      *reinterpret_cast<float2*>(a.po + pa * D + warp * TL::COLS + nt * 8 + 2 * quad) = make_float2(v0, v1);
    }
    if (warp == 0 && quad == 0) {
      if (!a.lse_form) a.pm[pa] = m[rr], a.pl[pa] = L;
      else a.plse[pa] = L == 0 ? -INFINITY : cg + (a.base2 ? log2f(L) : logf(L));
    }
  }
}

// A warp a row: the partials' max, then in chunk order w = exp(m_c - max), L += w l_c, acc += w o_c;
// out = acc / L, lse = max + log L (0 and -Inf for a row of no weight under the zero rule).
// drop_scale (a control): the last chunk added without its w.
template <int D, class O, bool DropScale>
__global__ void __launch_bounds__(kc::attn_cu::kThreads) kc_attn_merge(kc::attn_cu::MergeArgs a) {
  using namespace kc::attn_cu;
  constexpr int E = D / 32;
  const int lane = threadIdx.x % 32;
  const long i = long(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (i >= a.n) return;
  const float* pm = a.pm + i * a.chunks;
  float M = -INFINITY;
  bool nan = false;
  for (int c = lane; c < a.chunks; c += 32) {
    const float x = pm[c];
    nan = nan || isnan(x);
    M = fmaxf(M, x);
  }
  nan = __any_sync(0xffffffffu, nan);
#pragma unroll
  for (int o = 16; o >= 1; o /= 2) M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, o));
  if (nan) M = NAN;
  const float c0 = M == -INFINITY ? 0.f : M;
  float L = 0, acc[E];
#pragma unroll
  for (int e = 0; e < E; ++e) acc[e] = 0.f;
  for (int c = 0; c < a.chunks; ++c) {
    const float w = DropScale && c == a.chunks - 1 ? 1.f : ex(pm[c] - c0, a.base2);
    L += w * (a.pl ? a.pl[i * a.chunks + c] : 1.f);
    const float* o = a.po + (i * a.chunks + c) * D + lane * E;
    float ov[E];
    if constexpr (E == 2) {
      const float2 t = *reinterpret_cast<const float2*>(o);
      ov[0] = t.x, ov[1] = t.y;
    } else {
#pragma unroll
      for (int e = 0; e < E; e += 4) {
        const float4 t = *reinterpret_cast<const float4*>(o + e);
        ov[e] = t.x, ov[e + 1] = t.y, ov[e + 2] = t.z, ov[e + 3] = t.w;
      }
    }
#pragma unroll
    for (int e = 0; e < E; ++e) acc[e] += w * ov[e];
  }
  const bool none = a.zero_rule && L == 0;
  O* out = static_cast<O*>(a.out) + i * D + lane * E;
#pragma unroll
  for (int e = 0; e < E; ++e) put<O>(out + e, none ? 0.f : acc[e] / L);
  if (lane == 0) a.lse[i] = none ? -INFINITY : c0 + (a.base2 ? log2f(L) : logf(L));
}
#endif
