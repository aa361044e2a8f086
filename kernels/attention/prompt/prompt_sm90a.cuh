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
// The sizes above the device guard are plain C++, for the registrations.
#pragma once
#include "prompt.cuh"

namespace kc::attn_cu {

inline constexpr int kRows90 = 128, kKeys90 = 64, kStages90 = 3, kThreads90 = 384;
template <int D> inline constexpr int kQBytes90 = kRows90 * D * 2;
template <int D> inline constexpr int kTileBytes90 = kKeys90 * D * 2;  // one of K or V
// q, then kStages90 stages of K and V, + 1 KiB to align the base to the swizzle's 1 KiB pattern.
template <int D> inline constexpr int kSmem90 = kQBytes90<D> + kStages90 * 2 * kTileBytes90<D> + 1024;

}  // namespace kc::attn_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include "../../dense/gemm/gemm_sm90a.cuh"  // image_has_wgmma, desc128, wg_fence/commit/wait, fence_async_shared

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
// Waits for every wgmma of this warpgroup; the accumulators are written by the async unit, so the
// compiler may not move their uses above the wait.
template <int N> __device__ __forceinline__ void wg_wait_all(float (&d)[N][4]) {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3])::"memory");
}

// One wgmma m64n64k16 of a warpgroup, A and B from shared memory, both K-major: d = A B^T + (scale_d ? d : 0).
__device__ __forceinline__ void wgmma_ss_m64n64k16(float (&d)[8][4], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
        "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
        "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
        "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
      : "l"(da), "l"(db), "r"(scale_d));
}
// One wgmma m64n64k16 of a warpgroup, A from registers (a warp's 16 rows in mma.sync's A fragment),
// B from shared memory N-major (imm-trans-b 1): d = A B + (scale_d ? d : 0).
__device__ __forceinline__ void wgmma_rs_m64n64k16_nb(float (&d)[8][4], const uint32_t (&a)[4], uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
      : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
        "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
        "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
        "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}
// One wgmma m64n128k16 of a warpgroup, A from registers (a warp's 16 rows in mma.sync's A fragment),
// B from shared memory N-major (imm-trans-b 1): d = A B + (scale_d ? d : 0).
__device__ __forceinline__ void wgmma_rs_m64n128k16_nb(float (&d)[16][4], const uint32_t (&a)[4], uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
      : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
        "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
        "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
        "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3]),
        "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]),
        "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]),
        "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), "+f"(d[13][3]),
        "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3])
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
    if (r0 + tid < a.rows) row_span<0>(len, a.pos[s * a.rows + r0 + tid], a.window, lo, end);
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
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, acc[NO][4];
#pragma unroll
  for (int nt = 0; nt < NO; ++nt) acc[nt][0] = acc[nt][1] = acc[nt][2] = acc[nt][3] = 0.f;

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
    float sc[NT][4];
    kc::gemm90::wg_fence();
#pragma unroll
    for (int kk = 0; kk < KD; ++kk) {
      const uint32_t off = uint32_t((kk / 4) * 8192 + (kk % 4) * 32);
      wgmma_ss_m64n64k16(sc, kc::gemm90::desc128(qb + off), kc::gemm90::desc128(kb + off), kk > 0);
    }
    kc::gemm90::wg_commit();
    wg_wait_all(sc);

    uint32_t pa[NT / 2][4];
    prompt_softmax<NT, NO>(sc, acc, t0, quad, a.sc, [&](int rr, int j) { return j >= lo_r[rr] && j < end_r[rr]; }, m,
                           l, pa);
    if (!slow) {  // O += P V on the tensor cores, V N-major: keys ks * 16 .. + 15 from row ks * 16
      kc::gemm90::wg_fence();
#pragma unroll
      for (int ks = 0; ks < NT / 2; ++ks) {
        const uint64_t dv = desc_nmajor(vb + uint32_t(ks * 16 * 128));
        if constexpr (D == 64) wgmma_rs_m64n64k16_nb(acc, pa[ks], dv, 1);
        else wgmma_rs_m64n128k16_nb(acc, pa[ks], dv, 1);
      }
      kc::gemm90::wg_commit();
      wg_wait_all(acc);
    } else {  // an Inf or NaN in V of a key some row may not see
      prompt_pv_rows<NT, NO>(acc, pa, t0, lane, lo_r, end_r, [&](int r, int c) { return vb + swz(r, c); });
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(smem_u32(&s_empty[st]));  // this warp is done with the stage
  }

  long at[2];
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) {
    const int r = r0 + row_w + rr * 8;
    at[rr] = r < a.rows ? (long(s) * a.rows + r) * q_heads + hq : -1;
  }
  prompt_store<D>(a.out, a.lse, at, quad, acc, m, l);
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
#endif
