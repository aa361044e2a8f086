// A row's second moment around a computed mean (Ctx::centred_squares, Ctx::welford): on hand rows the
// sum of squares' interval holds every mean within the mean's bound and grows with its square alone
// (where Track's own arithmetic grows with it to first order); gate 4's exact rows give a point; a
// Welford chain in fp32 lies inside its intervals, about float64's two-pass values, on spread and
// offset rows.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "formula/run.hpp"

namespace {

using kc::formula::Track;
namespace fd = kc::formula::detail;

// The kernel's mean: float64's, off by at most e (Track's bound on it).
Track mean_within(double v, double e) {
  Track t = Track::input(v);
  t.exact = false;
  t.a = e;
  return t;
}

float fp32_squares(const std::vector<double>& x, float mean) {
  float s = 0;
  for (double v : x) {
    const float d = float(v) - mean;
    s += d * d;
  }
  return s;
}

// x = 1, 2, 3, 4: mu = 2.5, sum (x - mu)^2 = 5. A kernel's mean 2.5 + d gives 5 + 4 d^2 exactly
// (the identity); with |d| <= 1/4 that is at most 5.25, where carrying d through each x - mean to
// first order would allow 5 + 2 (1/4) sum|x - mu| = 7.
TEST(Moments, CentredSquaresGrowWithTheMeansErrorSquared) {
  fd::tl_gamma = 0;
  const std::vector<double> x{1, 2, 3, 4};
  const Track s = fd::centred_squares(x.data(), 4, mean_within(2.5, 0.25), 0);
  ASSERT_TRUE(s.pinned);
  EXPECT_EQ(s.v, 5);
  EXPECT_LE(s.iv.lo, 5);
  EXPECT_GE(s.iv.lo, 5 * (1 - 1e-6));
  EXPECT_GE(s.iv.hi, 5.25);
  EXPECT_LE(s.iv.hi, 5.25 * (1 + 1e-6));
  // Every fp32 mean within the bound, each x - mean and square in fp32: inside.
  for (float m = 2.25f; m <= 2.75f; m = std::nextafter(m, 3.0f)) {
    const double got = fp32_squares(x, m);
    ASSERT_TRUE(got >= s.iv.lo && got <= s.iv.hi) << m << ": " << got;
  }
  // Track's own arithmetic on the same mean: first order in its error.
  Track t = Track::input(0);
  for (double v : x) t = t + (Track::input(v) - mean_within(2.5, 0.25)) * (Track::input(v) - mean_within(2.5, 0.25));
  EXPECT_GT(fd::error_of(t), 1.5);
}

// A mean that fp32 computes exactly, differences and squares exact, their sum below 2^24: a point.
TEST(Moments, ExactRowsGiveAPoint) {
  fd::tl_gamma = kc::gamma(64);
  const std::vector<double> x{-3, 5, 3, -5, 0, 7, -7, 0};
  const Track s = fd::centred_squares(x.data(), 8, Track::input(0), fd::tl_gamma);
  ASSERT_TRUE(s.pinned);
  EXPECT_EQ(s.iv.lo, 166);
  EXPECT_EQ(s.iv.hi, 166);
  // Not exact once the mean carries an error: gamma(depth) and the mean's square enter.
  const Track w = fd::centred_squares(x.data(), 8, mean_within(0, 1e-3), fd::tl_gamma);
  EXPECT_LT(w.iv.lo, 166);
  EXPECT_GT(w.iv.hi, 166 * (1 + kc::gamma(64)) + 8e-6 * 0.99);
}

// An offset row (1000 + 0.1 u): the mean a chain sum / n in fp32, with Track's bound; the squares
// summed in fp32 around it fall inside the interval, narrower than the sum itself, whose excess over
// float64's sum is a fraction of what Track's own arithmetic allows for the same sum (2 E sum|x -
// mean| + n E^2: first order in E).
TEST(Moments, CentredSquaresHoldAnFp32TwoPassOnOffsetRows) {
  std::mt19937_64 g(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n : {16, 64, 300}) {
    fd::tl_gamma = kc::gamma(n);
    for (int rep = 0; rep < 50; ++rep) {
      std::vector<double> x(static_cast<size_t>(n));
      for (auto& v : x) v = double(float(1000 + 0.1 * u(g)));
      float s = 0;
      Track ts = Track::input(0);
      for (double v : x) s += float(v), ts = ts + Track::input(v);
      const float mean = s / float(n);
      const Track tm = ts / double(n);
      ASSERT_LE(std::fabs(double(mean) - tm.v), fd::error_of(tm));
      const Track sq = fd::centred_squares(x.data(), n, tm, fd::tl_gamma);
      const double got = fp32_squares(x, mean);
      ASSERT_TRUE(got >= sq.iv.lo && got <= sq.iv.hi) << n << " " << rep << ": " << got << " [" << sq.iv.lo << ", " << sq.iv.hi << "]";
      EXPECT_LT(sq.iv.hi - sq.iv.lo, sq.v) << n;
      Track own = Track::input(0);
      for (double v : x) own = own + (Track::input(v) - tm) * (Track::input(v) - tm);
      EXPECT_LT(4 * (sq.iv.hi - sq.v), fd::error_of(own)) << n;
    }
  }
}

// Welford's chain in fp32, in column order, against float64: its mean and m2 inside the intervals,
// whose centres are float64's two-pass values; tight on a spread row, covering the offset rows' first
// order error.
TEST(Moments, AWelfordChainLiesInsideItsIntervals) {
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-4, 3);
  for (int n : {1, 2, 17, 64, 300, 1000})
    for (bool offset : {false, true})
      for (int rep = 0; rep < 30; ++rep) {
        std::vector<double> x(static_cast<size_t>(n));
        for (auto& v : x) v = double(float(offset ? 1000 + 0.01 * u(g) : std::ldexp(u(g), e(g))));
        float m = 0, m2 = 0;
        for (int j = 0; j < n; ++j) {
          const float d = float(x[size_t(j)]) - m;
          m += d / float(j + 1);
          m2 += d * (float(x[size_t(j)]) - m);
        }
        double s = 0, s2 = 0;
        for (double v : x) s += v;
        for (double v : x) s2 += (v - s / n) * (v - s / n);
        const auto w = fd::welford(x.data(), n);
        ASSERT_TRUE(w.mean.pinned && w.m2.pinned);
        EXPECT_EQ(w.mean.v, s / n);
        EXPECT_EQ(w.m2.v, s2);
        ASSERT_TRUE(m >= w.mean.iv.lo && m <= w.mean.iv.hi) << n << " " << offset << " " << rep;
        ASSERT_TRUE(m2 >= w.m2.iv.lo && m2 <= w.m2.iv.hi) << n << " " << offset << " " << rep << ": " << m2 << " ["
                                                          << w.m2.iv.lo << ", " << w.m2.iv.hi << "]";
        if (!offset && n > 1) EXPECT_LT(w.m2.iv.hi - w.m2.iv.lo, 1e-3 * s2) << n;
      }
}

}  // namespace
