// The probe's kernels: each instruction on tiles whose rows are 32 bytes of K (16 bf16/fp16, 8
// tf32, 32 e4m3: every instruction here reads 32 bytes of a row). Experiment i of a tile is row i
// of A with row i of B^T and C[i][i]; the other rows are zero. mma.sync: one warp a tile, operands
// loaded by the fragment layouts of the PTX ISA. wgmma: one warpgroup a tile, A and B in the
// 128-byte swizzled K-major layout the dense GEMM uses (kernels/dense/gemm/gemm_sm90a.cuh).
#include <cuda_runtime.h>

#include <cstring>

#include "device.hpp"

namespace kc::tcprobe {
namespace {

constexpr int kRowWords = 8;  // 32 bytes
constexpr int kPerTile = 8;   // experiments a tile (n = 8)

template <int I> __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#define KC_MMA(S)                                                                                 \
  asm volatile(S " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"                   \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
  if constexpr (I == int(Instr::mma_bf16)) KC_MMA("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
  else if constexpr (I == int(Instr::mma_fp16)) KC_MMA("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  else if constexpr (I == int(Instr::mma_tf32)) KC_MMA("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  else KC_MMA("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
#else
  else __trap();
#endif
#undef KC_MMA
}

// A: tiles x 16 rows, B: tiles x 8 rows (of kRowWords words); C, D: tiles x 16 x 8.
template <int I> __global__ void k_mma(const uint32_t* A, const uint32_t* B, const float* C, float* D, int tiles) {
  const int t = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  if (t >= tiles) return;
  const uint32_t* a = A + size_t(t) * 16 * kRowWords;
  const uint32_t* b = B + size_t(t) * 8 * kRowWords;
  const float* c = C + size_t(t) * 128;
  float* dd = D + size_t(t) * 128;
  // Word q of a row holds k 2q, 2q + 1 (16-bit), k q (tf32) or k 4q..4q + 3 (e4m3): the same words.
  const uint32_t af[4] = {a[g * 8 + q], a[(g + 8) * 8 + q], a[g * 8 + q + 4], a[(g + 8) * 8 + q + 4]};
  const uint32_t bf[2] = {b[g * 8 + q], b[g * 8 + q + 4]};
  float d[4] = {c[g * 8 + 2 * q], c[g * 8 + 2 * q + 1], c[(g + 8) * 8 + 2 * q], c[(g + 8) * 8 + 2 * q + 1]};
  mma<I>(d, af, bf);
  dd[g * 8 + 2 * q] = d[0], dd[g * 8 + 2 * q + 1] = d[1], dd[(g + 8) * 8 + 2 * q] = d[2], dd[(g + 8) * 8 + 2 * q + 1] = d[3];
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint64_t desc128(uint32_t addr) {
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}
template <int I> __device__ __forceinline__ void wgmma(float (&d)[4], uint64_t da, uint64_t db) {
#define KC_WG(S, TAIL)                                                                            \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n" S " {%0,%1,%2,%3}, %4, %5, p, 1, 1" TAIL ";\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                               \
               : "l"(da), "l"(db), "r"(1))
  if constexpr (I == int(Instr::wgmma_bf16)) KC_WG("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", ", 0, 0");
  else if constexpr (I == int(Instr::wgmma_fp16)) KC_WG("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", ", 0, 0");
  else if constexpr (I == int(Instr::wgmma_tf32)) KC_WG("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", "");
  else KC_WG("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", "");
#undef KC_WG
}
#endif

// One block (a warpgroup) a tile. A: tiles x 64 rows, B: tiles x 8 rows; C, D: tiles x 64 x 8.
template <int I> __global__ void k_wgmma(const uint32_t* A, const uint32_t* B, const float* C, float* D) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ __align__(128) unsigned char raw[9 * 1024 + 1024];
  const uint32_t s0 = uint32_t(__cvta_generic_to_shared(raw)), sa = (s0 + 1023) & ~1023u, sb = sa + 8192;
  unsigned char* base = raw + (sa - s0);
  const int t = blockIdx.x, tid = threadIdx.x;
  const uint32_t* a = A + size_t(t) * 64 * kRowWords;
  const uint32_t* b = B + size_t(t) * 8 * kRowWords;
  {  // 16-byte chunk c of row r at r * 128 + ((c ^ (r & 7)) << 4)
    const int r = tid / 2, c = tid % 2;
    std::memcpy(base + r * 128 + ((c ^ (r & 7)) << 4), a + r * kRowWords + c * 4, 16);
    if (tid < 16) std::memcpy(base + 8192 + r * 128 + ((c ^ (r & 7)) << 4), b + r * kRowWords + c * 4, 16);
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const int warp = tid / 32, lane = tid % 32, row = warp * 16 + lane / 4, col = (lane % 4) * 2;
  const float* c = C + size_t(t) * 512;
  float d[4] = {c[row * 8 + col], c[row * 8 + col + 1], c[(row + 8) * 8 + col], c[(row + 8) * 8 + col + 1]};
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  wgmma<I>(d, desc128(sa), desc128(sb));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  for (float& x : d) asm volatile("" : "+f"(x)::"memory");
  float* dd = D + size_t(t) * 512;
  dd[row * 8 + col] = d[0], dd[row * 8 + col + 1] = d[1], dd[(row + 8) * 8 + col] = d[2], dd[(row + 8) * 8 + col + 1] = d[3];
#else
  (void)A, (void)B, (void)C, (void)D;
  __trap();
#endif
}

__global__ void k_image(int* is90a) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  *is90a = 1;
#else
  *is90a = 0;
#endif
}

std::string cuda_why(cudaError_t e, const char* what) { return std::string(what) + ": " + cudaGetErrorString(e); }

}  // namespace

Device device() {
  Device d;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    d.why = "no CUDA device";
    return d;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return d.why = "cudaGetDeviceProperties failed", d;
  d.name = p.name;
  (void)cudaDriverGetVersion(&d.driver);
  d.sm = "sm_" + std::to_string(p.major * 10 + p.minor);
  if (p.major * 10 + p.minor < 80) return d.why = d.sm + " is below sm_80 (no bf16/tf32 mma)", d.sm.clear(), d;
  int* flag = nullptr;
  int is90a = 0;
  if (cudaMalloc(&flag, sizeof(int)) == cudaSuccess) {
    k_image<<<1, 1>>>(flag);
    if (cudaMemcpy(&is90a, flag, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) is90a = 0;
    cudaFree(flag);
  }
  (void)cudaGetLastError();
  d.wgmma = is90a == 1;
  return d;
}

std::string run(const InstrInfo& in, std::vector<Exp>& exps) {
  const int M = in.wgmma ? 64 : 16, bytes = tc::operand_bits(in.fmt) / 8;
  const int tiles = int((exps.size() + kPerTile - 1) / kPerTile);
  std::vector<uint32_t> A(size_t(tiles) * M * kRowWords, 0), B(size_t(tiles) * 8 * kRowWords, 0);
  std::vector<float> C(size_t(tiles) * M * 8, 0.f), D(C.size(), 0.f);
  for (size_t e = 0; e < exps.size(); ++e) {
    const size_t t = e / kPerTile, i = e % kPerTile;
    auto* ar = reinterpret_cast<unsigned char*>(&A[(t * M + i) * kRowWords]);
    auto* br = reinterpret_cast<unsigned char*>(&B[(t * 8 + i) * kRowWords]);
    for (int k = 0; k < in.K; ++k) {  // little-endian codes, k in increasing addresses
      std::memcpy(ar + k * bytes, &exps[e].a[k], bytes);
      std::memcpy(br + k * bytes, &exps[e].b[k], bytes);
    }
    C[(t * M + i) * 8 + i] = exps[e].c;
  }
  uint32_t *dA = nullptr, *dB = nullptr;
  float *dC = nullptr, *dD = nullptr;
  cudaError_t err = cudaSuccess;
  auto fail = [&](const char* what) {
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dD);
    return cuda_why(err, what);
  };
  if ((err = cudaMalloc(&dA, A.size() * 4)) || (err = cudaMalloc(&dB, B.size() * 4)) ||
      (err = cudaMalloc(&dC, C.size() * 4)) || (err = cudaMalloc(&dD, D.size() * 4)))
    return fail("cudaMalloc");
  if ((err = cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice)) ||
      (err = cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice)) ||
      (err = cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice)))
    return fail("cudaMemcpy to the device");
  switch (in.id) {
#define KC_MMA_CASE(X) \
  case Instr::X: k_mma<int(Instr::X)><<<(tiles + 3) / 4, 128>>>(dA, dB, dC, dD, tiles); break;
#define KC_WG_CASE(X) \
  case Instr::X: k_wgmma<int(Instr::X)><<<tiles, 128>>>(dA, dB, dC, dD); break;
    KC_MMA_CASE(mma_bf16) KC_MMA_CASE(mma_fp16) KC_MMA_CASE(mma_tf32) KC_MMA_CASE(mma_e4m3)
    KC_WG_CASE(wgmma_bf16) KC_WG_CASE(wgmma_fp16) KC_WG_CASE(wgmma_tf32) KC_WG_CASE(wgmma_e4m3)
#undef KC_MMA_CASE
#undef KC_WG_CASE
  }
  if ((err = cudaGetLastError()) || (err = cudaDeviceSynchronize())) return fail(in.name);
  if ((err = cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost))) return fail("cudaMemcpy from the device");
  cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dD);
  for (size_t e = 0; e < exps.size(); ++e) exps[e].d = D[((e / kPerTile) * M + e % kPerTile) * 8 + e % kPerTile];
  return {};
}

}  // namespace kc::tcprobe
