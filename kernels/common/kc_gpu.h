// kc_gpu.h: one device source for CUDA and HIP (the way ggml shares its CUDA kernels with HIP).
//
// A kernel written against CUDA's spelling (__global__, threadIdx.x, __syncthreads, __shfl_xor_sync,
// atomicAdd, expf ...) includes this header first. Under nvcc it adds nothing but KC_WARP. Under
// clang's HIP mode it defines that spelling on clang's AMDGPU builtins, so the same text compiles
// with Debian's clang-19 and no ROCm at all:
//
//   clang-19 -x hip --offload-arch=gfx1100 --cuda-device-only --no-gpu-bundle-output -nogpulib \
//            -nogpuinc -O3 -I kernels/common -I kernels/common/hip_shim k.hip -o k_gfx1100.co
//
// (hip_shim/ stands in for <cuda_runtime.h> and friends when a CUDA file with host code is included
// whole.) With ROCm's headers present (hipcc, or __HIP_PLATFORM_AMD__) the real HIP definitions are
// used and this header adds only KC_WARP; in a host-only compile it adds KC_WARP and <cstdint>. Only
// what our kernels use is here; a kernel that needs more adds it here, once, for both.
#pragma once

#if defined(__CUDACC__)
// nvcc (or clang's CUDA mode with CUDA's headers): CUDA's own spelling is the spelling.
#define KC_WARP 32
#define KC_FULL_MASK 0xffffffffu

#elif defined(__HIP__) && (defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC_RTC__))
// ROCm's headers are in: they define CUDA's spelling for HIP themselves.
#define KC_WARP warpSize
#define KC_FULL_MASK 0xffffffffffffffffull

#elif defined(__HIP__)
// clang-19 -x hip -nogpuinc: no headers at all. Everything below maps onto clang builtins.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
// CUDA's __launch_bounds__(n) is the largest block a kernel is launched with; AMDGPU's flat work
// group size range says the same, and the compiler fits the kernel's VGPRs to it.
#define __launch_bounds__(...) __attribute__((amdgpu_flat_work_group_size(1, KC_FIRST_(__VA_ARGS__, 0))))
#define KC_FIRST_(a, ...) a
// CUDA's __maxnreg__(n) caps a thread's registers; AMDGPU's amdgpu_num_vgpr caps a lane's VGPRs,
// the same bound on the register file the kernel may use.
#define __maxnreg__(n) __attribute__((amdgpu_num_vgpr(n)))
#define __align__(n) __attribute__((aligned(n)))

// No C library either: the few standard types device code uses, from the compiler's own macros.
typedef __SIZE_TYPE__ size_t;
typedef __INT8_TYPE__ int8_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __INT16_TYPE__ int16_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __INT32_TYPE__ int32_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT64_TYPE__ uint64_t;

// Declared so that clang's own <new> wrapper parses when host C++ headers come along (a CUDA
// source whose registration sits beside its kernel); device code here never allocates, so they
// are never defined: a call would fail at link, by name.
extern "C" __attribute__((device)) void* malloc(size_t);
extern "C" __attribute__((device)) void free(void*);

// Our code objects are built for RDNA chips in wave32 (the default there).
#define KC_WARP 32
#define KC_FULL_MASK 0xffffffffu

namespace kc_gpu {
// threadIdx.x and friends: a member whose conversion reads the builtin, as CUDA's own headers do.
template <unsigned (*X)(), unsigned (*Y)(), unsigned (*Z)()>
struct Dim3Builtin {
  struct Xq { __device__ operator unsigned() const { return X(); } };
  struct Yq { __device__ operator unsigned() const { return Y(); } };
  struct Zq { __device__ operator unsigned() const { return Z(); } };
  Xq x;
  Yq y;
  Zq z;
};
__device__ inline unsigned tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ inline unsigned tid_y() { return __builtin_amdgcn_workitem_id_y(); }
__device__ inline unsigned tid_z() { return __builtin_amdgcn_workitem_id_z(); }
__device__ inline unsigned bid_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ inline unsigned bid_y() { return __builtin_amdgcn_workgroup_id_y(); }
__device__ inline unsigned bid_z() { return __builtin_amdgcn_workgroup_id_z(); }
__device__ inline unsigned bdim_x() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ inline unsigned bdim_y() { return __builtin_amdgcn_workgroup_size_y(); }
__device__ inline unsigned bdim_z() { return __builtin_amdgcn_workgroup_size_z(); }
__device__ inline unsigned gdim_x() { return __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(); }
__device__ inline unsigned gdim_y() { return __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(); }
__device__ inline unsigned gdim_z() { return __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z(); }
}  // namespace kc_gpu

