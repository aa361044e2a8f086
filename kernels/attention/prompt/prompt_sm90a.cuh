// Prompt (prefill) attention on Hopper's warpgroup tensor cores (wgmma, sm_90a only): prompt.cuh's
// formula, masks and caches, warp-specialised. A block of three warpgroups takes 128 query rows of
// one (sequence, q head). Warpgroup 0 produces: it copies the block's 64-key tiles of K and V with
// cp.async into a ring of kStages90 stages in wgmma's 128-byte swizzled layout (rows of 64 bf16, a
// 16-byte chunk's index XORed with its row's low 3 bits, a head dim in blocks of 64 columns) and
// hands each stage over by mbarrier (full: its copies landed and were fenced to the async proxy;
// empty: both consumers are done with it). Warpgroups 1 and 2 each own 64 rows, q in shared memory:
// S = q K^T by wgmma m64n64k16 from shared memory, the online softmax in registers as prompt.cuh
// does it, then O += P V by wgmma with P in registers (bf16, the S accumulators' layout is the A
// fragment's) and V read N-major (imm-trans-b). A tile whose V holds an Inf or NaN for a key some
// row may not see takes the CUDA cores over each row's visible keys alone, as prompt.cuh does.
// Head dims 64 and 128 (at 256 the accumulators pass the 168 registers a thread of 384 may hold).
// The body exists only in the sm_90a image (a trap elsewhere, never launched there: the contract
// picks it where kc::gemm90::image_has_wgmma says the loaded image holds it).
#pragma once
#include "../../dense/gemm/gemm_sm90a.cuh"  // image_has_wgmma, desc128, wg_fence/commit/wait, fence_async_shared
#include "prompt.cuh"

namespace kc::attn_cu {

inline constexpr int kRows90 = 128, kKeys90 = 64, kStages90 = 3, kThreads90 = 384;
template <int D> inline constexpr int kQBytes90 = kRows90 * D * 2;
template <int D> inline constexpr int kTileBytes90 = kKeys90 * D * 2;  // one of K or V
// q, then kStages90 stages of K and V, + 1 KiB to align the base to the swizzle's 1 KiB pattern.
template <int D> inline constexpr int kSmem90 = kQBytes90<D> + kStages90 * 2 * kTileBytes90<D> + 1024;

}  // namespace kc::attn_cu

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
namespace kc::attn_cu::sm90 {

// Byte offset of 16-byte chunk c of row r in a region of 64 rows of D bf16, stored as D / 64 blocks
// of 64 rows x 128 bytes (8 KiB each), 128-byte swizzled.
__device__ __forceinline__ uint32_t swz(int r, int c) {
  return uint32_t((c >> 3) * 8192 + r * 128 + (((c & 7) ^ (r & 7)) << 4));
}
// N-major descriptor (B = V, keys x d): 8 KiB between blocks of 64 columns (the leading byte
// offset), 1 KiB between groups of 8 keys (the stride byte offset), 128-byte swizzle.
__device__ __forceinline__ uint64_t desc_nmajor(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(8192 >> 4) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}
__device__ __forceinline__ void mbar_init(uint32_t bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred p;\nKC_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra KC_WAIT;\n}\n" ::"r"(bar), "r"(parity) : "memory");
}
// Barrier `id` over one warpgroup's 128 threads: true where any of them passes true.
__device__ __forceinline__ bool wg_any(bool v, int id) {
  int r;
  asm volatile("{\n.reg .pred p, q;\nsetp.ne.b32 q, %1, 0;\nbar.red.or.pred p, %2, 128, q;\nselp.s32 %0, 1, 0, p;\n}\n"
               : "=r"(r) : "r"(int(v)), "r"(id) : "memory");
  return r != 0;
}
__device__ __forceinline__ void wg_bar(int id) { asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory"); }

// One wgmma m64n64k16 of a warpgroup, A and B from shared memory, both K-major: d = A B^T + (scale_d ? d : 0).
__device__ __forceinline__ void wgmma_ss_m64n64k16(float (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale_d));
}
// One wgmma m64n64k16 of a warpgroup, A from registers (a warp's 16 rows in mma.sync's A fragment),
// B from shared memory N-major (imm-trans-b 1): d = A B + (scale_d ? d : 0).
__device__ __forceinline__ void wgmma_rs_m64n64k16_nb(float (&d)[32], const uint32_t (&a)[4], uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}
// One wgmma m64n128k16 of a warpgroup, A from registers (a warp's 16 rows in mma.sync's A fragment),
// B from shared memory N-major (imm-trans-b 1): d = A B + (scale_d ? d : 0).
__device__ __forceinline__ void wgmma_rs_m64n128k16_nb(float (&d)[64], const uint32_t (&a)[4], uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}

}  // namespace kc::attn_cu::sm90
#endif

