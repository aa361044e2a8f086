// Prompt projection y = x . W^T on Hopper's warpgroup tensor cores (wgmma, sm_90a only): bf16 x
// [m x k] and W [n x k], fp32 accumulation, bf16 or fp32 out. A block of two warpgroups computes a
// 128 x 256 tile of y, each warpgroup 64 x 256 with one wgmma m64n256k16 per 16 columns of K (128 x
// 128 tiles and m64n128k16 where 256-wide tiles would leave half the SMs idle). K moves in 64-column
// steps through a ring of S stages filled by cp.async (every thread copies; zero-fill
// makes the ragged M, N and K edges, K a multiple of 8) in the 128-byte swizzled layout wgmma reads
// (a 16-byte chunk's index XORed with its row's low 3 bits, rows of 128 bytes, 1 KiB-aligned
// stages), S - 2 tiles in flight (wgmma_ring). S is 4
// for 256-wide tiles (48 KiB a stage) and 6 for 128-wide ones (32 KiB): a 128-wide tile is the shape
// of few rows, one block an SM, where loads issued further ahead keep the tensor cores fed.
// The body exists only in the sm_90a image; elsewhere the kernel traps, and the launcher never runs
// it there: kc_gemm90_image (1 in the sm_90a image, 0 in every other) tells the host which image of
// this translation unit the driver loaded.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gemm.cuh"

namespace kc::gemm90 {

// Tiles of 128 x BN (BN 256, or 128 where 256-wide tiles would leave half the SMs idle), K in steps of 64.
constexpr int kBM = 128, kBN = 256, kBK = 64, kThreads = 256;
constexpr int kABytes = kBM * kBK * 2;
template <int BN> __host__ __device__ constexpr int stage_bytes() { return kABytes + BN * kBK * 2; }     // 48 or 32 KiB
template <int BN> __host__ __device__ constexpr int stages() { return BN == 256 ? 4 : 6; }
template <int BN, int S = stages<BN>()> constexpr int smem_bytes() { return S * stage_bytes<BN>() + 1024; }  // + 1 KiB to align
constexpr int kSmemBytes = smem_bytes<kBN>();

}  // namespace kc::gemm90

#if defined(__CUDACC__)
namespace kc::gemm90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define KC_GEMM90_IMAGE 1
#else
#define KC_GEMM90_IMAGE 0
#endif
// Per translation unit (static): each module answers for its own image.
static __device__ int kc_gemm90_image = KC_GEMM90_IMAGE;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Shared-memory matrix descriptor: start address / 16, leading offset 1 (unused by K-major 128-byte
// swizzle), stride 1,024 bytes between 8-row groups, layout 1 = 128-byte swizzle.
__device__ __forceinline__ uint64_t desc128(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N, int R> __device__ __forceinline__ void wg_wait(float (&d)[R]) {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
  // The accumulators are written by the async unit: keep the compiler from moving their uses above.
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// K through a ring of S shared-memory stages filled by cp.async, the rhythm of every wgmma kernel
// here: S - 2 steps are in flight ahead of the one being multiplied while the previous step's wgmma
// may still run, so a stage is refilled only after every warpgroup has waited for it. load(stage,
// step) issues a step's copies (every thread); mma(stage) issues the step's wgmma into d (between
// the fence and the commit). Returns with every copy landed and every wgmma finished.
template <int S, int R, class Load, class Mma>
__device__ __forceinline__ void wgmma_ring(int steps, float (&d)[R], Load&& load, Mma&& mma) {
#pragma unroll
  for (int s = 0; s < S - 2; ++s) {
    if (s < steps) load(s, s);
    kc::gemm_cu::cp_commit();
  }
  for (int st = 0; st < steps; ++st) {
    kc::gemm_cu::cp_wait<S - 3>();  // this thread's copies of step st have landed
    fence_async_shared();           // ... and are visible to wgmma's reads
    __syncthreads();                // every thread's copies; every warpgroup's wgmma of step st - 2 finished
    const int nx = st + S - 2;      // into the stage of step st - 2
    if (nx < steps) load(nx % S, nx);
    kc::gemm_cu::cp_commit();
    wg_fence();
    mma(st % S);
    wg_commit();
    wg_wait<1>(d);
  }
  wg_wait<0>(d);
  kc::gemm_cu::cp_wait<0>();
}

// One wgmma m64n256k16 (bf16 in, fp32 accumulate) of a warpgroup: d += A B^T, A and B from shared
// memory through descriptors; scale_d 0 starts from zero. (Operand list written out: inline PTX has
// no loops.)
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db), "r"(scale_d));
}
// One wgmma m64n128k16 (bf16 in, fp32 accumulate) of a warpgroup: d = A B^T + (scale_d ? d : 0), A
// and B from shared memory through descriptors. (Operand list written out: inline PTX has no loops.)
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "r"(scale_d));
}

#endif

}  // namespace kc::gemm90