__device__ static const kc_gpu::Dim3Builtin<kc_gpu::tid_x, kc_gpu::tid_y, kc_gpu::tid_z> threadIdx{};
__device__ static const kc_gpu::Dim3Builtin<kc_gpu::bid_x, kc_gpu::bid_y, kc_gpu::bid_z> blockIdx{};
__device__ static const kc_gpu::Dim3Builtin<kc_gpu::bdim_x, kc_gpu::bdim_y, kc_gpu::bdim_z> blockDim{};
__device__ static const kc_gpu::Dim3Builtin<kc_gpu::gdim_x, kc_gpu::gdim_y, kc_gpu::gdim_z> gridDim{};

// A workgroup barrier that also orders LDS and global memory, as __syncthreads does.
__device__ inline void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// __syncwarp: the wave's lanes meet (a wave32 RDNA wave runs its lanes together; this keeps the
// compiler from moving memory operations across it). __threadfence: device-scope ordering.
__device__ inline void __syncwarp(unsigned = 0xffffffffu) { __builtin_amdgcn_wave_barrier(); }
__device__ inline void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }

// Lane exchange through ds_bpermute (byte addresses). The mask is CUDA's; a wave32 RDNA wave runs
// its lanes together, so it only documents intent here.
__device__ inline int kc_bpermute(int lane, int v) { return __builtin_amdgcn_ds_bpermute(lane << 2, v); }
__device__ inline float __shfl_xor_sync(unsigned, float v, int mask, int width = KC_WARP) {
  int self = (int)__builtin_amdgcn_mbcnt_lo(~0u, 0u);
  int lane = self ^ mask;
  if (lane >= ((self & ~(width - 1)) + width)) lane = self;
  return __builtin_bit_cast(float, kc_bpermute(lane, __builtin_bit_cast(int, v)));
}
__device__ inline int __shfl_xor_sync(unsigned, int v, int mask, int width = KC_WARP) {
  int self = (int)__builtin_amdgcn_mbcnt_lo(~0u, 0u);
  int lane = self ^ mask;
  if (lane >= ((self & ~(width - 1)) + width)) lane = self;
  return kc_bpermute(lane, v);
}
__device__ inline int __shfl_up_sync(unsigned, int v, unsigned delta, int width = KC_WARP) {
  int self = (int)__builtin_amdgcn_mbcnt_lo(~0u, 0u);
  int lane = self - (int)delta;
  if (lane < (self & ~(width - 1))) lane = self;  // below the segment: the lane keeps its own value
  return kc_bpermute(lane, v);
}
__device__ inline _Float16 __shfl_xor_sync(unsigned m, _Float16 v, int mask, int width = KC_WARP) {
  const unsigned short u = __builtin_bit_cast(unsigned short, v);
  return __builtin_bit_cast(_Float16, (unsigned short)__shfl_xor_sync(m, (int)u, mask, width));
}
__device__ inline float __shfl_sync(unsigned, float v, int src, int width = KC_WARP) {
  int self = (int)__builtin_amdgcn_mbcnt_lo(~0u, 0u);
  return __builtin_bit_cast(float, kc_bpermute((self & ~(width - 1)) + (src & (width - 1)), __builtin_bit_cast(int, v)));
}