// Grid (ceil(rows / 128), q_heads, seqs), the latest rows first; 384 threads, dynamic shared memory
// kSmem90<D>.
template <int D>
__global__ void __launch_bounds__(kc::attn_cu::kThreads90, 1) kc_attn_prompt90(kc::attn_cu::PromptArgs a) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace kc::attn_cu;
  using namespace kc::attn_cu::sm90;
  constexpr int T = kKeys90, CH = D / 8, KD = D / 16, NT = T / 8, NO = D / 8, NS = kStages90;
  extern __shared__ __align__(128) uint8_t smem90[];
  __shared__ __align__(8) uint64_t s_full[NS], s_empty[NS];
  __shared__ int s_lo[kRows90], s_end[kRows90], s_blo, s_bend, s_flo, s_fend;
  const uint32_t base = (smem_u32(smem90) + 1023) & ~1023u, kv0 = base + kQBytes90<D>;
  const int qt = int(gridDim.x) - 1 - int(blockIdx.x), hq = blockIdx.y, s = blockIdx.z, h = hq / a.group;
  const int q_heads = a.kv_heads * a.group, tid = threadIdx.x, wg = tid / 128, lane = tid % 32, quad = lane % 4;
  const int len = a.lens[s], r0 = qt * kRows90;

  // The rows' spans; the block's union [blo, bend) and intersection [flo, fend) of non-empty ones.
  if (tid == 0) {
    s_blo = INT_MAX, s_bend = 0, s_flo = 0, s_fend = INT_MAX;
    for (int i = 0; i < NS; ++i) mbar_init(smem_u32(&s_full[i]), 128), mbar_init(smem_u32(&s_empty[i]), 8);
  }
  __syncthreads();
  if (tid < kRows90) {
    int lo = 0, end = 0;
    if (r0 + tid < a.rows) {
      const int p = a.pos[s * a.rows + r0 + tid];
      if (p >= 0 && len > 0) {
        lo = a.window > 0 ? max(0, p - a.window + 1) : 0;
        end = max(lo, min(p + 1, len));
      }
    }
    s_lo[tid] = lo, s_end[tid] = end;
    if (end > lo) atomicMin(&s_blo, lo), atomicMax(&s_bend, end), atomicMax(&s_flo, lo), atomicMin(&s_fend, end);
  }
  __syncthreads();
  const int blo = s_blo, bend = s_bend, flo = s_flo, fend = s_fend;
  const int ntiles = blo < bend ? (bend - 1) / T - blo / T + 1 : 0, tfirst = blo / T * T;
  auto stage_k = [&](int st) { return kv0 + uint32_t(st * 2 * kTileBytes90<D>); };

  if (wg == 0) {  // the producer: tile it into stage it % NS once both consumers are done with it - NS;
    // two tiles in flight, each handed over once its copies land
    for (int it = 0; it < ntiles; ++it) {
      const int st = it % NS, t0 = tfirst + it * T;
      if (it >= NS) mbar_wait(smem_u32(&s_empty[st]), uint32_t((it / NS - 1) & 1));
      const uint32_t kb = stage_k(st), vb = kb + uint32_t(kTileBytes90<D>);
#pragma unroll 4
      for (int i = tid; i < T * CH; i += 128) {
        const int r = i / CH, c = i % CH, j = t0 + r;
        const bool in = j >= blo && j < bend;
        const long off = in ? prompt_kv<D>(a, s, j, h) + c * 8 : 0;
        cp_async16(kb + swz(r, c), a.k + off, in);
        cp_async16(vb + swz(r, c), a.v + off, in);
      }
      cp_commit();
      if (it > 0) {
        cp_wait<1>();                     // tile it - 1's copies of this thread have landed
        kc::gemm90::fence_async_shared();  // ... and are visible to wgmma's async proxy
        mbar_arrive(smem_u32(&s_full[(it - 1) % NS]));
      }
    }
    if (ntiles > 0) {
      cp_wait<0>();
      kc::gemm90::fence_async_shared();
      mbar_arrive(smem_u32(&s_full[(ntiles - 1) % NS]));
    }
    return;
  }

  // A consumer: rows wg_r .. wg_r + 63 of the block; this thread's rows row_w, row_w + 8.
  const int cw = wg - 1, wg_r = cw * 64, row_w = wg_r + (tid % 128) / 32 * 16 + lane / 4;
  const uint32_t qb = base + uint32_t(cw * 64 * D * 2);
  for (int i = tid % 128; i < 64 * CH; i += 128) {
    const int r = i / CH, c = i % CH;
    const bool in = r0 + wg_r + r < a.rows;
    cp_async16(qb + swz(r, c), a.q + (in ? ((long(s) * a.rows + r0 + wg_r + r) * q_heads + hq) * D + c * 8 : 0), in);
  }
  cp_commit();
  cp_wait<0>();
  kc::gemm90::fence_async_shared();
  wg_bar(1 + cw);  // the warpgroup's q is in

  int lo_r[2], end_r[2];
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) lo_r[rr] = s_lo[row_w + rr * 8], end_r[rr] = s_end[row_w + rr * 8];
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, acc[NO * 4];
#pragma unroll
  for (int i = 0; i < NO * 4; ++i) acc[i] = 0.f;

  for (int it = 0; it < ntiles; ++it) {
    const int st = it % NS, t0 = tfirst + it * T;
    mbar_wait(smem_u32(&s_full[st]), uint32_t((it / NS) & 1));
    const uint32_t kb = stage_k(st), vb = kb + uint32_t(kTileBytes90<D>);
    // A tile whose keys some row of the block may not see: does its V hold an Inf or NaN?
    const int ka = max(t0, blo), kz = min(t0 + T, bend);
    bool slow = false;
    if (!(flo <= ka && kz <= fend)) {
      bool bad = false;
      for (int i = tid % 128; i < T * CH; i += 128) {
        const int r = i / CH;
        if (t0 + r < ka || t0 + r >= kz) continue;
        uint32_t w0, w1, w2, w3;
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3) : "r"(vb + swz(r, i % CH)));
        bad = bad || nonfinite2(w0) || nonfinite2(w1) || nonfinite2(w2) || nonfinite2(w3);
      }
      slow = wg_any(bad, 1 + cw);
    }

    // S = q K^T over the tile's 64 keys (fp32 accumulators, zero at the first k-step).
    float sc[NT * 4];
    kc::gemm90::wg_fence();
