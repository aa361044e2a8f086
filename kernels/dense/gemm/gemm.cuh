// Prompt projection y = x . W^T on tensor cores: bf16 x [m x k] and W [n x k], mma.sync m16n8k16
// with fp32 accumulation, bf16 or fp32 out. A block tile of BM x BN outputs is split among warps of
// WM x WN; K moves through a STAGES-deep cp.async ring of BM x BK and BN x BK tiles of x and W,
// XOR-swizzled in shared memory so the 8 rows an ldmatrix reads fall in 8 different bank groups.
// Fragments are double-buffered in registers (the next 16 columns are read while the current ones
// are multiplied, across stage boundaries too), and blocks are rastered in groups of 8 row tiles so
// the tiles that run together share their x and W tiles in L2. Ragged M, N and K edges are
// zero-filled by cp.async (K a multiple of 8 for 16-byte copies).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "../../common/kc_gpu.h"

namespace kc::gemm_cu {

// A tile configuration: BM x BN block tile of WM x WN warp tiles, K in BK steps through STAGES.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_> struct Cfg {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
  static constexpr int kWarps = (BM / WM) * (BN / WN), kThreads = 32 * kWarps;
  static constexpr int kStageBytes = (BM + BN) * BK * 2;
  static constexpr int kSmemBytes = STAGES * kStageBytes;
};
// The served configuration: 128 x 128 tiles, 8 warps of 64 x 32, K in steps of 32 through 4 stages
// (64 KiB of dynamic shared memory: opt-in above 48 KiB). Measured on the H200 (bench_prompt.cu)
// against 128 x 256 and 256 x 128 tiles of 64 x 64 warps (which spill at 255 registers) and K steps
// of 64: the fastest of them, and without a stack frame.
using Main = Cfg<128, 128, 32, 64, 32, 4>;
constexpr int kBM = Main::BM, kBN = Main::BN, kBK = Main::BK, kThreads = Main::kThreads;
constexpr int kSmemBytes = Main::kSmemBytes;

// What gemm.cu, the GEMM's device unit, exports to its registration (cuda.cpp): the answers and
// launchers of its own kernels (their launch stubs and opt-ins are the unit's). Out: __nv_bfloat16 or float.
bool gemm_wgmma();            // does the unit's loaded image hold the wgmma kernel (gemm_sm90a.cuh)? Asked once.
int gemm_wgmma_tile_n(int M, int N);  // the wgmma kernel's tile width at a shape (kc::gemm90::tile_n)
template <class Out> cudaError_t gemm_prepare();  // the opt-in of the kernel gemm_wgmma() says it runs
template <class Out>  // the kernel gemm_wgmma() says, on the harness's stream
void gemm_launch(const void* x, const void* w, Out* y, int M, int N, int K, void* stream);

}  // namespace kc::gemm_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include "../../common/kc_store.cuh"

