// The affine decode's mma.sync kernel (kernels/affine/qmv/qmv.cuh) at the W tiles it takes beyond 8
// rows: two 16-row mma tiles a block where qmv_w_tiles says so. The contract's gate 3 runs the 16-
// and 32-row forms ragged only at N = 1; here N ends inside the second mma tile of a 32-row tile
// (rows 16 + 5, 16 + 13) and past it, K ends inside a step, and N is large enough that blocks walk
// two tiles (the one meeting buffer of WT = 2 reused). Each output within the fp32 bound of a
// float64 sum; no write past y. Needs a CUDA device (skipped elsewhere, saying so).
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels/affine/qmv/qmv.cuh"
#include "tests/cuda/affine_check.hpp"

namespace {

using namespace kc::affine_cu;

template <int BITS, int GROUP, class Out> void check(int M, int N, int K) {
  ASSERT_GT(M, kRowsX) << "past 8 rows the mma.sync kernel runs on every device";
  const double depth = qmv_depth_at<BITS, GROUP>(M, K);
  kc_test::check_affine<BITS, GROUP, Out>(M, N, K, depth, [&](auto x, auto q, auto s, auto b, Out* y) {
    launch_qmv<BITS, GROUP, Out>(x, q, s, b, y, M, N, K, 0);  // the served launch
  });
}

// Host only: the entry's n tile (kRowsWMost) is a multiple of every W tile the kernel takes, and is
// one of them, so gate 3's edges of it are edges of each.
TEST(QmvTiles, EntryTileIsTheWidest) {
  int widest = 0;
  for (int bits : {2, 3, 4, 5, 6, 8})
    for (int group : {32, 64, 128})
      for (int mt : {1, 2, 4}) {
        const int rows = kRowsW * qmv_w_tiles(bits, group, mt);
        EXPECT_EQ(kRowsWMost % rows, 0) << bits << " bits, group " << group << ", " << mt << " x tiles";
        widest = rows > widest ? rows : widest;
      }
  EXPECT_EQ(widest, kRowsWMost);
  EXPECT_EQ(qmv_w_tiles(4, 64, 1), 1);  // up to 8 rows: one 16-row tile
}

TEST(QmvTiles, WideTilesMatchFloat64) {
  int n = 0;
  const bool device = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  (void)cudaGetLastError();
  if (!device) GTEST_SKIP() << "no CUDA device";
  // 32-row kernels (2 and 4 bits take two tiles; 4 bits in groups of 128 one); K ends 3 groups into
  // a step; N ends 5 and 13 rows into the second mma tile, and 15 rows into a second 32-row tile.
  check<4, 64, __nv_bfloat16>(17, 21, 2240);
  check<4, 64, float>(32, 47, 2240);
  check<2, 64, float>(32, 29, 1088);
  check<4, 32, __nv_bfloat16>(24, 29, 544);
  check<4, 128, __nv_bfloat16>(24, 21, 1024);
  // 16-row kernels (two tiles at 3, 5, 8 bits; 2 bits one).
  check<3, 64, __nv_bfloat16>(9, 21, 640);
  check<5, 128, float>(12, 29, 1152);
  check<8, 64, float>(16, 47, 2112);
  check<2, 64, __nv_bfloat16>(16, 21, 576);
  // More 32-row tiles than blocks the device holds (132 on an H200): blocks walk two tiles.
  check<4, 64, __nv_bfloat16>(20, 4500, 576);
  check<8, 64, float>(10, 4400, 512);
}

}  // namespace
