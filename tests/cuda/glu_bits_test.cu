// The GLU rows' served steps (packed bf16x2 ops where a step is one op on bf16 values) against MLX's
// steps as written: each op in fp32, then rounded to bf16. Over every bf16 g (each in both halves of
// a word) and every bf16 u: the same bits, or NaN in both; and the packed product and sum alone over
// every pair. This is what lets kc_glu.cuh say its packed ops change nothing; the contract's float64
// reference judges the kernels themselves.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "kernels/rows/geglu/geglu.cuh"
#include "kernels/rows/swiglu/swiglu.cuh"

namespace {

using namespace kc::cu;

// MLX's steps, one element, every op in fp32 then rounded; the last product is left to the store.
struct GegluSteps {
  __device__ float operator()(float g, float u) const {
    const float a = rb(g * 0.70710678118654752440f);
    const float t = rb(erff(a));
    return rb(rb(0.5f * g) * rb(1.0f + t)) * u;
  }
};
struct SwigluSteps {
  __device__ float operator()(float g, float u) const {
    const float s = rb(1.0f / rb(1.0f + rb(expf(-g))));
    return rb(g * s) * u;
  }
};

__device__ bool same(uint32_t a, uint32_t b) {
  const bool na = (a & 0x7fffu) > 0x7f80u, nb = (b & 0x7fffu) > 0x7f80u;
  return na || nb ? na && nb : a == b;
}

struct Bad {
  unsigned long long count;
  uint32_t g, u, got, want;
};

// Thread: one g; loop: every u. Word: g and -g, u and a second u.
template <class Word, class Steps> __global__ void every_pair(Bad* bad) {
  const Word word{};
  const Steps steps{};
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t G = g | ((g ^ 0x8000u) << 16);
  for (uint32_t u = 0; u < 65536; ++u) {
    const uint32_t u2 = (u * 40503u + 12345u) & 0xffffu;
    const uint32_t U = u | (u2 << 16);
    const uint32_t Y = word(G, U);
    const uint32_t W = pack_bf16(steps(bf16_lo(G), bf16_lo(U)), steps(bf16_hi(G), bf16_hi(U)));
    if (!same(Y & 0xffffu, W & 0xffffu) || !same(Y >> 16, W >> 16)) {
      if (atomicAdd(&bad->count, 1ull) == 0) bad->g = G, bad->u = U, bad->got = Y, bad->want = W;
    }
  }
}

// The packed product and sum alone, over every pair of bf16 (a in both halves against b, b + 1).
__global__ void ops_every_pair(Bad* bad) {
  const uint32_t a = blockIdx.x * blockDim.x + threadIdx.x;
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint32_t A = a | (a << 16), B = b | (((b + 1) & 0xffffu) << 16);
    const uint32_t m = bf2_mul(A, B), s = bf2_add(A, B);
    const uint32_t wm = pack_bf16(bf16_lo(A) * bf16_lo(B), bf16_hi(A) * bf16_hi(B));
    const uint32_t ws = pack_bf16(bf16_lo(A) + bf16_lo(B), bf16_hi(A) + bf16_hi(B));
    const bool ok = same(m & 0xffffu, wm & 0xffffu) && same(m >> 16, wm >> 16) && same(s & 0xffffu, ws & 0xffffu) &&
                    same(s >> 16, ws >> 16);
    if (!ok && atomicAdd(&bad->count, 1ull) == 0) bad->g = A, bad->u = B, bad->got = m, bad->want = wm;
  }
}

bool have_device() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  (void)cudaGetLastError();
  return ok;
}

template <class K> Bad run(K kernel) {
  Bad* d = nullptr;
  Bad h{};
  EXPECT_EQ(cudaMalloc(&d, sizeof(Bad)), cudaSuccess);
  EXPECT_EQ(cudaMemset(d, 0, sizeof(Bad)), cudaSuccess);
  kernel<<<256, 256>>>(d);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(&h, d, sizeof(Bad), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  return h;
}

TEST(GluBits, PackedBf16OpsRoundOnceLikeFp32) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device: the packed bf16 ops need one";
  const Bad b = run(ops_every_pair);
  EXPECT_EQ(b.count, 0u) << std::hex << "a " << b.g << " b " << b.u << " got " << b.got << " want " << b.want;
}

TEST(GluBits, GegluStepsEqualFp32StepsForEveryPair) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device: the served GeGLU steps need one";
  const Bad b = run(every_pair<GegluWord, GegluSteps>);
  EXPECT_EQ(b.count, 0u) << std::hex << "g " << b.g << " u " << b.u << " got " << b.got << " want " << b.want;
}

TEST(GluBits, SwigluStepsEqualFp32StepsForEveryPair) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device: the served SwiGLU steps need one";
  const Bad b = run(every_pair<SwigluWord, SwigluSteps>);
  EXPECT_EQ(b.count, 0u) << std::hex << "g " << b.g << " u " << b.u << " got " << b.got << " want " << b.want;
}

}  // namespace
