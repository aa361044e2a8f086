// The affine decode's bulk-copy form (kernels/affine/qmv/qmv_sm90a.cuh: 2, 4, 8 bits) launched on grids far
// smaller than its tiles, so that each block walks many tiles: its stage ring wraps many times, its
// tiles' meeting buffers are reused, and chunks end ragged in K (warps with no k) and tiles ragged in
// N. Each output within the fp32 bound of a float64 sum; no write past y. The contract's gates run
// the form only on the grid its launcher picks (a block a few tiles at most); this test is also what
// compute-sanitizer's racecheck and synccheck run on the H200 (scripts/h200_all.sh). Needs an sm_90
// device with the sm_90a image (skipped elsewhere, saying so).
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels/affine/qmv/qmv.cuh"
#include "tests/cuda/affine_check.hpp"

namespace {

// One shape on `grid` blocks (each walks tiles blockIdx.x, + grid, ...).
template <int BITS, int GROUP, class Out> void check(int M, int N, int K, int grid) {
  SCOPED_TRACE(testing::Message() << "bits " << BITS << ", grid " << grid);
  ASSERT_TRUE((kc::qmv90::fits<BITS, GROUP>(M, K)));
  const double depth = kc::qmv90::depth<BITS>(K, GROUP);
  kc_test::check_affine<BITS, GROUP, Out>(M, N, K, depth, [&](auto x, auto q, auto s, auto b, Out* y) {
    kc::qmv90::launch<BITS, GROUP, Out>(x, q, s, b, y, M, N, K, 0, grid);  // the served launch, on `grid` blocks
  });
}

// Host only (runs without a GPU): the shapes the form takes and its depth, against hand counts.
TEST(Qmv90, FitsAndDepthMatchHandCounts) {
  EXPECT_TRUE((kc::qmv90::fits<4, 64>(1, 4096)));
  EXPECT_TRUE((kc::qmv90::fits<4, 64>(1, 14336)));
  EXPECT_FALSE((kc::qmv90::fits<4, 64>(8, 4096)));   // x alone is 64 KiB: two blocks an SM do not fit
  EXPECT_FALSE((kc::qmv90::fits<4, 64>(1, 4000)));   // K not a multiple of 8 groups
  EXPECT_FALSE((kc::qmv90::fits<4, 64>(9, 512)));    // 1..8 rows
  EXPECT_TRUE((kc::qmv90::fits<4, 32>(8, 2048)));
  EXPECT_TRUE((kc::qmv90::fits<8, 128>(1, 14336)));
  EXPECT_FALSE((kc::qmv90::fits<8, 64>(8, 4096)));
  EXPECT_FALSE((kc::qmv90::fits<8, 128>(1, 1536)));  // K not a multiple of 8 groups
  EXPECT_TRUE((kc::qmv90::fits<2, 64>(1, 4096)));
  EXPECT_TRUE((kc::qmv90::fits<2, 128>(8, 2048)));
  EXPECT_FALSE((kc::qmv90::fits<2, 32>(1, 4096)));   // 2 bits in groups of 64 and 128, 4 and 8 bits
  EXPECT_FALSE((kc::qmv90::fits<6, 64>(1, 4096)));
  // 3 group (the group's chains), 1 (its fma), 2 a group of the slice's chain, 7 slice adds.
  // 4 bits: steps of 256 k.
  EXPECT_EQ(kc::qmv90::depth<4>(4096, 64), 3.0 * 64 + 1 + 2 * 8 + 7);    // 16 steps: 2 a slice, 4 groups each
  EXPECT_EQ(kc::qmv90::depth<4>(512, 64), 3.0 * 64 + 1 + 2 * 4 + 7);     // 2 steps: 1 a slice
  EXPECT_EQ(kc::qmv90::depth<4>(2304, 32), 3.0 * 32 + 1 + 2 * 16 + 7);   // 9 steps: 2 a slice, 8 groups each
  EXPECT_EQ(kc::qmv90::depth<4>(1024, 128), 3.0 * 128 + 1 + 2 * 2 + 7);  // 4 steps: 1 a slice
  // 2 bits: steps of 512 k.
  EXPECT_EQ(kc::qmv90::depth<2>(4096, 64), 3.0 * 64 + 1 + 2 * 8 + 7);    // 8 steps: 1 a slice, 8 groups
  EXPECT_EQ(kc::qmv90::depth<2>(4608, 64), 3.0 * 64 + 1 + 2 * 16 + 7);   // 9 steps: 2 a slice
  EXPECT_EQ(kc::qmv90::depth<2>(1024, 128), 3.0 * 128 + 1 + 2 * 4 + 7);  // 2 steps: 1 a slice, 4 groups
  // 8 bits: steps of 128 k.
  EXPECT_EQ(kc::qmv90::depth<8>(4096, 64), 3.0 * 64 + 1 + 2 * 8 + 7);    // 32 steps: 4 a slice, 2 groups each
  EXPECT_EQ(kc::qmv90::depth<8>(2304, 32), 3.0 * 32 + 1 + 2 * 12 + 7);   // 18 steps: 3 a slice, 4 groups each
  EXPECT_EQ(kc::qmv90::depth<8>(1024, 128), 3.0 * 128 + 1 + 2 * 1 + 7);  // 8 steps: 1 a slice, 1 group
}

TEST(Qmv90, BlocksWalkingManyTilesMatchFloat64) {
  int n = 0;
  const bool device = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  (void)cudaGetLastError();
  if (!device) GTEST_SKIP() << "no CUDA device: the bulk-copy form needs an sm_90 one";
  if (!kc::qmv90::use()) GTEST_SKIP() << "the bulk-copy form runs on an sm_90 device with the sm_90a image only";
  ASSERT_TRUE((kc::qmv90::prepare<2, 64, __nv_bfloat16>() && kc::qmv90::prepare<2, 64, float>()));
  ASSERT_TRUE((kc::qmv90::prepare<2, 128, __nv_bfloat16>() && kc::qmv90::prepare<2, 128, float>()));
  ASSERT_TRUE((kc::qmv90::prepare<4, 32, __nv_bfloat16>() && kc::qmv90::prepare<4, 32, float>()));
  ASSERT_TRUE((kc::qmv90::prepare<4, 64, __nv_bfloat16>() && kc::qmv90::prepare<4, 64, float>()));
  ASSERT_TRUE((kc::qmv90::prepare<4, 128, __nv_bfloat16>() && kc::qmv90::prepare<4, 128, float>()));
  ASSERT_TRUE((kc::qmv90::prepare<8, 32, __nv_bfloat16>() && kc::qmv90::prepare<8, 32, float>()));
  ASSERT_TRUE((kc::qmv90::prepare<8, 64, __nv_bfloat16>() && kc::qmv90::prepare<8, 64, float>()));
  ASSERT_TRUE((kc::qmv90::prepare<8, 128, __nv_bfloat16>() && kc::qmv90::prepare<8, 128, float>()));
  // 5 tiles a block of 3 chunks (the ring of 3 stages wraps 5 times, the 4 meeting buffers once);
  // a ragged tile; one chunk of 2 slices; a last chunk of 1 slice; 8 rows; 3 chunks of 128-groups.
  check<4, 64, __nv_bfloat16>(1, 160, 4608, 2);
  check<4, 64, float>(1, 75, 1024, 1);
  check<4, 64, float>(3, 160, 4608, 2);
  check<4, 64, __nv_bfloat16>(2, 16, 512, 1);
  check<4, 32, float>(1, 100, 2304, 2);
  check<4, 32, __nv_bfloat16>(8, 41, 2048, 3);
  check<4, 128, float>(1, 64, 5120, 1);
  check<4, 128, __nv_bfloat16>(7, 20, 1024, 2);
  // 8 bits (chunks of 1,024 k): 5 tiles a block of 5 chunks, the last of 4 slices; a ragged tile; 3
  // chunks, the last of 2 slices; 8 rows; a group a step (128).
  check<8, 64, __nv_bfloat16>(1, 160, 4608, 2);
  check<8, 64, float>(3, 75, 1024, 1);
  check<8, 32, float>(1, 100, 2304, 2);
  check<8, 32, __nv_bfloat16>(8, 41, 2304, 3);
  check<8, 128, float>(1, 64, 5120, 1);
  check<8, 128, __nv_bfloat16>(7, 20, 1024, 2);
  // 2 bits (chunks of 4,096 k): 10 tiles a block of 2 chunks, the last of 1 slice; 3 rows; 8 rows and
  // a chunk of 2 slices; a ragged tile, 8 groups a step (64) and 4 (128).
  check<2, 64, __nv_bfloat16>(1, 160, 4608, 1);
  check<2, 64, float>(3, 75, 4608, 2);
  check<2, 128, float>(8, 41, 1024, 3);
  check<2, 128, __nv_bfloat16>(1, 20, 5120, 2);
}

}  // namespace