namespace kc::gemm_cu {

// Byte offset of 16-byte chunk c of row r of a tile BK columns wide. BK 32: rows of 64 bytes, the
// chunk index XORed with bits 1-2 of the row; BK 64: rows of 128 bytes, XORed with bits 0-2.
template <int BK> __device__ __forceinline__ uint32_t swz_k(int r, int c) {
  static_assert(BK == 32 || BK == 64, "BK is 32 or 64");
  if constexpr (BK == 32) return uint32_t(r * 64 + ((c ^ ((r >> 1) & 3)) << 4));
  else return uint32_t(r * 128 + ((c ^ (r & 7)) << 4));
}
__device__ __forceinline__ uint32_t swz(int r, int c) { return swz_k<32>(r, c); }

__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid) {
  const int bytes = valid ? 16 : 0;  // 0: nothing read, the 16 bytes are zero-filled
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldsm_x4(uint32_t addr, uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

// Two neighbours of a row (columns c, c + 1): one 4- or 8-byte store when both exist and the pair
// is aligned (N even), else one store each.
template <class Out> __device__ __forceinline__ void put2(Out* y, int M, int N, int r, int c, float v0, float v1) {
  if (r >= M || c >= N) return;
  const size_t i = size_t(r) * N + c;
  if (c + 1 < N && (i & 1) == 0) {
    if constexpr (sizeof(Out) == 4) *reinterpret_cast<float2*>(y + i) = make_float2(v0, v1);
    else *reinterpret_cast<__nv_bfloat162*>(y + i) = __floats2bfloat162_rn(v0, v1);
  } else {
    kc_store<Out>(y, i, v0);
    if (c + 1 < N) kc_store<Out>(y, i + 1, v1);
  }
}

// Block (row tile, column tile) of a linear block index, in groups of 8 row tiles: consecutive
// blocks walk down 8 row tiles before moving one column tile right.
__device__ __forceinline__ void raster(int pid, int tiles_m, int tiles_n, int& tm, int& tn) {
  constexpr int kGroup = 8;
  const int per_group = kGroup * tiles_n, first = (pid / per_group) * kGroup;
  const int rows = min(tiles_m - first, kGroup), in = pid % per_group;
  tm = first + in % rows;
  tn = in / rows;
}

}  // namespace kc::gemm_cu

// 1-D grid of ceil(M / BM) * ceil(N / BN) blocks, C::kThreads threads, C::kSmemBytes dynamic shared.
template <class C, class Out>
__global__ void __launch_bounds__(C::kThreads)
kc_gemm_mma(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B, Out* __restrict__ Y, int M,
            int N, int K) {
  using namespace kc::gemm_cu;
  constexpr int BM = C::BM, BN = C::BN, BK = C::BK, S = C::STAGES, T = C::kThreads;
  constexpr int MI = C::WM / 16, NI = C::WN / 8, KS = BK / 16, CH = BK / 8, WCOLS = BN / C::WN;
  static_assert(KS >= 2 && NI % 2 == 0 && (BM * CH) % T == 0 && (BN * CH) % T == 0, "tile shape");
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t sbase = uint32_t(__cvta_generic_to_shared(smem));
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / WCOLS, wn = warp % WCOLS;
  int tm, tn;
  raster(blockIdx.x, (M + BM - 1) / BM, (N + BN - 1) / BN, tm, tn);
  const int bm = tm * BM, bn = tn * BN;
  const int ktiles = (K + BK - 1) / BK;

  auto load = [&](int stage, int kt) {
    const uint32_t sa = sbase + stage * C::kStageBytes, sb = sa + BM * BK * 2;
#pragma unroll
    for (int i = 0; i < BM * CH / T; ++i) {
      const int idx = tid + i * T, r = idx / CH, c = idx % CH, gk = kt * BK + c * 8, gm = bm + r;
      const bool v = gm < M && gk < K;
      cp_async16(sa + swz_k<BK>(r, c), v ? A + size_t(gm) * K + gk : A, v);
    }
#pragma unroll
    for (int i = 0; i < BN * CH / T; ++i) {
      const int idx = tid + i * T, r = idx / CH, c = idx % CH, gk = kt * BK + c * 8, gn = bn + r;
      const bool v = gn < N && gk < K;
      cp_async16(sb + swz_k<BK>(r, c), v ? B + size_t(gn) * K + gk : B, v);
    }
  };
  // Fragments of 16 columns (kk) of a stage: x rows of this warp, W rows (y columns) of this warp.
  uint32_t fa[2][MI][4], fb[2][NI][2];
  auto frags = [&](int buf, int stage, int kk) {
    const uint32_t sa = sbase + stage * C::kStageBytes, sb = sa + BM * BK * 2;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      const int r = wm * C::WM + mi * 16 + (lane & 15), c = kk * 2 + (lane >> 4);
      ldsm_x4(sa + swz_k<BK>(r, c), fa[buf][mi][0], fa[buf][mi][1], fa[buf][mi][2], fa[buf][mi][3]);
    }
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj) {
      const int r = wn * C::WN + nj * 16 + (lane & 7) + ((lane >> 4) << 3), c = kk * 2 + ((lane >> 3) & 1);
      ldsm_x4(sb + swz_k<BK>(r, c), fb[buf][2 * nj][0], fb[buf][2 * nj][1], fb[buf][2 * nj + 1][0],
              fb[buf][2 * nj + 1][1]);
    }
  };

  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < ktiles) load(s, s);
    cp_commit();
  }
  cp_wait<S - 2>();
  __syncthreads();
  frags(0, 0, 0);
  int rs = 0;  // the stage being read
  for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
    for (int kk = 0; kk < KS; ++kk) {
      if (kk == KS - 1) {
        // Tile kt + 1 must be in shared memory, and every warp past its reads of tile kt - 1's
        // stage, which the load below (issued at kk == 0 of the next tile) overwrites.
        cp_wait<S - 2>();
        __syncthreads();
        rs = rs + 1 == S ? 0 : rs + 1;
      }
      frags((kk + 1) & 1, rs, (kk + 1) % KS);
      if (kk == 0) {
        const int nk = kt + S - 1;
        if (nk < ktiles) load(nk % S, nk);
        cp_commit();
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) kc_mma_m16n8k16_bf16(acc[mi][ni], fa[kk & 1][mi], fb[kk & 1][ni][0], fb[kk & 1][ni][1]);
    }
  }
  cp_wait<0>();

#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      const int r = bm + wm * C::WM + mi * 16 + lane / 4, c = bn + wn * C::WN + ni * 8 + (lane % 4) * 2;
      put2<Out>(Y, M, N, r, c, acc[mi][ni][0], acc[mi][ni][1]);
      put2<Out>(Y, M, N, r + 8, c, acc[mi][ni][2], acc[mi][ni][3]);
    }
}

namespace kc::gemm_cu {

// Host side with internal linkage: a __global__ template's launch stub is per unit (gemv.cuh: GemvUnit).
namespace {
template <class C, class Out> inline cudaError_t prepare_gemm_cfg() {
  return cudaFuncSetAttribute(kc_gemm_mma<C, Out>, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes);
}
template <class C, class Out>
inline void launch_gemm_cfg(const void* x, const void* w, Out* y, int M, int N, int K, cudaStream_t st) {
  const unsigned blocks = unsigned((M + C::BM - 1) / C::BM) * unsigned((N + C::BN - 1) / C::BN);
  kc_gemm_mma<C, Out><<<blocks, C::kThreads, C::kSmemBytes, st>>>(static_cast<const __nv_bfloat16*>(x),
                                                                   static_cast<const __nv_bfloat16*>(w), y, M, N, K);
}
template <class Out> inline cudaError_t prepare_gemm() { return prepare_gemm_cfg<Main, Out>(); }
template <class Out>
inline void launch_gemm(const void* x, const void* w, Out* y, int M, int N, int K, cudaStream_t st) {
  launch_gemm_cfg<Main, Out>(x, w, y, M, N, K, st);
}
}  // namespace

}  // namespace kc::gemm_cu
#endif
