// Conversions to the low-precision formats: at every midpoint between neighbouring values, just
// either side of it and at seeded random values, against a search over the format's finite values
// for the nearest (ties to the code with an even last bit); then each format's overflow rule and
// e8m0's directed roundings.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "kc/lowp.hpp"
#include "oracle.hpp"

namespace {
using kc::Round;
using kc::lowp::Format;
using kc::lowp::Sat;
namespace lo = kc::lowp;

// The nearest finite value's code by search; x within the format's range and of a sign it takes.
uint32_t nearest(Format f, double x) {
  const auto all = lowp_oracle::finite(f);
  double best = INFINITY;
  uint32_t code = 0;
  for (const auto& [c, v] : all) {
    if (v == 0 && std::signbit(v) != std::signbit(x)) continue;  // a zero keeps x's sign
    const double d = std::fabs(x - v);
    if (d < best || (d == best && (c & 1) == 0)) best = d, code = c;
  }
  return code;
}

// Every midpoint of neighbouring distinct values, a double ulp either side, and the values.
std::vector<double> probes(Format f) {
  std::vector<double> v;
  for (const auto& p : lowp_oracle::finite(f)) v.push_back(p.v);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::vector<double> out;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    const double mid = v[i] / 2 + v[i + 1] / 2;
    out.insert(out.end(), {mid, std::nextafter(mid, -INFINITY), std::nextafter(mid, INFINITY), v[i]});
  }
  std::mt19937_64 g(29);
  for (int i = 0; i < 4000; ++i)
    out.push_back(std::uniform_real_distribution<double>(v.front(), v.back())(g) *
                  (i % 2 ? 1 : std::ldexp(1.0, -int(g() % 12))));
  return out;
}

bool takes(Format f, double x) { return x >= 0 || (f != Format::e8m0 && f != Format::ue4m3); }

TEST(LowpRounding, NearestTiesToEvenAtEveryMidpoint) {
  for (Format f : lowp_oracle::kAll)
    for (double x : probes(f)) {
      if (!takes(f, x) || (f == Format::e8m0 && x < 0x1p-127)) continue;
      for (Sat s : {Sat::finite, Sat::none})
        ASSERT_EQ(lo::encode(f, x, s), nearest(f, x)) << lo::name(f) << " x=" << x;
    }
}

TEST(LowpRounding, NamedMidpoints) {
  EXPECT_EQ(lo::encode(Format::e4m3, 1.0625), 0x38u);    // 1 | 1.125: to 1 (even)
  EXPECT_EQ(lo::encode(Format::e4m3, 1.1875), 0x3Au);    // 1.125 | 1.25: to 1.25
  EXPECT_EQ(lo::encode(Format::e4m3, 0x1p-10), 0x00u);   // half the least subnormal: to 0
  EXPECT_EQ(lo::encode(Format::e4m3, -0x1p-10), 0x80u);  // and -0 below
  EXPECT_EQ(lo::encode(Format::e4m3, 3 * 0x1p-10), 0x02u);
  EXPECT_EQ(lo::encode(Format::e2m1, 0.25), 0x0u);
  EXPECT_EQ(lo::encode(Format::e2m1, 0.75), 0x2u);  // 0.5 | 1: to 1
  EXPECT_EQ(lo::encode(Format::e2m1, 2.5), 0x4u);   // to 2
  EXPECT_EQ(lo::encode(Format::e2m1, 3.5), 0x6u);   // to 4
  EXPECT_EQ(lo::encode(Format::e2m1, -5.0), 0xEu);  // to -4
  EXPECT_EQ(lo::encode(Format::e5m2, 1.125), 0x3Cu);
  EXPECT_EQ(lo::encode(Format::e5m2, 1.375), 0x3Eu);
  EXPECT_EQ(lo::encode(Format::e8m0, 3.0), 128u);  // 2 | 4: to 2 (code 128 even)
  EXPECT_EQ(lo::encode(Format::e8m0, 6.0), 130u);  // 4 | 8: to 8 (code 130 even)
  EXPECT_EQ(lo::encode(Format::e8m0, 5.9), 129u);
}

