// Track's bound holds every fp32 evaluation of the formula it follows (random operands over many
// binades, both signs, cancellations), and is not loose where it need not be: an exact operation adds
// nothing, a cancelling rotation is bounded on its terms (a bound on |y| alone fails it).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "formula/run.hpp"

namespace {

using kc::formula::Track;

struct Draw {
  std::mt19937_64 g{7};
  float operator()(int lo = -20, int hi = 20) {
    std::uniform_real_distribution<double> m(1, 2);
    std::uniform_int_distribution<int> e(lo, hi), s(0, 1);
    return float((s(g) ? -1 : 1) * std::ldexp(m(g), e(g)));
  }
};

double bound(const Track& t) { return t.a + kc::formula::detail::tl_gamma * t.m; }

TEST(Track, BoundsEveryFp32RotationAndQuotient) {
  Draw d;
  kc::formula::detail::tl_gamma = 0;
  for (int i = 0; i < 200000; ++i) {
    const float x0 = d(), x1 = d(), c = d(-3, 0), s = d(-3, 0), z = d(-3, 3);
    const Track y = Track::input(x0) * Track::input(c) - Track::input(x1) * Track::input(s);
    const float got = x0 * c - x1 * s;
    ASSERT_LE(std::fabs(double(got) - y.v), bound(y)) << i;
    const Track q = y / Track::input(z) + Track::input(x0) * 0.1;
    const float gq = got / z + x0 * 0.1f;
    ASSERT_LE(std::fabs(double(gq) - q.v), bound(q)) << i;
  }
}

TEST(Track, BoundsRootsAndExponentials) {
  Draw d;
  kc::formula::detail::tl_gamma = 0;
  for (int i = 0; i < 100000; ++i) {
    const float a = std::fabs(d(-10, 10)), b = d(-3, 3);
    const Track r = Track::input(a) * Track::input(a) + Track::input(b) * Track::input(b);
    const float gr = a * a + b * b;
    ASSERT_LE(std::fabs(double(gr) - r.v), bound(r)) << i;
  }
}

TEST(Track, ExactOperationsAddNothing) {
  kc::formula::detail::tl_gamma = 0;
  const Track p = Track::input(3) * Track::input(512) + Track::input(-7);
  EXPECT_TRUE(p.exact);
  EXPECT_EQ(p.a, 0);
  const Track q = Track::input(1) / Track::input(3);
  EXPECT_FALSE(q.exact);
  EXPECT_GT(q.a, 0);
  EXPECT_LE(q.a, 0x1p-24 / 3 * 1.0001 + 0x1p-150);
}

// The cancelling row of the rotary example: c and s one fp32 ulp apart, x0 = x1. fp32 gives a y whose
// error is near 2^-24 of its terms, far more than 2^-24 of y: the bound is on the terms.
TEST(Track, ACancellingRotationIsBoundedOnItsTerms) {
  kc::formula::detail::tl_gamma = 0;
  const float c = float(std::sqrt(0.5)), s = std::nextafter(c, 1.0f), x = 1.3f;
  const Track y = Track::input(x) * Track::input(c) - Track::input(x) * Track::input(s);
  const float got = x * c - x * s;
  const double err = std::fabs(double(got) - y.v);
  EXPECT_LE(err, bound(y));
  EXPECT_GT(err, 0x1p-24 * std::fabs(y.v) * 4) << "no cancellation: the case shows nothing";
}

TEST(Track, ConstantsFp32CannotHoldCarryTheirRounding) {
  const Track k(0.1);
  EXPECT_FALSE(k.exact);
  EXPECT_GE(k.a, std::fabs(double(0.1f) - 0.1));
  EXPECT_TRUE(Track(0.5).exact);
}

TEST(Track, SumsExactOnAGridAreFoundExact) {
  EXPECT_EQ(kc::formula::detail::low_bit(12), 2);
  EXPECT_EQ(kc::formula::detail::low_bit(0.75), -2);
  EXPECT_EQ(kc::formula::detail::code_round(kc::formula::Code::e4m3, 1000), 448);
  EXPECT_TRUE(std::isnan(kc::formula::detail::code_round(kc::formula::Code::e4m3, NAN)));
  EXPECT_EQ(kc::formula::detail::code_round(kc::formula::Code::int8, -300.6), -127);
}

}  // namespace
