// Outward-rounded intervals: exact operations stay exact, inexact ones hold the true value, snap and
// rounded() give the format's values, NaN is its own interval.
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "kc/numeric.hpp"

namespace {
using kc::DType;
using kc::Interval;

TEST(Interval, ExactOperationsStayPoints) {
  Interval s = Interval::point(1) + Interval::point(2);
  EXPECT_EQ(s.lo, 3);
  EXPECT_EQ(s.hi, 3);
  Interval p = Interval::point(1.5) * Interval::point(-4);
  EXPECT_EQ(p.lo, -6);
  EXPECT_EQ(p.hi, -6);
  Interval q = Interval::point(1) / Interval::point(4);
  EXPECT_EQ(q.lo, 0.25);
  EXPECT_EQ(q.hi, 0.25);
}

TEST(Interval, InexactOperationsStepOutward) {
  Interval s = Interval::point(1) + Interval::point(0x1p-60);
  EXPECT_EQ(s.lo, 1);
  EXPECT_EQ(s.hi, std::nextafter(1.0, 2.0));
  Interval d = Interval::point(-1) - Interval::point(0x1p-60);
  EXPECT_EQ(d.lo, std::nextafter(-1.0, -2.0));
  EXPECT_EQ(d.hi, -1);
  Interval t = Interval::point(1) / Interval::point(3);
  EXPECT_LT(t.lo, t.hi);
  EXPECT_EQ(std::nextafter(t.lo, 1.0), t.hi);  // one ulp wide: 1/3 lies strictly inside
  // (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60: the 2^-60 is lost to rounding, so hi steps up.
  Interval m = Interval::point(1 + 0x1p-30) * Interval::point(1 + 0x1p-30);
  EXPECT_EQ(m.lo, 1 + 0x1p-29);
  EXPECT_EQ(m.hi, std::nextafter(1 + 0x1p-29, 2.0));
}

TEST(Interval, ProductsTakeEveryCorner) {
  Interval a = Interval::of(-2, 3), b = Interval::of(-5, 4);
  Interval p = a * b;
  EXPECT_EQ(p.lo, -15);
  EXPECT_EQ(p.hi, 12);
  Interval r = Interval::of(1, 2) / Interval::of(-4, -2);
  EXPECT_EQ(r.lo, -1);
  EXPECT_EQ(r.hi, -0.25);
  Interval z = Interval::of(1, 2) / Interval::of(-1, 1);
  EXPECT_TRUE(std::isinf(z.lo) && std::isinf(z.hi));
  EXPECT_TRUE((Interval::of(-1, 2) / Interval::of(-1, 1)).nan);
}

TEST(Interval, HoldsTheTruthOnRandomInputs) {
  // Each operation on two points must hold the exact result and be at most one ulp wide.
  uint64_t s = 12345;
  auto next = [&] {
    s += 0x9e3779b97f4a7c15ull;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (int i = 0; i < 20000; ++i) {
    double a = std::ldexp(static_cast<double>(next() >> 11) / 9007199254740992.0 - 0.5, int(next() % 40) - 20);
    double b = std::ldexp(static_cast<double>(next() >> 11) / 9007199254740992.0 - 0.5, int(next() % 40) - 20);
    if (b == 0) continue;
    Interval A = Interval::point(a), B = Interval::point(b);
    // long double carries 64 bits, so its result is within 2^-63 of the truth: the ends must
    // bracket it up to that slack, and be at most one double ulp apart.
    auto holds = [](const Interval& r, long double t) {
      long double slack = fabsl(t) * 0x1p-63L;
      EXPECT_LE(static_cast<long double>(r.lo), t + slack);
      EXPECT_GE(static_cast<long double>(r.hi), t - slack);
      EXPECT_LE(r.hi, std::nextafter(r.lo, INFINITY));
    };
    long double ta = a, tb = b;
    holds(A + B, ta + tb);
    holds(A - B, ta - tb);
    holds(A * B, ta * tb);
    holds(A / B, ta / tb);
    Interval quo = A / B;
    EXPECT_TRUE(quo.contains(a / b));
  }
}

TEST(Interval, WidenAddsRelativeAndAbsolute) {
  Interval w = Interval::of(-2, 4).widen(0.5, 1);
  EXPECT_EQ(w.lo, -4);
  EXPECT_EQ(w.hi, 7);
  Interval p = Interval::point(1).widen(0x1p-24);
  EXPECT_LE(p.lo, 1 - 0x1p-24);
  EXPECT_GE(p.hi, 1 + 0x1p-24);
}

TEST(Interval, SnapAndRounded) {
  // A bf16 value snaps to itself.
  Interval p = Interval::point(1 + 0x1p-7).snap(DType::bf16);
  EXPECT_EQ(p.lo, 1 + 0x1p-7);
  EXPECT_EQ(p.hi, 1 + 0x1p-7);
  // Between bf16 values: outward to both neighbours.
  Interval q = Interval::of(1 + 0x1p-9, 1 + 0x1p-8 + 0x1p-9).snap(DType::bf16);
  EXPECT_EQ(q.lo, 1);
  EXPECT_EQ(q.hi, 1 + 0x1p-7);
  // Round to nearest of the same set: 1 + 2^-9 -> 1, 1 + 3 * 2^-9 -> 1 + 2^-7.
  Interval r = Interval::of(1 + 0x1p-9, 1 + 3 * 0x1p-9).rounded(DType::bf16);
  EXPECT_EQ(r.lo, 1);
  EXPECT_EQ(r.hi, 1 + 0x1p-7);
  Interval t = Interval::of(1 + 0x1p-10, 1 + 0x1p-9).rounded(DType::bf16);
  EXPECT_EQ(t.lo, 1);
  EXPECT_EQ(t.hi, 1);
  EXPECT_TRUE(t.contains(1));
  EXPECT_FALSE(t.contains(1 + 0x1p-7));
  Interval h = Interval::of(65504, 70000).rounded(DType::f16);
  EXPECT_EQ(h.lo, 65504);
  EXPECT_TRUE(std::isinf(h.hi));
}

TEST(Interval, NanIsItsOwnInterval) {
  Interval n = Interval::point(std::nan(""));
  EXPECT_TRUE(n.nan);
  EXPECT_TRUE(n.contains(std::nan("")));
  EXPECT_FALSE(n.contains(0));
  EXPECT_FALSE(Interval::of(0, 1).contains(std::nan("")));
  EXPECT_TRUE((n + Interval::point(1)).nan);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE((Interval::point(inf) - Interval::point(inf)).nan);
  EXPECT_TRUE((Interval::point(0) * Interval::point(inf)).nan);
  EXPECT_EQ((Interval::point(inf) + Interval::point(1)).lo, inf);
  EXPECT_EQ(n.str(), "[NaN]");
}

TEST(Interval, MonotoneFunctionsHoldTheirValues) {
  for (double x : {-3.0, -0.5, 0.0, 0.1, 1.0, 2.5}) {
    Interval a = Interval::point(x);
    EXPECT_TRUE(kc::iv_exp(a).contains(std::exp(x)));
    EXPECT_TRUE(kc::iv_tanh(a).contains(std::tanh(x)));
    EXPECT_TRUE(kc::iv_erf(a).contains(std::erf(x)));
    EXPECT_LT(kc::iv_exp(a).lo, kc::iv_exp(a).hi);
  }
  Interval e = kc::iv_erf(Interval::of(-1, 2));
  EXPECT_LE(e.lo, std::erf(-1.0));
  EXPECT_GE(e.hi, std::erf(2.0));
  EXPECT_GE(kc::iv_tanh(Interval::of(-100, 100)).lo, -1);
  EXPECT_GE(kc::iv_exp(Interval::of(-1e4, 0)).lo, 0);
}

}  // namespace