TEST(LowpRounding, OverflowRules) {
  // e4m3: satfinite clamps (Inf too); non-saturating gives NaN once the value rounds past 448.
  EXPECT_EQ(lo::encode(Format::e4m3, 464.0, Sat::none), 0x7Eu);  // the tie with 480 goes to 448
  EXPECT_EQ(lo::encode(Format::e4m3, std::nextafter(464.0, 1e9), Sat::none), 0x7Fu);
  EXPECT_EQ(lo::encode(Format::e4m3, -1e6, Sat::none), 0xFFu);
  EXPECT_EQ(lo::encode(Format::e4m3, INFINITY, Sat::none), 0x7Fu);
  EXPECT_EQ(lo::encode(Format::e4m3, 1e6, Sat::finite), 0x7Eu);
  EXPECT_EQ(lo::encode(Format::e4m3, -INFINITY, Sat::finite), 0xFEu);
  // e5m2: IEEE overflow to Inf at max + half an ulp (a tie, to the even Inf); satfinite clamps.
  EXPECT_EQ(lo::encode(Format::e5m2, 61440.0, Sat::none), 0x7Cu);
  EXPECT_EQ(lo::encode(Format::e5m2, std::nextafter(61440.0, 0.0), Sat::none), 0x7Bu);
  EXPECT_EQ(lo::encode(Format::e5m2, -INFINITY, Sat::none), 0xFCu);
  EXPECT_EQ(lo::encode(Format::e5m2, 61440.0, Sat::finite), 0x7Bu);
  EXPECT_EQ(lo::encode(Format::e5m2, INFINITY, Sat::finite), 0x7Bu);
  // e2m1 saturates in both modes.
  for (Sat s : {Sat::finite, Sat::none}) {
    EXPECT_EQ(lo::encode(Format::e2m1, 7.0, s), 0x7u);
    EXPECT_EQ(lo::encode(Format::e2m1, -INFINITY, s), 0xFu);
  }
  // e8m0: past 2^127 clamps or is NaN; below 2^-127 (zero too) is its least code.
  EXPECT_EQ(lo::encode(Format::e8m0, 0x1p128, Sat::finite), 0xFEu);
  EXPECT_EQ(lo::encode(Format::e8m0, 0x1p128, Sat::none), 0xFFu);
  EXPECT_EQ(lo::encode(Format::e8m0, INFINITY, Sat::finite), 0xFEu);
  EXPECT_EQ(lo::encode(Format::e8m0, 0x1p-140), 0x00u);
  EXPECT_EQ(lo::encode(Format::e8m0, 0.0), 0x00u);
  // The unsigned scales: a negative value is their NaN, -0 their zero.
  EXPECT_EQ(lo::encode(Format::e8m0, -1.0), 0xFFu);
  EXPECT_EQ(lo::encode(Format::ue4m3, -1.0), 0x7Fu);
  EXPECT_EQ(lo::encode(Format::ue4m3, -0.0), 0x00u);
  EXPECT_EQ(lo::encode(Format::ue4m3, 1e4), 0x7Eu);
}

TEST(LowpRounding, E8m0Directed) {
  for (uint32_t c = 0; c < 254; ++c) {
    const double v = lo::decode(Format::e8m0, c);
    for (double x : {v, v * 1.25, v * 1.5, v * 1.999}) {
      EXPECT_EQ(lo::encode(Format::e8m0, x, Sat::finite, Round::down), c) << x;
      EXPECT_EQ(lo::encode(Format::e8m0, x, Sat::finite, Round::up), x == v ? c : c + 1) << x;
    }
  }
  EXPECT_THROW(lo::encode(Format::e4m3, 1.0, Sat::finite, Round::up), kc::Error);
}

}  // namespace
