// Decode projection y = x . W^T for 1..32 rows on Hopper's warpgroup tensor cores (wgmma, sm_90a
// only), the form launch_gemv takes on an sm_90 device whose loaded image is sm_90a. W is the wgmma's
// A operand (64 W rows a warpgroup) and x its B operand, 8, 16 or 32 rows wide (rows past M are
// zeros), so no tensor-core row is spent on padding x: cuBLAS's decode kernels on the H200 are the same
// shape ("nvjet ... 64x32" and "128x32" tiles for 32 rows).
//
// A block is one warpgroup: one 64-row W tile and one of C parts of K (parts of ceil(steps / C) steps of
// 64 k, the last perhaps shorter or empty). It streams its part through a ring of S stages filled by
// cp.async (W's 64 x 64 and x's NX x 64 of a step, 128-byte swizzled as wgmma reads them; the prompt
// GEMM's wgmma_ring), S - 2 steps in flight while a step's 4 wgmma m64nNXk16 run. The C blocks of a
// tile are one thread-block cluster: parts 1..C-1 leave their accumulators in their shared memory,
// part 0 adds them to its own in part order (part 0 + part 1 + ... + part C-1) through distributed
// shared memory and stores.
// Summation order, per output: a wgmma chain over the part's k in increasing order (fp32 accumulator),
// then the parts in order. The split-K form (gemv_splitk/) runs the same parts as blocks without a
// cluster, each storing its accumulators to a workspace, and meets them in the same order: the same
// bits.
// C is the largest of 8, 4, 2, 1 whose clusters all fit on the device at once (and not more parts than
// steps): H200, 32 rows, 4,096 x 14,336: C = 4 at 34.5 us against 39.1 with 2 and 43.1 with 8 (its 64
// clusters of 8 no longer fit at once); 14,336 x 4,096: C = 1 at 33.1 us against 44.1 with 2
// (bench/cuda/dense/h200_results.txt). S fills about a third to a half of an SM's shared memory.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "../gemm/gemm_sm90a.cuh"

namespace kc::gemv90 {

constexpr int kRows = 64;     // W rows of a block (wgmma's M)
constexpr int kStep = 64;     // k a stage holds (128 bytes a row: the swizzle's width)
constexpr int kThreads = 128; // one warpgroup
constexpr int kMaxParts = 8;  // parts of K a tile's cluster may have (8 is the portable cluster size)
// x rows a launch carries (wgmma's N) by rows served.
inline int nx_of(int M) { return M <= 8 ? 8 : M <= 16 ? 16 : 32; }
template <int NX> __host__ __device__ constexpr int stages() { return NX == 8 ? 12 : NX == 16 ? 8 : 6; }
template <int NX> __host__ __device__ constexpr int stage_bytes() { return kRows * 128 + NX * 128; }
template <int NX> constexpr int smem_bytes() { return stages<NX>() * stage_bytes<NX>() + 1024; }  // + 1 KiB to align

}  // namespace kc::gemv90

#if defined(__CUDACC__)
#include <cooperative_groups.h>

#include "../../common/kc_store.cuh"

namespace kc::gemv90 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// One wgmma m64nNXk16 (bf16 in, fp32 accumulate): d += A B^T, both from shared memory.
template <int NX> __device__ __forceinline__ void wgmma_nx(float (&d)[NX / 2], uint64_t da, uint64_t db);
template <> __device__ __forceinline__ void wgmma_nx<8>(float (&d)[4], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db));
}
template <> __device__ __forceinline__ void wgmma_nx<16>(float (&d)[8], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, "
      "0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(da), "l"(db));
}
template <> __device__ __forceinline__ void wgmma_nx<32>(float (&d)[16], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
      "%13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db));
}

