// Gate 4's replays: hand-worked sums in fp16 and bf16 in each order.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "kc/rig.hpp"

namespace {
using kc::SumFormat;
using kc::SumOrder;

TEST(Replay, OnesStallWhereTheFormatRunsOutOfBits) {
  std::vector<double> ones(4096, 1.0);
  // fp16 holds 11 bits: a chain of ones stops at 2048 (2048 + 1 ties to even 2048).
  EXPECT_EQ(kc::replay_sum(ones.data(), 4096, SumFormat::f16, SumOrder::chain), 2048);
  // Each half reaches 2048 exactly, and 2048 + 2048 is exact.
  EXPECT_EQ(kc::replay_sum(ones.data(), 4096, SumFormat::f16, SumOrder::halves), 4096);
  EXPECT_EQ(kc::replay_sum(ones.data(), 4096, SumFormat::f16, SumOrder::lanes32), 4096);
  // bf16 holds 8 bits: a chain stops at 256.
  EXPECT_EQ(kc::replay_sum(ones.data(), 4096, SumFormat::bf16, SumOrder::chain), 256);
  EXPECT_EQ(kc::replay_sum(ones.data(), 4096, SumFormat::bf16, SumOrder::halves), 512);
  // 32 lanes of 128 ones each are exact, and so is the tree over them.
  EXPECT_EQ(kc::replay_sum(ones.data(), 4096, SumFormat::bf16, SumOrder::lanes32), 4096);
  // 32 lanes of 512 ones stall at 256 each: 32 * 256.
  std::vector<double> more(32 * 512, 1.0);
  EXPECT_EQ(kc::replay_sum(more.data(), more.size(), SumFormat::bf16, SumOrder::lanes32), 8192);
}

TEST(Replay, TermsAreRoundedToo) {
  double t[2] = {1 + 0x1p-9, 1 + 0x1p-9};  // each rounds to 1 in bf16
  EXPECT_EQ(kc::replay_sum(t, 2, SumFormat::bf16, SumOrder::chain), 2);
}

TEST(Replay, Fp16Overflows) {
  std::vector<double> t(100, 1000.0);
  EXPECT_TRUE(std::isinf(kc::replay_sum(t.data(), 100, SumFormat::f16, SumOrder::chain)));
  EXPECT_TRUE(std::isfinite(kc::replay_sum(t.data(), 100, SumFormat::bf16, SumOrder::chain)));
  // Mirrored halves in fp16: +inf then -inf meet as NaN.
  std::vector<double> m(200, 1000.0);
  for (int i = 100; i < 200; ++i) m[i] = -1000.0;
  EXPECT_TRUE(std::isnan(kc::replay_sum(m.data(), 200, SumFormat::f16, SumOrder::halves)));
}

TEST(Replay, StrideSkipsBetweenTerms) {
  std::vector<double> t = {1, 100, 2, 100, 3, 100};
  EXPECT_EQ(kc::replay_sum(t.data(), 3, SumFormat::f16, SumOrder::chain, 2), 6);
  EXPECT_EQ(kc::replay_sum(t.data(), 3, SumFormat::bf16, SumOrder::lanes32, 2), 6);
  EXPECT_EQ(kc::replay_sum(t.data() + 1, 3, SumFormat::bf16, SumOrder::halves, 2), 300);
}

TEST(Replay, Names) {
  EXPECT_STREQ(kc::sum_format_name(SumFormat::bf16), "bf16");
  EXPECT_STREQ(kc::sum_order_name(SumOrder::lanes32), "lanes32");
  EXPECT_STREQ(kc::fill_name(kc::FillKind::sums), "sums");
}

}  // namespace
