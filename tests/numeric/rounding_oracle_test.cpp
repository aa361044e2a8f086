// The conversions to bf16, fp16 and fp32 against oracles that know nothing of how they are computed:
// every finite 16-bit value sorted, the neighbours of x found by search and the rule applied (for
// 16-bit formats), and the FPU's own conversion under each rounding mode (for fp32). Random doubles
// over each format's whole range, exact midpoints (ties) and values next to powers of two.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <random>
#include <vector>

#include "kc/numeric.hpp"

using kc::Round;

namespace {

struct Value {
  double v;
  uint16_t bits;
};

// Every finite value of a 16-bit format (one zero: +0), ascending.
template <class Decode> std::vector<Value> table(Decode decode) {
  std::vector<Value> t;
  for (uint32_t b = 0; b < 65536; ++b) {
    double v = decode(uint16_t(b));
    if (std::isfinite(v) && !(v == 0 && std::signbit(v))) t.push_back({v, uint16_t(b)});
  }
  std::sort(t.begin(), t.end(), [](const Value& a, const Value& b) { return a.v < b.v; });
  return t;
}

// The value x rounds to in direction r, from the table; NAN when x is past the largest finite value.
double oracle(const std::vector<Value>& t, double x, Round r) {
  if (x < t.front().v || x > t.back().v) return NAN;
  auto hi = std::lower_bound(t.begin(), t.end(), x, [](const Value& a, double v) { return a.v < v; });
  if (hi->v == x) return x;
  auto lo = hi - 1;
  if (r == Round::down) return lo->v;
  if (r == Round::up) return hi->v;
  double dl = x - lo->v, dh = hi->v - x;
  if (dl != dh) return dl < dh ? lo->v : hi->v;
  return (lo->bits & 1) == 0 ? lo->v : hi->v;  // a tie goes to the even pattern
}

std::vector<double> samples(int emin, int emax, int frac) {
  std::mt19937_64 g(20261129);
  std::vector<double> xs;
  for (int i = 0; i < 200000; ++i) {
    int e = emin - 3 + int(g() % uint64_t(emax - emin + 5));
    double m = 1 + double(g() >> 12) * 0x1p-52;
    double x = std::ldexp(m, e) * ((g() & 1) ? -1 : 1);
    xs.push_back(x);
    // The midpoint between x's two neighbours at `frac` bits (a tie), and the values beside it.
    double q = std::ldexp(1.0, std::max(e, emin) - frac);
    double mid = (std::floor(x / q) + 0.5) * q;
    xs.push_back(mid);
    xs.push_back(std::nextafter(mid, 0.0));
    xs.push_back(std::nextafter(mid, 1e300));
    xs.push_back(std::nextafter(std::ldexp(1.0, e), 0.0));
  }
  return xs;
}

template <class Conv, class Back>
void check16(const std::vector<Value>& t, int emin, int emax, int frac, Conv conv, Back back, const char* name) {
  size_t checked = 0;
  for (double x : samples(emin, emax, frac))
    for (Round r : {Round::nearest, Round::down, Round::up}) {
      double want = oracle(t, x, r);
      if (std::isnan(want)) continue;  // overflow has its own tests
      double got = back(conv(x, r));
      ASSERT_EQ(got, want) << name << " of " << std::hexfloat << x << " rounding " << int(r);
      if (want == 0) ASSERT_EQ(std::signbit(got), std::signbit(x)) << name << " of " << std::hexfloat << x;
      ++checked;
    }
  EXPECT_GT(checked, 2000000u);
}

}  // namespace

TEST(RoundingOracle, Bf16EveryModeAgreesWithTheSortedTable) {
  auto t = table([](uint16_t b) { return double(kc::from_bf16(kc::bf16{b})); });
  check16(t, -126, 127, 7, [](double x, Round r) { return kc::to_bf16(x, r); },
          [](kc::bf16 b) { return double(kc::from_bf16(b)); }, "bf16");
}

TEST(RoundingOracle, F16EveryModeAgreesWithTheSortedTable) {
  auto t = table([](uint16_t b) { return double(kc::from_f16(kc::f16{b})); });
  check16(t, -14, 15, 10, [](double x, Round r) { return kc::to_f16(x, r); },
          [](kc::f16 b) { return double(kc::from_f16(b)); }, "f16");
}

TEST(RoundingOracle, F32EveryModeAgreesWithTheFpu) {
  const int modes[] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD};
  const Round rounds[] = {Round::nearest, Round::down, Round::up};
  const int old = std::fegetround();
  size_t checked = 0;
  for (double x : samples(-126, 127, 23))
    for (int k = 0; k < 3; ++k) {
      if (std::fabs(x) > 0x1.fffffep127) continue;  // overflow has its own tests
      std::fesetround(modes[k]);
      volatile double vx = x;
      volatile float fpu = float(vx);
      std::fesetround(old);
      float got = kc::to_f32(x, rounds[k]);
      ASSERT_EQ(got, fpu) << std::hexfloat << x << " rounding " << k;
      ASSERT_EQ(std::signbit(got), std::signbit(fpu));
      ++checked;
    }
  std::fesetround(old);
  EXPECT_GT(checked, 2000000u);
}