// Part `part` of C of the tile at W row n0: its chain's accumulators in d (lane 4g + t of warp v: W rows
// n0 + 16v + g and + 8, x rows 8j + 2t and + 1 in d[4j], d[4j + 1] and d[4j + 2], d[4j + 3]).
template <int NX>
__device__ __forceinline__ void part_chain(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                                           int M, int N, int K, int n0, int part, int C, uint32_t sbase,
                                           float (&d)[NX / 2]) {
  using namespace kc::gemm90;
  using kc::gemm_cu::cp_async16;
  constexpr int S = stages<NX>();
  const int tid = threadIdx.x;
  const int steps_all = (K + kStep - 1) / kStep, per = (steps_all + C - 1) / C;
  const int s0 = part * per, steps = max(0, min(steps_all, s0 + per) - s0);
  auto load = [&](int stage, int st) {
    const uint32_t sa = sbase + stage * stage_bytes<NX>(), sb = sa + kRows * 128;
    const int k0 = (s0 + st) * kStep;
#pragma unroll
    for (int i = 0; i < kRows * 8 / kThreads; ++i) {
      const int idx = tid + i * kThreads, r = idx / 8, c = idx % 8, gk = k0 + c * 8, gn = n0 + r;
      const bool v = gn < N && gk < K;
      cp_async16(sa + r * 128 + ((c ^ (r & 7)) << 4), v ? w + size_t(gn) * K + gk : w, v);
    }
#pragma unroll
    for (int i = 0; i < (NX * 8 + kThreads - 1) / kThreads; ++i) {
      const int idx = tid + i * kThreads, r = idx / 8, c = idx % 8, gk = k0 + c * 8;
      if (idx < NX * 8) {
        const bool v = r < M && gk < K;
        cp_async16(sb + r * 128 + ((c ^ (r & 7)) << 4), v ? x + size_t(r) * K + gk : x, v);
      }
    }
  };
#pragma unroll
  for (int i = 0; i < NX / 2; ++i) d[i] = 0.f;
  wgmma_ring<S>(steps, d, load, [&](int stage) {
    const uint32_t sa = sbase + stage * stage_bytes<NX>(), sb = sa + kRows * 128;
#pragma unroll
    for (int kk = 0; kk < kStep / 16; ++kk) wgmma_nx<NX>(d, desc128(sa + kk * 32), desc128(sb + kk * 32));
  });
}

// Output (m, n) of accumulator i held by this thread.
__device__ __forceinline__ int out_n(int n0, int i) { return n0 + (threadIdx.x / 32) * 16 + (threadIdx.x % 32) / 4 + 8 * ((i % 4) / 2); }
__device__ __forceinline__ int out_m(int i) { return (i / 4) * 8 + (threadIdx.x % 4) * 2 + (i % 2); }
#endif

}  // namespace kc::gemv90

// Clusters exist from sm_90 on: the images of older SMs (where this kernel only traps) carry none.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define KC_GEMV90_CLUSTER(C)
#else
#define KC_GEMV90_CLUSTER(C) __cluster_dims__(C, 1, 1)
#endif

// grid (ceil(N / 64) * C), clusters of C, 128 threads, smem_bytes<NX>() dynamic shared (opted in).
template <int NX, int C, class Out>
__global__ void KC_GEMV90_CLUSTER(C) __launch_bounds__(kc::gemv90::kThreads)
kc_gemv90(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w, Out* __restrict__ y, int M,
          int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace kc::gemv90;
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t sraw = uint32_t(__cvta_generic_to_shared(smem)), sbase = (sraw + 1023) & ~1023u;
  const int n0 = (blockIdx.x / C) * kRows, part = blockIdx.x % C;  // a cluster's rank is its part
  float d[NX / 2];
  part_chain<NX>(x, w, M, N, K, n0, part, C, sbase, d);
  if constexpr (C > 1) {
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    float* red = reinterpret_cast<float*>(smem + (sbase - sraw));  // stage 0, every copy and wgmma done
    __syncthreads();
    if (part != 0) {
#pragma unroll
      for (int i = 0; i < NX / 2; ++i) red[i * kThreads + threadIdx.x] = d[i];
    }
    cluster.sync();
    if (part == 0) {
#pragma unroll
      for (int q = 1; q < C; ++q) {
        const float* rem = cluster.map_shared_rank(red, q);
#pragma unroll
        for (int i = 0; i < NX / 2; ++i) d[i] += rem[i * kThreads + threadIdx.x];
      }
    }
    cluster.sync();  // the parts' shared memory stays until part 0 has read it
    if (part != 0) return;
  }
#pragma unroll
  for (int i = 0; i < NX / 2; ++i) {
    const int m = out_m(i), n = out_n(n0, i);
    if (m < M && n < N) kc_store<Out>(y, size_t(m) * N + n, d[i]);
  }
#else
  __trap();  // built for sm_90a only
#endif
}

