// The host-side shape choice every register-kept rows kernel launches with: every served width fits
// the threads and vectors chosen, blocks hold whole rows, and the declared depths cover the chains.
#include <gtest/gtest.h>

#include "kernels/common/kc_rows.cuh"

using namespace kc::cu;

TEST(RowShape, EveryWidthFitsItsThreadsAndVectors) {
  for (long cols = 8; cols <= kMaxCols; cols += 8) {
    RowShape s = row_shape(cols);
    long nvec = cols / 8;
    ASSERT_TRUE(s.vpt == 1 || s.vpt == 2 || s.vpt == 4 || s.vpt == 8) << cols;
    ASSERT_TRUE(s.tpr == 32 || s.tpr == 64 || s.tpr == 128 || s.tpr == 256) << cols;
    ASSERT_GE(long(s.vpt) * s.tpr, nvec) << "cols " << cols << " do not fit";
    ASSERT_EQ(s.rpb * s.tpr, kBlock) << cols;
    // No wasted instantiation: one fewer vector a thread would not fit at 256 threads.
    if (s.vpt > 1) ASSERT_GT(nvec, long(s.vpt / 2) * kBlock) << cols;
    ASSERT_GE(row_depth(cols), double(cols) / s.tpr + 5) << cols;
    ASSERT_GE(loop_depth(cols), double(cols) / s.tpr + 5) << cols;
  }
}