// Device atomics: relaxed, device scope, as CUDA's are.
__device__ inline float atomicAdd(float* p, float v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__device__ inline int atomicAdd(int* p, int v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__device__ inline unsigned atomicAdd(unsigned* p, unsigned v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// Math: the builtins lower to the chip's instructions with -nogpulib (no device library needed).
__device__ inline float expf(float x) { return __builtin_expf(x); }
__device__ inline float exp2f(float x) { return __builtin_exp2f(x); }
__device__ inline float logf(float x) { return __builtin_logf(x); }
__device__ inline float sqrtf(float x) { return __builtin_sqrtf(x); }
__device__ inline float rsqrtf(float x) { return __builtin_amdgcn_rsqf(x); }
__device__ inline float fabsf(float x) { return __builtin_fabsf(x); }
__device__ inline float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
__device__ inline float fminf(float a, float b) { return __builtin_fminf(a, b); }
__device__ inline float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
// erff without a device library: erf(x) = 2/sqrt(pi) e^(-x^2) sum_n 2^n x^(2n+1) / (2n+1)!!, a
// series of positive terms (no cancellation); x^2 split exactly by fma for e^(-x^2). Its accuracy is
// this shim's, not ROCm ocml's: a HIP runner states the ulps it measured before a gate relies on it.
__device__ inline float erff(float x) {
  const float a = __builtin_fabsf(x);
  if (!(a < 3.92f)) return __builtin_isnan(x) ? x : __builtin_copysignf(1.0f, x);  // erf rounds to +-1 there
  const float x2 = a * a, x2lo = __builtin_fmaf(a, a, -x2);
  float term = a, sum = a;
  for (int n = 1; n < 80; ++n) {
    term *= 2.0f * x2 / (2.0f * n + 1.0f);
    sum += term;
    if (term < sum * 0x1p-26f) break;
  }
  const float e = __builtin_expf(-x2) * (1.0f - x2lo);
  return __builtin_copysignf(1.1283791670955126f * e * sum, x);
}
__device__ inline bool isnan(float x) { return __builtin_isnan(x); }
__device__ inline bool isinf(float x) { return __builtin_isinf(x); }
__device__ inline float __int_as_float(int i) { return __builtin_bit_cast(float, i); }
__device__ inline int __float_as_int(float f) { return __builtin_bit_cast(int, f); }

// 16-bit floats: clang's _Float16 and __bf16 are native types on these chips; CUDA's names for
// them and their conversions (round to nearest even, as CUDA's are).
typedef _Float16 __half;
typedef __bf16 __nv_bfloat16;
__device__ inline float __half2float(__half h) { return (float)h; }
__device__ inline __half __float2half(float f) { return (__half)f; }
__device__ inline __half __hadd(__half a, __half b) { return a + b; }
__device__ inline __half __hmul(__half a, __half b) { return a * b; }
__device__ inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
__device__ inline __nv_bfloat16 __float2bfloat16(float f) { return (__nv_bfloat16)f; }
__device__ inline __half __float2half_rn(float f) { return (__half)f; }
__device__ inline unsigned short __half_as_ushort(__half h) { return __builtin_bit_cast(unsigned short, h); }
__device__ inline __half __ushort_as_half(unsigned short u) { return __builtin_bit_cast(__half, u); }

__device__ inline __nv_bfloat16 __float2bfloat16_rn(float f) { return (__nv_bfloat16)f; }
__device__ inline float __uint_as_float(unsigned u) { return __builtin_bit_cast(float, u); }
__device__ inline unsigned __float_as_uint(float f) { return __builtin_bit_cast(unsigned, f); }

// Vector types as CUDA lays them out (aligned to their size, members x, y, z, w).
struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; };
struct __attribute__((aligned(8))) uint2 { unsigned x, y; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(8))) int2 { int x, y; };
__device__ inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
__device__ inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }

// Read-only and streaming loads: cache hints on NVIDIA; plain loads here (the value is the same).
template <class T> __device__ inline T __ldg(const T* p) { return *p; }
template <class T> __device__ inline T __ldcs(const T* p) { return *p; }

struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) float2 { float x, y; };
__device__ inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
__device__ inline float2 make_float2(float x, float y) { return float2{x, y}; }

// Host launches in a shared header (kernel<<<grid, block, bytes, stream>>>) are parsed on the device
// side too, never emitted there: the code objects are device-only. These declarations let clang
// parse them; a host build of HIP uses ROCm's headers instead (the branch above).
typedef struct ihipStream_t* cudaStream_t;
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
extern "C" __host__ int __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);
extern "C" __host__ int __hipPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, cudaStream_t* stream);

#else
// A host-only compile (a benchmark or host test sharing a header's host-side helpers): no device
// spelling is defined; shared headers keep their device parts under __CUDACC__ / __HIP__.
#include <cstddef>
#include <cstdint>
#define KC_WARP 32
#endif