// The split-K form's parts: grid (ceil(N / 64) * C), no cluster; part blockIdx.x % C's sums go to
// ws[part][m][n].
template <int NX>
__global__ void __launch_bounds__(kc::gemv90::kThreads)
kc_gemv90_parts(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w, float* __restrict__ ws,
                int M, int N, int K, int C) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace kc::gemv90;
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t sbase = (uint32_t(__cvta_generic_to_shared(smem)) + 1023) & ~1023u;
  const int n0 = (blockIdx.x / C) * kRows, part = blockIdx.x % C;
  float d[NX / 2];
  part_chain<NX>(x, w, M, N, K, n0, part, C, sbase, d);
#pragma unroll
  for (int i = 0; i < NX / 2; ++i) {
    const int m = out_m(i), n = out_n(n0, i);
    if (m < M && n < N) ws[(size_t(part) * M + m) * N + n] = d[i];
  }
#else
  __trap();  // built for sm_90a only
#endif
}

namespace kc::gemv90 {
// The host side has internal linkage: a __global__ template's launch stub is local to each translation
// unit, so each one opts in (and launches) its own, and caches its own answers.
namespace {

// Does this translation unit's loaded image hold the wgmma bodies (kc::gemm90's answer)?
inline bool use() {
  static const bool yes = kc::gemm90::image_has_wgmma();
  return yes;
}

// Each kernel opts in to its dynamic shared memory once (false where that failed: the launch then says why).
template <int NX, int C, class Out> inline bool ready() {
  static const bool ok = cudaFuncSetAttribute(kc_gemv90<NX, C, Out>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              smem_bytes<NX>()) == cudaSuccess;
  return ok;
}
template <int NX> inline bool ready_parts() {
  static const bool ok = cudaFuncSetAttribute(kc_gemv90_parts<NX>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              smem_bytes<NX>()) == cudaSuccess;
  return ok;
}

// Every kernel of the form opted in (gate 5 checks each launch's dynamic shared bytes on the device
// before any runs): false where one failed.
template <class Out> inline bool prepare_all() {
  return ready<8, 1, Out>() & ready<8, 2, Out>() & ready<8, 4, Out>() & ready<8, 8, Out>() & ready<16, 1, Out>() &
         ready<16, 2, Out>() & ready<16, 4, Out>() & ready<16, 8, Out>() & ready<32, 1, Out>() & ready<32, 2, Out>() &
         ready<32, 4, Out>() & ready<32, 8, Out>() & ready_parts<8>() & ready_parts<16>() & ready_parts<32>();
}

// Clusters of kc_gemv90<NX, C, Out> the device holds at once (0 where that cannot be known).
template <int NX, int C, class Out> inline int clusters_at_once() {
  static const int n = [] {
    int c = 0;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(C);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = smem_bytes<NX>();
    if (!ready<NX, C, Out>() || cudaOccupancyMaxActiveClusters(&c, kc_gemv90<NX, C, Out>, &cfg)) {
      (void)cudaGetLastError();
      return 0;
    }
    return c;
  }();
  return n;
}
template <int NX, class Out> inline int parts_for(int tiles, int steps) {
  static_assert(kMaxParts == 8, "the part counts tried below");
  if (steps >= 8 && tiles <= clusters_at_once<NX, 8, Out>()) return 8;
  if (steps >= 4 && tiles <= clusters_at_once<NX, 4, Out>()) return 4;
  if (steps >= 2 && tiles <= clusters_at_once<NX, 2, Out>()) return 2;
  return 1;
}

// The form launch_gemv takes: x rows a launch (8, 16, 32) and parts of K (8, 4, 2, 1).
struct Form {
  int nx, parts;
};
template <class Out> inline Form form(int M, int N, int K) {
  const int nx = nx_of(M), tiles = (N + kRows - 1) / kRows, steps = (K + kStep - 1) / kStep;
  if (nx == 8) return {8, parts_for<8, Out>(tiles, steps)};
  if (nx == 16) return {16, parts_for<16, Out>(tiles, steps)};
  return {32, parts_for<32, Out>(tiles, steps)};
}
// Longest chain of roundings for an output of the form: the part's wgmma chain over at most
// ceil(steps / C) * 64 k (each k counted as three fp32 roundings, as gemv_depth counts an mma's), then
// C - 1 part adds.
inline double depth(long K, int parts) {
  const long steps = (K + kStep - 1) / kStep, per = (steps + parts - 1) / parts;
  const long terms = per * kStep < K ? per * kStep : K;
  return 3.0 * double(terms) + double(parts - 1);
}

// One kernel of the form (opted in first: a failed opt-in shows as the launch's error).
template <int NX, int C, class Out>
inline void launch_c(const __nv_bfloat16* x, const __nv_bfloat16* w, Out* y, int M, int N, int K, cudaStream_t st) {
  (void)ready<NX, C, Out>();
  const unsigned blocks = unsigned((N + kRows - 1) / kRows) * unsigned(C);
  kc_gemv90<NX, C, Out><<<blocks, kThreads, smem_bytes<NX>(), st>>>(x, w, y, M, N, K);
}
template <int NX, class Out>
inline void launch_nx(const __nv_bfloat16* x, const __nv_bfloat16* w, Out* y, int M, int N, int K, int C,
                      cudaStream_t st) {
  if (C == 8) launch_c<NX, 8, Out>(x, w, y, M, N, K, st);
  else if (C == 4) launch_c<NX, 4, Out>(x, w, y, M, N, K, st);
  else if (C == 2) launch_c<NX, 2, Out>(x, w, y, M, N, K, st);
  else launch_c<NX, 1, Out>(x, w, y, M, N, K, st);
}
template <class Out> inline void launch(const void* xv, const void* wv, Out* y, int M, int N, int K, cudaStream_t st) {
  const Form f = form<Out>(M, N, K);
  auto x = static_cast<const __nv_bfloat16*>(xv);
  auto w = static_cast<const __nv_bfloat16*>(wv);
  if (f.nx == 8) launch_nx<8, Out>(x, w, y, M, N, K, f.parts, st);
  else if (f.nx == 16) launch_nx<16, Out>(x, w, y, M, N, K, f.parts, st);
  else launch_nx<32, Out>(x, w, y, M, N, K, f.parts, st);
}
// The split-K form's kernel at x width NX and C parts, as blocks into ws (C * M * N floats; a failed
// opt-in shows as the launch's error).
template <int NX>
inline void launch_parts_nx(const __nv_bfloat16* x, const __nv_bfloat16* w, float* ws, int M, int N, int K, int C,
                            cudaStream_t st) {
  (void)ready_parts<NX>();
  const unsigned blocks = unsigned((N + kRows - 1) / kRows) * unsigned(C);
  kc_gemv90_parts<NX><<<blocks, kThreads, smem_bytes<NX>(), st>>>(x, w, ws, M, N, K, C);
}
// The split-K form: the parts of form<Out> as blocks into ws (parts * M * N floats); the caller meets them.
template <class Out> inline int launch_parts(const void* xv, const void* wv, float* ws, int M, int N, int K,
                                             cudaStream_t st) {
  const Form f = form<Out>(M, N, K);
  auto x = static_cast<const __nv_bfloat16*>(xv);
  auto w = static_cast<const __nv_bfloat16*>(wv);
  if (f.nx == 8) launch_parts_nx<8>(x, w, ws, M, N, K, f.parts, st);
  else if (f.nx == 16) launch_parts_nx<16>(x, w, ws, M, N, K, f.parts, st);
  else launch_parts_nx<32>(x, w, ws, M, N, K, f.parts, st);
  return f.parts;
}

}  // namespace
}  // namespace kc::gemv90
#endif