#pragma unroll
    for (int kk = 0; kk < KD; ++kk) {
      const uint32_t off = uint32_t((kk / 4) * 8192 + (kk % 4) * 32);
      wgmma_ss_m64n64k16(sc, kc::gemm90::desc128(qb + off), kc::gemm90::desc128(kb + off), kk > 0);
    }
    kc::gemm90::wg_commit();
    kc::gemm90::wg_wait<0>(sc);

    float wm[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int rr = e >> 1, j = t0 + nt * 8 + 2 * quad + (e & 1);
        const bool vis = j >= lo_r[rr] && j < end_r[rr];
        sc[nt * 4 + e] = vis ? sc[nt * 4 + e] * a.sc : -INFINITY;
        wm[rr] = nan_max(wm[rr], sc[nt * 4 + e]);
      }
    float alpha[2], c[2], ps[2] = {0.f, 0.f};
#pragma unroll
    for (int rr = 0; rr < 2; ++rr) {  // the row's max over its quad, the rescale where it moved
      wm[rr] = nan_max(wm[rr], __shfl_xor_sync(0xffffffffu, wm[rr], 1));
      wm[rr] = nan_max(wm[rr], __shfl_xor_sync(0xffffffffu, wm[rr], 2));
      const float mnew = nan_max(m[rr], wm[rr]);
      c[rr] = mnew == -INFINITY ? 0.f : mnew;
      alpha[rr] = mnew == m[rr] ? 1.f : expf(m[rr] - c[rr]);
      m[rr] = mnew;
    }
    uint32_t pa[NT / 2][4];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int rr = 0; rr < 2; ++rr) {
        const float x0 = sc[nt * 4 + 2 * rr], x1 = sc[nt * 4 + 2 * rr + 1];
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
    for (int nt = 0; nt < NO; ++nt)
      acc[nt * 4] *= alpha[0], acc[nt * 4 + 1] *= alpha[0], acc[nt * 4 + 2] *= alpha[1], acc[nt * 4 + 3] *= alpha[1];

    if (!slow) {  // O += P V on the tensor cores, V N-major: keys ks * 16 .. + 15 from row ks * 16
      kc::gemm90::wg_fence();
#pragma unroll
      for (int ks = 0; ks < NT / 2; ++ks) {
        const uint64_t dv = desc_nmajor(vb + uint32_t(ks * 16 * 128));
        if constexpr (D == 64) wgmma_rs_m64n64k16_nb(acc, pa[ks], dv, 1);
        else wgmma_rs_m64n128k16_nb(acc, pa[ks], dv, 1);
      }
      kc::gemm90::wg_commit();
      kc::gemm90::wg_wait<0>(acc);
    } else {  // each row over its visible keys alone; key j's p from its quad's lane (j % 8) / 2
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
            vis[rr] = j >= lo_r[rr] && j < end_r[rr];
          }
          if (!vis[0] && !vis[1]) continue;
#pragma unroll
          for (int no = 0; no < NO; ++no) {
            uint32_t v;
            asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(vb + swz(r, no) + 4 * quad));
#pragma unroll
            for (int rr = 0; rr < 2; ++rr)
              if (vis[rr]) {
                acc[no * 4 + 2 * rr] = fmaf(p[rr], lo16(v), acc[no * 4 + 2 * rr]);
                acc[no * 4 + 2 * rr + 1] = fmaf(p[rr], hi16(v), acc[no * 4 + 2 * rr + 1]);
              }
          }
        }
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(smem_u32(&s_empty[st]));  // this warp is done with the stage
  }

  // out = acc / l (a row of no weight: 0 / 0, NaN, as float64), lse = c + log l.
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) {
    const int r = r0 + row_w + rr * 8;
    if (r >= a.rows) continue;
    const long at = (long(s) * a.rows + r) * q_heads + hq;
#pragma unroll
    for (int nt = 0; nt < NO; ++nt)
      *reinterpret_cast<uint32_t*>(a.out + at * D + nt * 8 + 2 * quad) =
          pack_bf16(acc[nt * 4 + 2 * rr] / l[rr], acc[nt * 4 + 2 * rr + 1] / l[rr]);
    if (quad == 0) a.lse[at] = (m[rr] == -INFINITY ? 0.f : m[rr]) + logf(l[rr]);
  }
