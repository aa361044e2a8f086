// Prompt projection y = x . W^T on tensor cores: bf16 x [m x k] and W [n x k], mma.sync m16n8k16
// with fp32 accumulation, bf16 or fp32 out. A block of 8 warps computes a 128 x 128 tile of y; K
// moves through a 4-stage cp.async ring of 128 x 32 tiles of x and W (64 KiB of dynamic shared
// memory, XOR-swizzled so ldmatrix reads are conflict-free); each warp owns 64 x 32 of the tile.
// Ragged M, N and K edges are zero-filled by cp.async (K a multiple of 8 for 16-byte copies).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace kc::gemm_cu {

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 4, kThreads = 256;
constexpr int kStageBytes = (kBM + kBN) * kBK * 2;  // 16 KiB
constexpr int kSmemBytes = kStages * kStageBytes;    // 64 KiB: opt-in above 48 KiB

// Byte offset of 16-byte chunk c (0..3) of tile row r: rows are 64 bytes; the chunk index is XORed
// with bits 1-2 of the row so the 8 rows an ldmatrix reads fall in 8 different bank groups.
__device__ __forceinline__ uint32_t swz(int r, int c) { return uint32_t(r * 64 + ((c ^ ((r >> 1) & 3)) << 4)); }

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

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <class Out> __device__ __forceinline__ void put(Out* y, size_t i, float v);
template <> __device__ __forceinline__ void put<float>(float* y, size_t i, float v) { y[i] = v; }
template <> __device__ __forceinline__ void put<__nv_bfloat16>(__nv_bfloat16* y, size_t i, float v) {
  y[i] = __float2bfloat16_rn(v);
}

}  // namespace kc::gemm_cu

// grid (ceil(N / 128), ceil(M / 128)), 256 threads, kSmemBytes of dynamic shared memory.
template <class Out>
__global__ void __launch_bounds__(256)
kc_gemm_bf16(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B, Out* __restrict__ C, int M,
             int N, int K) {
  using namespace kc::gemm_cu;
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t sbase = uint32_t(__cvta_generic_to_shared(smem));
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 4, wn = warp % 4;  // warp tile: rows wm*64, cols wn*32
  const int bm = blockIdx.y * kBM, bn = blockIdx.x * kBN;
  const int ktiles = (K + kBK - 1) / kBK;

  auto load = [&](int stage, int kt) {
    const uint32_t sa = sbase + stage * kStageBytes, sb = sa + kBM * kBK * 2;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int idx = tid + i * kThreads, r = idx / 4, c = idx % 4, gk = kt * kBK + c * 8;
      const int gm = bm + r, gn = bn + r;
      const bool va = gm < M && gk < K, vb = gn < N && gk < K;
      cp_async16(sa + swz(r, c), va ? A + size_t(gm) * K + gk : A, va);
      cp_async16(sb + swz(r, c), vb ? B + size_t(gn) * K + gk : B, vb);
    }
  };

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) load(s, s);
    cp_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_wait<kStages - 2>();
    __syncthreads();
    const int nk = kt + kStages - 1;
    if (nk < ktiles) load(nk % kStages, nk);
    cp_commit();
    const uint32_t sa = sbase + (kt % kStages) * kStageBytes, sb = sa + kBM * kBK * 2;
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      uint32_t a[4][4], b[4][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const int r = wm * 64 + mi * 16 + (lane & 15), c = kk * 2 + (lane >> 4);
        ldsm_x4(sa + swz(r, c), a[mi][0], a[mi][1], a[mi][2], a[mi][3]);
      }
#pragma unroll
      for (int nj = 0; nj < 2; ++nj) {
        const int r = wn * 32 + nj * 16 + (lane & 7) + ((lane >> 4) << 3), c = kk * 2 + ((lane >> 3) & 1);
        ldsm_x4(sb + swz(r, c), b[2 * nj][0], b[2 * nj][1], b[2 * nj + 1][0], b[2 * nj + 1][1]);
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) mma_bf16(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
  }
  cp_wait<0>();

#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      const int r = bm + wm * 64 + mi * 16 + lane / 4, c = bn + wn * 32 + ni * 8 + (lane % 4) * 2;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int rr = r + h * 8;
        if (rr >= M) continue;
        if (c < N) put<Out>(C, size_t(rr) * N + c, acc[mi][ni][2 * h]);
        if (c + 1 < N) put<Out>(C, size_t(rr) * N + c + 1, acc[mi][ni][2 * h + 1]);
      }
    }
}

namespace kc::gemm_cu {

// Depth of the tensor-core sums. An mma adds 16 exact products to its fp32 accumulator with an
// internal alignment that may truncate rather than round (NVIDIA does not document it), so each
// of the K terms is counted as up to three fp32 roundings: a deliberately wide chain.
inline double gemm_depth(long K) { return 3.0 * double(K) + 16; }

template <class Out> inline cudaError_t prepare_gemm() {
  return cudaFuncSetAttribute(kc_gemm_bf16<Out>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
}

template <class Out>
inline void launch_gemm(const void* x, const void* w, Out* y, int M, int N, int K, cudaStream_t st) {
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
  kc_gemm_bf16<Out><<<grid, kThreads, kSmemBytes, st>>>(static_cast<const __nv_bfloat16*>(x),
                                                        static_cast<const __nv_bfloat16*>(w), y, M, N, K);
}

}  // namespace kc::gemm_cu
