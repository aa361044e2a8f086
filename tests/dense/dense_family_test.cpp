// The dense family: gate 4's fills (exact in fp32 in any order, lost by fp16/bf16 in every replay
// order), the float64 reference and magnitude on hand-computed cases, the depth helpers, and the
// classes gate 1's plants give.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "../../kernels/dense/cpu/dense_cpu.hpp"
#include "kc/families/dense.hpp"
#include "kc/numeric.hpp"

namespace {
using namespace kc;

// An fp32 sum of the terms in the given order.
double f32_sum(const std::vector<double>& t, const std::vector<size_t>& order) {
  float s = 0;
  for (size_t i : order) s += float(t[i]);
  return s;
}

TEST(DenseSums, RowsAreExactInFp32InAnyOrder) {
  for (int64_t k : {4, 5, 64, 65, 66, 72, 127, 200, 1024, 4096, 14336, 16384}) {
    std::vector<double> xs, ws;
    dense::sums_rows(k, 11 + k, 29 * k, xs, ws);
    std::vector<double> t(static_cast<size_t>(k));
    double exact = 0, mag = 0;
    for (int64_t j = 0; j < k; ++j) {
      EXPECT_EQ(xs[j], std::nearbyint(xs[j]));
      EXPECT_EQ(double(from_bf16(to_bf16(float(xs[j])))), xs[j]) << "x not exact in bf16 at k=" << k;
      EXPECT_EQ(double(from_bf16(to_bf16(float(ws[j])))), ws[j]) << "w not exact in bf16 at k=" << k;
      t[j] = xs[j] * ws[j];
      exact += t[j];
      mag += std::fabs(t[j]);
    }
    // Every partial sum in any order is bounded by the magnitude: below 2^24, all integers.
    EXPECT_LT(mag, 0x1p24) << "k=" << k;
    EXPECT_NE(exact, 0) << "k=" << k;
    EXPECT_LE(std::fabs(exact), 31) << "k=" << k;
    std::vector<size_t> order(static_cast<size_t>(k));
    std::iota(order.begin(), order.end(), 0);
    EXPECT_EQ(f32_sum(t, order), exact);
    std::reverse(order.begin(), order.end());
    EXPECT_EQ(f32_sum(t, order), exact);
    std::mt19937 g(static_cast<unsigned>(k));
    std::shuffle(order.begin(), order.end(), g);
    EXPECT_EQ(f32_sum(t, order), exact);
  }
}

TEST(DenseSums, Fp16AndBf16ReplaysMissByAHundredTimesTheExactBound) {
  for (int64_t k : {64, 65, 72, 200, 1024, 4096, 16384}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      std::vector<double> xs, ws;
      dense::sums_rows(k, seed, seed * 7 + 1, xs, ws);
      std::vector<double> t(static_cast<size_t>(k));
      double exact = 0;
      for (int64_t j = 0; j < k; ++j) exact += (t[j] = xs[j] * ws[j]);
      // The exact-sum bound for a bf16 output (the looser of our output types).
      double bound = std::fabs(exact) * half_ulp(DType::bf16) + half_ulp_floor(DType::bf16);
      for (SumFormat f : {SumFormat::f16, SumFormat::bf16})
        for (SumOrder o : {SumOrder::chain, SumOrder::halves, SumOrder::lanes32}) {
          double r = replay_sum(t.data(), t.size(), f, o);
          double miss = std::isfinite(r) ? std::fabs(r - exact) : INFINITY;
          EXPECT_GE(miss, 100 * bound) << "k=" << k << " " << sum_format_name(f) << " " << sum_order_name(o)
                                       << " replay " << r << " exact " << exact;
        }
    }
  }
}

// A case prepared by the family, then given hand-picked values.
Case hand_case(DType out, int64_t m, int64_t n, int64_t k, Entry& e) {
  e = dense::projection(out);
  Case c(Shape{{"m", m}, {"n", n}, {"k", k}}, Fill{FillKind::random}, 5);
  e.rig.prepare(c);
  return c;
}

TEST(DenseReference, WantAndMagnitudeByHand) {
  Entry e;
  Case c = hand_case(DType::f32, 2, 2, 3, e);
  auto x = c.get_mut<bf16>("x");
  auto w = c.get_mut<bf16>("w");
  const float xv[] = {1, -2, 0.5f, 3, 0.25f, -4};   // x rows: [1 -2 .5], [3 .25 -4]
  const float wv[] = {2, 1, -8, -1, 4, 0.5f};       // w rows: [2 1 -8], [-1 4 .5]
  for (int i = 0; i < 6; ++i) x[i] = to_bf16(xv[i]), w[i] = to_bf16(wv[i]);
  auto exp = e.rig.reference(c);
  ASSERT_EQ(exp.size(), 1u);
  EXPECT_EQ(exp[0].name, "y");
  // y[0,0] = 2 - 2 - 4 = -4, |.| = 2 + 2 + 4 = 8;   y[0,1] = -1 - 8 + .25 = -8.75, 1 + 8 + .25
  // y[1,0] = 6 + .25 + 32 = 38.25, same;           y[1,1] = -3 + 1 - 2 = -4, 3 + 1 + 2 = 6
  EXPECT_EQ(exp[0].want, (std::vector<double>{-4, -8.75, 38.25, -4}));
  EXPECT_EQ(exp[0].mag, (std::vector<double>{8, 9.25, 38.25, 6}));
}

TEST(DenseDepth, SlicesByHand) {
  EXPECT_EQ(dense::slice_depth(1000, 4, 3), 253);
  EXPECT_EQ(dense::slice_depth(1001, 4, 3), 254);
  EXPECT_EQ(dense::slice_depth(64, 1, 0), 64);
  EXPECT_EQ(dense_cpu::depth(Shape{{"m", 1}, {"n", 1}, {"k", 1000}}), 253);
  EXPECT_EQ(dense_cpu::depth(Shape{{"m", 1}, {"n", 1}, {"k", 1}}), 4);
}

TEST(DenseNonfinite, PlantsGiveTheClassesOfFloat64) {
  Entry e = dense::projection(DType::bf16);
  ASSERT_GT(e.rig.plants.size(), 8u);  // today's eight first (dense_plants_test.cpp: the rest)
  const int64_t M = 3, N = 5, K = 40;
  for (int p = 0; p < 8; ++p) {
    Case c(Shape{{"m", M}, {"n", N}, {"k", K}}, Fill{FillKind::nonfinite, p}, 9);
    e.rig.prepare(c);
    auto exp = e.rig.reference(c);
    const auto& want = exp[0].want;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        bool hit = p < 4 ? m == M - 1 : n == N - 1;
        FClass cl = fclass(want[m * N + n]);
        if (!hit) {
          EXPECT_EQ(cl, FClass::finite) << e.rig.plants[p];
        } else if (p % 4 == 0) {
          EXPECT_EQ(cl, FClass::nan) << e.rig.plants[p];
        } else if (p % 4 == 3) {
          EXPECT_TRUE(cl != FClass::finite) << e.rig.plants[p];
        } else {
          EXPECT_TRUE(cl == FClass::pinf || cl == FClass::ninf) << e.rig.plants[p];
        }
      }
  }
}

}  // namespace