#else
  __trap();  // built for sm_90a only
#endif
}

namespace kc::attn_cu {

// Internal linkage (cuda_launch.cuh says why): this unit's copy opts in to its shared memory.
template <int D> static cudaError_t prepare_prompt90() {
  return cudaFuncSetAttribute(kc_attn_prompt90<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem90<D>);
}
template <int D> static void launch_prompt90_one(const PromptArgs& a, cudaStream_t st) {
  static const cudaError_t e = prepare_prompt90<D>();
  if (e != cudaSuccess)
    throw std::runtime_error("attention prompt (wgmma): cannot opt in to " + std::to_string(kSmem90<D>) +
                             " bytes of dynamic shared memory: " + cudaGetErrorString(e));
  const dim3 grid(unsigned((a.rows + kRows90 - 1) / kRows90), unsigned(a.kv_heads * a.group), unsigned(a.seqs));
  kc_attn_prompt90<D><<<grid, kThreads90, kSmem90<D>, st>>>(a);
}
static void launch_prompt90(const PromptArgs& a, int d, cudaStream_t st) {
  switch (d) {
    case 64: launch_prompt90_one<64>(a, st); break;
    case 128: launch_prompt90_one<128>(a, st); break;
    default: throw std::runtime_error("attention prompt (wgmma): head dim " + std::to_string(d) + " is not 64 or 128");
  }
  check_launch("attention prompt (wgmma)");
}

}  // namespace kc::attn_cu