// ---- kc_mma_m16n8k16_bf16: d += a . b for one 16 x 8 x 16 tile, bf16 in, fp32 sums --------------
// In mma.sync's fragment layout (lane = 4 g + t): a[0] row g and a[1] row g + 8 at k slots 2t, 2t+1;
// a[2] row g and a[3] row g + 8 at k slots 2t+8, 2t+9; b0 column g at k slots 2t, 2t+1, b1 at 2t+8,
// 2t+9; d[0], d[1] row g at columns 2t, 2t+1, d[2], d[3] row g + 8 (low half of a word = lower slot).
// nvcc: the tensor-core instruction (sm_80 on). HIP: the same tile from the quad's lanes by lane
// exchange, each of d's 16 terms added by one fma (a chain of 16 fp32 roundings per tile),
// so the shared decode kernels keep one text; it is correct, not fast.
#if defined(__CUDACC__)
#include <cstdint>
__device__ __forceinline__ void kc_mma_m16n8k16_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#elif defined(__HIP__)
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC_RTC__)
__device__ inline uint32_t kc_lane_fetch(uint32_t v, int src) { return uint32_t(__shfl(int(v), src, 32)); }
#else
__device__ inline uint32_t kc_lane_fetch(uint32_t v, int src) { return uint32_t(kc_bpermute(src, int(v))); }
#endif
__device__ inline void kc_mma_m16n8k16_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  const int lane = int(__builtin_amdgcn_mbcnt_lo(~0u, 0u)) & 31, g = lane >> 2, t = lane & 3;
  auto lo = [](uint32_t w) { return __builtin_bit_cast(float, w << 16); };
  auto hi = [](uint32_t w) { return __builtin_bit_cast(float, w & 0xffff0000u); };
  for (int s = 0; s < 4; ++s) {  // k slots 2s, 2s+1 (words 0, 1) and 2s+8, 2s+9 (words 2, 3) of lane 4g+s
    uint32_t ar[4];
    for (int i = 0; i < 4; ++i) ar[i] = kc_lane_fetch(a[i], 4 * g + s);
    for (int j = 0; j < 2; ++j) {  // column 2t + j: b from lane 4 (2t + j) + s
      const uint32_t c0 = kc_lane_fetch(b0, 4 * (2 * t + j) + s), c1 = kc_lane_fetch(b1, 4 * (2 * t + j) + s);
      for (int h = 0; h < 2; ++h) {  // row g + 8h
        float& o = d[2 * h + j];
        o = __builtin_fmaf(lo(ar[h]), lo(c0), o);
        o = __builtin_fmaf(hi(ar[h]), hi(c0), o);
        o = __builtin_fmaf(lo(ar[h + 2]), lo(c1), o);
        o = __builtin_fmaf(hi(ar[h + 2]), hi(c1), o);
      }
    }
  }
}
#endif

// ---- kc_sm_count: the current device's SMs, asked once; 0 where it cannot be known (no device; the
// HIP parse).
inline int kc_sm_count() {
#if defined(__CUDACC__)
  static const int n = [] {
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) {
      (void)cudaGetLastError();
      return 0;
    }
    return sms;
  }();
  return n;
#else
  return 0;
#endif
}

// ---- kc_resident_blocks: blocks of kernel k (launched with `threads` a block, no dynamic shared
// memory) the device holds at once, SMs x occupancy: the grid of a kernel whose blocks walk its work.
// 0 where it cannot be known (no device; the HIP parse): the caller then launches a block an item.
inline int kc_resident_blocks(const void* k, int threads) {
#if defined(__CUDACC__)
  int per = 0;
  const int sms = kc_sm_count();
  if (!sms || cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, threads, 0)) {
    (void)cudaGetLastError();
    return 0;
  }
  return sms * per;
#else
  (void)k;
  (void)threads;
  return 0;
#endif
}

// ---- kc_prmt: PTX prmt's default mode, byte i of the result the byte of b:a (a bytes 0-3, b bytes
// 4-7) that nibble i of s names (s's nibbles 0-7 only: no sign replication). nvcc: one PRMT.
#if defined(__CUDACC__)
__device__ __forceinline__ uint32_t kc_prmt(uint32_t a, uint32_t b, uint32_t s) { return __byte_perm(a, b, s); }
#elif defined(__HIP__)
__device__ inline uint32_t kc_prmt(uint32_t a, uint32_t b, uint32_t s) {
  const uint64_t v = uint64_t(b) << 32 | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= uint32_t(v >> (8 * ((s >> (4 * i)) & 7)) & 0xffu) << (8 * i);
  return r;
}
#endif