// 1-D grid of ceil(M / 128) * ceil(N / BN) blocks, 256 threads, smem_bytes<BN, S>() dynamic shared.
template <int BN, class Out, int S = kc::gemm90::stages<BN>()>
__global__ void __launch_bounds__(256, 1)
kc_gemm_wgmma(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B, Out* __restrict__ Y, int M,
              int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace kc::gemm90;
  using kc::gemm_cu::cp_async16;
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t sraw = uint32_t(__cvta_generic_to_shared(smem));
  const uint32_t sbase = (sraw + 1023) & ~1023u;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, wg = warp / 4;
  int tm, tn;
  kc::gemm_cu::raster(blockIdx.x, (M + kBM - 1) / kBM, (N + BN - 1) / BN, tm, tn);
  const int bm = tm * kBM, bn = tn * BN;
  const int ktiles = (K + kBK - 1) / kBK;

  auto load = [&](int stage, int kt) {
    const uint32_t sa = sbase + stage * stage_bytes<BN>(), sb = sa + kABytes;
#pragma unroll
    for (int i = 0; i < kBM * 8 / kThreads; ++i) {
      const int idx = tid + i * kThreads, r = idx / 8, c = idx % 8, gk = kt * kBK + c * 8, gm = bm + r;
      const bool v = gm < M && gk < K;
      cp_async16(sa + r * 128 + ((c ^ (r & 7)) << 4), v ? A + size_t(gm) * K + gk : A, v);
    }
#pragma unroll
    for (int i = 0; i < BN * 8 / kThreads; ++i) {
      const int idx = tid + i * kThreads, r = idx / 8, c = idx % 8, gk = kt * kBK + c * 8, gn = bn + r;
      const bool v = gn < N && gk < K;
      cp_async16(sb + r * 128 + ((c ^ (r & 7)) << 4), v ? B + size_t(gn) * K + gk : B, v);
    }
  };

  float d[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;

  wgmma_ring<S>(ktiles, d, load, [&](int stage) {
    const uint32_t sa = sbase + stage * stage_bytes<BN>() + wg * 64 * 128, sb = sbase + stage * stage_bytes<BN>() + kABytes;
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      if constexpr (BN == 256) wgmma_m64n256k16(d, desc128(sa + kk * 32), desc128(sb + kk * 32), 1);
      else wgmma_m64n128k16(d, desc128(sa + kk * 32), desc128(sb + kk * 32), 1);
    }
  });

  const int r = bm + wg * 64 + (warp % 4) * 16 + lane / 4;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int c = bn + j * 8 + (lane % 4) * 2;
    kc::gemm_cu::put2<Out>(Y, M, N, r, c, d[4 * j], d[4 * j + 1]);
    kc::gemm_cu::put2<Out>(Y, M, N, r + 8, c, d[4 * j + 2], d[4 * j + 3]);
  }
#else
  __trap();  // built for sm_90a only
#endif
}

namespace kc::gemm90 {
// Does this translation unit's loaded image hold the wgmma body? Only an sm_90 device can load an
// sm_90a image; anywhere else (or without a GPU) the answer is no and any error is cleared.
// KC_CUDA_NO_WGMMA=1 in the environment answers no as well, so the mma.sync kernels can be checked
// on an sm_90 device too.
static inline bool image_has_wgmma() {
  if (const char* e = std::getenv("KC_CUDA_NO_WGMMA"); e && std::strcmp(e, "1") == 0) return false;
  int dev = 0, major = 0, minor = 0, v = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) || major != 9 || minor != 0) {
    (void)cudaGetLastError();
    return false;
  }
  if (cudaMemcpyFromSymbol(&v, kc_gemm90_image, sizeof v) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return v == 1;
}
// Host side with internal linkage: a __global__ template's launch stub is per unit (gemv.cuh: GemvUnit).
namespace {
// The tile width a shape takes: 256 unless that gives at most one block for every two SMs, then 128
// (H200: 512 x 4,096 runs at 73% of cuBLAS with 128-wide tiles of 6 stages, 69% with 4, 49% with
// 256; 1,024 x 4,096 at 80% with 256, 69% with 128).
inline int tile_n(int M, int N) {
  const int sms = kc_sm_count();
  const long blocks = long((M + kBM - 1) / kBM) * ((N + 255) / 256);
  return 2 * blocks <= sms ? 128 : 256;
}
template <class Out, int BN, int S = stages<BN>()> inline cudaError_t prepare_bn() {
  return cudaFuncSetAttribute(kc_gemm_wgmma<BN, Out, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes<BN, S>());
}
template <class Out> inline cudaError_t prepare() {
  const cudaError_t e = prepare_bn<Out, 256>();
  return e != cudaSuccess ? e : prepare_bn<Out, 128>();
}
template <int BN, class Out, int S = stages<BN>()>
inline void launch_bn(const void* x, const void* w, Out* y, int M, int N, int K, cudaStream_t st) {
  const unsigned blocks = unsigned((M + kBM - 1) / kBM) * unsigned((N + BN - 1) / BN);
  kc_gemm_wgmma<BN, Out, S><<<blocks, kThreads, smem_bytes<BN, S>(), st>>>(
      static_cast<const __nv_bfloat16*>(x), static_cast<const __nv_bfloat16*>(w), y, M, N, K);
}
template <class Out> inline void launch(const void* x, const void* w, Out* y, int M, int N, int K, cudaStream_t st) {
  if (tile_n(M, N) == 256) launch_bn<256, Out>(x, w, y, M, N, K, st);
  else launch_bn<128, Out>(x, w, y, M, N, K, st);
}
}  // namespace
}  // namespace kc::gemm90
#endif
