// The decode GEMV's wgmma form (gemv_sm90a.cuh) at every x width and every part count, whichever the
// launcher would pick: the cluster form (parts met through distributed shared memory) against the
// split-K form's parts met from a workspace, bit for bit, at ragged N and K and where parts are empty
// (fewer 64-k steps than parts); no write past y; each output within the fp32 bound of a float64 sum.
// The contract's gate 3 runs only the part count the launcher picks at each of its shapes; this runs
// them all. Needs an sm_90 device with the sm_90a image (skipped elsewhere, saying so).
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/dense/gemv/gemv.cuh"
#include "tests/cuda/bf16_fill.hpp"

namespace {

using kc_test::bf;
using kc_test::spread;

double out_value(const uint8_t* p, bool f32) {
  if (f32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return bf(h);
}

// The served launchers at a chosen part count (the cluster form's, and the split-K form's parts and
// meeting).
template <int NX, int C, class Out> void cluster_form(const void* x, const void* w, void* y, int M, int N, int K) {
  kc::gemv90::launch_c<NX, C, Out>(static_cast<const __nv_bfloat16*>(x), static_cast<const __nv_bfloat16*>(w),
                                   static_cast<Out*>(y), M, N, K, 0);
}
template <int NX, class Out> void parts_form(const void* x, const void* w, float* ws, void* y, int M, int N, int K, int C) {
  kc::gemv90::launch_parts_nx<NX>(static_cast<const __nv_bfloat16*>(x), static_cast<const __nv_bfloat16*>(w), ws, M,
                                  N, K, C, 0);
  kc_gemv_bf16_meet<Out><<<(M * N + 255) / 256, 256>>>(ws, static_cast<Out*>(y), M * N, C);
}

// Both forms at one shape, x width NX and part count C; then the bound against float64.
template <int NX, int C, class Out>
void check(const std::vector<uint16_t>& hx, const std::vector<uint16_t>& hw, const void* x, const void* w, int M, int N,
           int K) {
  SCOPED_TRACE(testing::Message() << "M " << M << " N " << N << " K " << K << " x width " << NX << " parts " << C
                                  << " out " << sizeof(Out) * 8 << "-bit");
  const size_t ny = size_t(M) * N, guard = 64;
  void *y1 = nullptr, *y2 = nullptr;
  float* ws = nullptr;
  ASSERT_EQ(cudaMalloc(&y1, (ny + guard) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&y2, (ny + guard) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&ws, size_t(C) * ny * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(y1, 0xA5, (ny + guard) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMemset(y2, 0x5A, (ny + guard) * sizeof(Out)), cudaSuccess);
  cluster_form<NX, C, Out>(x, w, y1, M, N, K);
  parts_form<NX, Out>(x, w, ws, y2, M, N, K, C);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<uint8_t> h1((ny + guard) * sizeof(Out)), h2(h1.size());
  ASSERT_EQ(cudaMemcpy(h1.data(), y1, h1.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(h2.data(), y2, h2.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(y1), cudaFree(y2), cudaFree(ws);

  const bool f32 = sizeof(Out) == 4;
  const double depth = kc::gemv90::depth(K, C), u = std::ldexp(1.0, -24);
  size_t differ = 0, first = ny, out_of_bound = 0, worst = ny;
  for (size_t i = 0; i < ny; ++i) {
    if (std::memcmp(h1.data() + i * sizeof(Out), h2.data() + i * sizeof(Out), sizeof(Out)) != 0 && differ++ == 0)
      first = i;
    const size_t m = i / N, n = i % N;
    double ref = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      const double p = bf(hx[m * K + k]) * bf(hw[n * K + k]);
      ref += p, mag += std::fabs(p);
    }
    // fp32 chain and part adds, then the output's own rounding (bf16: half an ulp of 8 bits).
    const double bound = depth * u * mag + (f32 ? 0.0 : std::ldexp(std::fabs(ref), -8)) + 1e-30;
    if (std::fabs(out_value(h1.data() + i * sizeof(Out), f32) - ref) > bound && out_of_bound++ == 0) worst = i;
  }
  EXPECT_EQ(differ, 0u) << "first at m " << first / N << " n " << first % N;
  EXPECT_EQ(out_of_bound, 0u) << "first at m " << worst / N << " n " << worst % N;
  for (size_t i = ny * sizeof(Out); i < h1.size(); ++i) {
    ASSERT_EQ(h1[i], 0xA5) << "the cluster form wrote past y";
    ASSERT_EQ(h2[i], 0x5A) << "the parts' meeting wrote past y";
  }
}

template <int NX, class Out>
void every_part_count(const std::vector<uint16_t>& hx, const std::vector<uint16_t>& hw, const void* x, const void* w,
                      int M, int N, int K) {
  check<NX, 1, Out>(hx, hw, x, w, M, N, K);
  check<NX, 2, Out>(hx, hw, x, w, M, N, K);
  check<NX, 4, Out>(hx, hw, x, w, M, N, K);
  check<NX, 8, Out>(hx, hw, x, w, M, N, K);
}

// Host only (runs without a GPU): the x width by rows, and the depth gate 3's bound takes from the
// part count, against hand counts (3 roundings a k of the longest part's chain, then C - 1 adds).
TEST(Gemv90, XWidthAndDepthMatchHandCounts) {
  EXPECT_EQ(kc::gemv90::nx_of(1), 8);
  EXPECT_EQ(kc::gemv90::nx_of(8), 8);
  EXPECT_EQ(kc::gemv90::nx_of(9), 16);
  EXPECT_EQ(kc::gemv90::nx_of(16), 16);
  EXPECT_EQ(kc::gemv90::nx_of(17), 32);
  EXPECT_EQ(kc::gemv90::nx_of(32), 32);
  EXPECT_EQ(kc::gemv90::depth(4096, 1), 3.0 * 4096);          // one chain over every k
  EXPECT_EQ(kc::gemv90::depth(4096, 4), 3.0 * 1024 + 3);      // 16 steps, 4 a part
  EXPECT_EQ(kc::gemv90::depth(200, 2), 3.0 * 128 + 1);        // 4 steps (the last 8 k), 2 a part
  EXPECT_EQ(kc::gemv90::depth(1000, 8), 3.0 * 128 + 7);       // 16 steps, 2 a part
  EXPECT_EQ(kc::gemv90::depth(40, 8), 3.0 * 40 + 7);          // one short step; parts 1..7 empty
  EXPECT_EQ(kc::gemv90::depth(100, 8), 3.0 * 64 + 7);         // 2 steps: the first part's 64 k
}

TEST(Gemv90, ClusterMeetingEqualsPartsAtEveryPartCount) {
  int n = 0;
  const bool device = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  (void)cudaGetLastError();
  if (!device) GTEST_SKIP() << "no CUDA device: the wgmma form needs an sm_90 one";
  if (!kc::gemv90::use()) GTEST_SKIP() << "the wgmma form runs on an sm_90 device with the sm_90a image only";
  ASSERT_TRUE(kc::gemv90::prepare_all<__nv_bfloat16>());
  ASSERT_TRUE(kc::gemv90::prepare_all<float>());
  // M: each x width's least and most rows; N: one tile cut short, tiles and a ragged last one; K: one
  // step cut short (parts 2..8 empty), steps fewer than 8 parts, ragged past several steps.
  for (int M : {1, 8, 9, 16, 17, 32})
    for (int N : {13, 192, 333})
      for (int K : {40, 200, 1000}) {
        const auto hx = spread(size_t(M) * K, 11), hw = spread(size_t(N) * K, uint32_t(N * 31 + K));
        void *x = nullptr, *w = nullptr;
        ASSERT_EQ(cudaMalloc(&x, hx.size() * 2), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&w, hw.size() * 2), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(x, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
        const int nx = kc::gemv90::nx_of(M);
        if (nx == 8) every_part_count<8, __nv_bfloat16>(hx, hw, x, w, M, N, K), every_part_count<8, float>(hx, hw, x, w, M, N, K);
        if (nx == 16) every_part_count<16, __nv_bfloat16>(hx, hw, x, w, M, N, K), every_part_count<16, float>(hx, hw, x, w, M, N, K);
        if (nx == 32) every_part_count<32, __nv_bfloat16>(hx, hw, x, w, M, N, K), every_part_count<32, float>(hx, hw, x, w, M, N, K);
        cudaFree(x), cudaFree(w);
      }
}

}  // namespace
