// The affine decode's bulk-copy form (kernels/affine/qmv/qmv_sm90a.cuh) launched on grids far
// smaller than its tiles, so that each block walks many tiles: its stage ring wraps many times, its
// tiles' meeting buffers are reused, and chunks end ragged in K (warps with no k) and tiles ragged in
// N. Each output within the fp32 bound of a float64 sum; no write past y. The contract's gates run
// the form only on the grid its launcher picks (a block a few tiles at most); this test is also what
// compute-sanitizer's racecheck and synccheck run on the H200 (scripts/h200_all.sh). Needs an sm_90
// device with the sm_90a image (skipped elsewhere, saying so).
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/affine/qmv/qmv.cuh"
#include "tests/cuda/bf16_fill.hpp"

namespace {

using kc_test::bf;
using kc_test::hash;
using kc_test::spread;

template <class Out> double value(const Out& o) {
  if constexpr (std::is_same_v<Out, float>) return o;
  else return double(__bfloat162float(o));
}

template <class T> T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  if (cudaMalloc(&d, h.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

// One shape on `grid` blocks (each walks tiles blockIdx.x, + grid, ...).
template <int GROUP, class Out> void check(int M, int N, int K, int grid) {
  SCOPED_TRACE(testing::Message() << "group " << GROUP << " M " << M << " N " << N << " K " << K << " grid " << grid
                                  << " out " << sizeof(Out) * 8 << "-bit");
  ASSERT_TRUE(kc::qmv90::fits<GROUP>(M, K));
  const int G = K / GROUP;
  const auto hx = spread(size_t(M) * K, 7u + uint32_t(K), -4, 9);
  const auto hs = spread(size_t(N) * G, 11u + uint32_t(N), -8, 5);
  const auto hb = spread(size_t(N) * G, 13u + uint32_t(N), -6, 5);
  std::vector<uint32_t> hq(size_t(N) * K / 8);
  for (size_t i = 0; i < hq.size(); ++i) hq[i] = hash(uint32_t(i), 17u + uint32_t(M));
  const size_t ny = size_t(M) * N, guard = 64;
  uint16_t *x = upload(hx), *s = upload(hs), *b = upload(hb);
  uint32_t* q = upload(hq);
  Out* y = nullptr;
  ASSERT_TRUE(x && s && b && q);
  ASSERT_EQ(cudaMalloc(&y, (ny + guard) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMemset(y, 0xA5, (ny + guard) * sizeof(Out)), cudaSuccess);
  kc::qmv90::launch<GROUP, Out>(x, q, s, b, y, M, N, K, 0, grid);  // the served launch, on `grid` blocks
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<Out> hy(ny + guard);
  ASSERT_EQ(cudaMemcpy(hy.data(), y, hy.size() * sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(x), cudaFree(s), cudaFree(b), cudaFree(q), cudaFree(y);

  // The float64 judge: y = sum_g s (sum x q) + b (sum x), and its magnitude sum_g |s| (sum |x| q) +
  // |b| (sum |x|), as the affine family computes them.
  const double depth = kc::qmv90::depth(K, GROUP), u = std::ldexp(1.0, -24);
  const bool f32 = std::is_same_v<Out, float>;
  size_t bad = 0, first = ny;
  for (size_t i = 0; i < ny; ++i) {
    const size_t m = i / N, n = i % N;
    double ref = 0, mag = 0;
    for (int g = 0; g < G; ++g) {
      double xq = 0, aq = 0, sx = 0, ax = 0;
      for (int k = g * GROUP; k < (g + 1) * GROUP; ++k) {
        const double xv = bf(hx[m * K + k]);
        const int code = int(hq[(n * size_t(K) + k) / 8] >> (4 * (k % 8))) & 15;
        xq += xv * code, aq += std::fabs(xv) * code, sx += xv, ax += std::fabs(xv);
      }
      const double sv = bf(hs[n * G + g]), bv = bf(hb[n * G + g]);
      ref += sv * xq + bv * sx, mag += std::fabs(sv) * aq + std::fabs(bv) * ax;
    }
    const double bound = depth * u * mag + (f32 ? 0.0 : std::ldexp(std::fabs(ref), -8)) + 1e-30;
    if (!(std::fabs(value(hy[i]) - ref) <= bound) && bad++ == 0) first = i;
  }
  EXPECT_EQ(bad, 0u) << "first at m " << first / N << " n " << first % N;
  const auto* raw = reinterpret_cast<const unsigned char*>(hy.data());
  for (size_t i = ny * sizeof(Out); i < hy.size() * sizeof(Out); ++i) ASSERT_EQ(raw[i], 0xA5) << "wrote past y";
}

// Host only (runs without a GPU): the shapes the form takes and its depth, against hand counts.
TEST(Qmv90, FitsAndDepthMatchHandCounts) {
  EXPECT_TRUE(kc::qmv90::fits<64>(1, 4096));
  EXPECT_TRUE(kc::qmv90::fits<64>(1, 14336));
  EXPECT_FALSE(kc::qmv90::fits<64>(8, 4096));   // x alone is 64 KiB: two blocks an SM do not fit
  EXPECT_FALSE(kc::qmv90::fits<64>(1, 4000));   // K not a multiple of 8 groups
  EXPECT_FALSE(kc::qmv90::fits<64>(9, 512));    // 1..8 rows
  EXPECT_TRUE(kc::qmv90::fits<32>(8, 2048));
  // 3 group (the group's chains), 1 (its fma), 2 a group of the slice's chain, 7 slice adds.
  EXPECT_EQ(kc::qmv90::depth(4096, 64), 3.0 * 64 + 1 + 2 * 8 + 7);    // 16 steps: 2 a slice, 4 groups each
  EXPECT_EQ(kc::qmv90::depth(512, 64), 3.0 * 64 + 1 + 2 * 4 + 7);     // 2 steps: 1 a slice
  EXPECT_EQ(kc::qmv90::depth(2304, 32), 3.0 * 32 + 1 + 2 * 16 + 7);   // 9 steps: 2 a slice, 8 groups each
  EXPECT_EQ(kc::qmv90::depth(1024, 128), 3.0 * 128 + 1 + 2 * 2 + 7);  // 4 steps: 1 a slice
}

TEST(Qmv90, BlocksWalkingManyTilesMatchFloat64) {
  int n = 0;
  const bool device = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  (void)cudaGetLastError();
  if (!device) GTEST_SKIP() << "no CUDA device: the bulk-copy form needs an sm_90 one";
  if (!kc::qmv90::use()) GTEST_SKIP() << "the bulk-copy form runs on an sm_90 device with the sm_90a image only";
  ASSERT_TRUE((kc::qmv90::prepare<32, __nv_bfloat16>() && kc::qmv90::prepare<32, float>()));
  ASSERT_TRUE((kc::qmv90::prepare<64, __nv_bfloat16>() && kc::qmv90::prepare<64, float>()));
  ASSERT_TRUE((kc::qmv90::prepare<128, __nv_bfloat16>() && kc::qmv90::prepare<128, float>()));
  // 5 tiles a block of 3 chunks (the ring of 3 stages wraps 5 times, the 4 meeting buffers once);
  // a ragged tile; one chunk of 2 slices; a last chunk of 1 slice; 8 rows; 3 chunks of 128-groups.
  check<64, __nv_bfloat16>(1, 160, 4608, 2);
  check<64, float>(1, 75, 1024, 1);
  check<64, float>(3, 160, 4608, 2);
  check<64, __nv_bfloat16>(2, 16, 512, 1);
  check<32, float>(1, 100, 2304, 2);
  check<32, __nv_bfloat16>(8, 41, 2048, 3);
  check<128, float>(1, 64, 5120, 1);
  check<128, __nv_bfloat16>(7, 20, 1024, 2);
}

}  // namespace
