// fp16 / bf16 / f32 conversions: every 16-bit pattern round-trips, each rounding direction at ties,
// subnormals and overflow, NaN payloads, and one rounding from double (never two).
#include <bit>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "kc/numeric.hpp"

namespace {
using kc::Round;
constexpr Round kAll[] = {Round::nearest, Round::down, Round::up};

uint16_t bf(double x, Round r) { return kc::to_bf16(x, r).bits; }
uint16_t hf(double x, Round r) { return kc::to_f16(x, r).bits; }
float f32(uint32_t b) { return std::bit_cast<float>(b); }

TEST(Convert, EveryBf16RoundTripsThroughFloatAndDouble) {
  for (uint32_t b = 0; b < 65536; ++b) {
    kc::bf16 x{static_cast<uint16_t>(b)};
    float f = kc::from_bf16(x);
    EXPECT_EQ(std::bit_cast<uint32_t>(f), b << 16);
    // Widening a signalling NaN to double sets its quiet bit (the hardware does): via double a NaN
    // comes back quiet, with its sign and payload.
    uint32_t via_double = std::isnan(f) ? (b | 0x40) : b;
    for (Round r : kAll) {
      ASSERT_EQ(kc::to_bf16(f, r).bits, b) << "via float, pattern " << b;
      ASSERT_EQ(kc::to_bf16(static_cast<double>(f), r).bits, via_double) << "via double, pattern " << b;
    }
  }
}

TEST(Convert, EveryF16RoundTripsThroughFloatAndDouble) {
  int nans = 0, subnormals = 0;
  for (uint32_t b = 0; b < 65536; ++b) {
    kc::f16 x{static_cast<uint16_t>(b)};
    float f = kc::from_f16(x);
    if (std::isnan(f)) ++nans;
    if (f != 0 && std::fabs(f) < 0x1p-14f) ++subnormals;
    uint32_t via_double = std::isnan(f) ? (b | 0x200) : b;
    for (Round r : kAll) {
      ASSERT_EQ(kc::to_f16(f, r).bits, b) << "via float, pattern " << b;
      ASSERT_EQ(kc::to_f16(static_cast<double>(f), r).bits, via_double) << "via double, pattern " << b;
    }
  }
  EXPECT_EQ(nans, 2 * 1023);
  EXPECT_EQ(subnormals, 2 * 1023);
}

TEST(Convert, F16DecodesKnownValues) {
  EXPECT_EQ(kc::from_f16({0x3c00}), 1.0f);
  EXPECT_EQ(kc::from_f16({0xc000}), -2.0f);
  EXPECT_EQ(kc::from_f16({0x7bff}), 65504.0f);
  EXPECT_EQ(kc::from_f16({0x0001}), 0x1p-24f);
  EXPECT_EQ(kc::from_f16({0x03ff}), 1023 * 0x1p-24f);
  EXPECT_EQ(kc::from_f16({0x0400}), 0x1p-14f);
  EXPECT_EQ(kc::from_f16({0x7c00}), std::numeric_limits<float>::infinity());
  EXPECT_EQ(kc::from_f16({0xfc00}), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::signbit(kc::from_f16({0x8000})));
}

TEST(Convert, Bf16TiesAndDirections) {
  // 1 + 2^-8 lies halfway between 1 (0x3f80, even) and 1 + 2^-7 (0x3f81).
  EXPECT_EQ(bf(1 + 0x1p-8, Round::nearest), 0x3f80);
  EXPECT_EQ(bf(1 + 0x1p-8, Round::down), 0x3f80);
  EXPECT_EQ(bf(1 + 0x1p-8, Round::up), 0x3f81);
  // 1 + 3 * 2^-8 lies halfway between 0x3f81 and 0x3f82 (even).
  EXPECT_EQ(bf(1 + 3 * 0x1p-8, Round::nearest), 0x3f82);
  EXPECT_EQ(bf(1 + 3 * 0x1p-8, Round::down), 0x3f81);
  // Negative values: down goes away from zero.
  EXPECT_EQ(bf(-(1 + 0x1p-8), Round::nearest), 0xbf80);
  EXPECT_EQ(bf(-(1 + 0x1p-8), Round::down), 0xbf81);
  EXPECT_EQ(bf(-(1 + 0x1p-8), Round::up), 0xbf80);
  // Just off the tie.
  EXPECT_EQ(bf(1 + 0x1p-8 + 0x1p-30, Round::nearest), 0x3f81);
  EXPECT_EQ(bf(1 + 0x1p-8 - 0x1p-30, Round::nearest), 0x3f80);
}

TEST(Convert, F16TiesAndDirections) {
  // 1 + 2^-11 lies halfway between 1 (0x3c00) and 1 + 2^-10 (0x3c01).
  EXPECT_EQ(hf(1 + 0x1p-11, Round::nearest), 0x3c00);
  EXPECT_EQ(hf(1 + 0x1p-11, Round::up), 0x3c01);
  EXPECT_EQ(hf(1 + 3 * 0x1p-11, Round::nearest), 0x3c02);
  EXPECT_EQ(hf(-(1 + 3 * 0x1p-11), Round::down), 0xbc02);
  EXPECT_EQ(hf(-(1 + 3 * 0x1p-11), Round::up), 0xbc01);
  // 2049 lies halfway between 2048 and 2050: even is 2048.
  EXPECT_EQ(kc::from_f16(kc::to_f16(2049.0f)), 2048.0f);
  EXPECT_EQ(kc::from_f16(kc::to_f16(2051.0f)), 2052.0f);
}

TEST(Convert, OneRoundingFromDouble) {
  // Through float first, 1 + 2^-8 + 2^-40 would become the tie 1 + 2^-8 and then round to even (1);
  // rounded once it is above the tie.
  double x = 1 + 0x1p-8 + 0x1p-40;
  EXPECT_EQ(kc::to_bf16(static_cast<float>(x)).bits, 0x3f80);
  EXPECT_EQ(bf(x, Round::nearest), 0x3f81);
  double y = 1 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(hf(y, Round::nearest), 0x3c01);
  // f32 from double: 1 + 2^-24 is a tie (to 1), 1 + 2^-24 + 2^-60 is not.
  EXPECT_EQ(kc::to_f32(1 + 0x1p-24, Round::nearest), 1.0f);
  EXPECT_EQ(kc::to_f32(1 + 0x1p-24 + 0x1p-40, Round::nearest), 1 + 0x1p-23f);
  EXPECT_EQ(kc::to_f32(1 + 0x1p-40, Round::up), 1 + 0x1p-23f);
  EXPECT_EQ(kc::to_f32(1 + 0x1p-40, Round::down), 1.0f);
  EXPECT_EQ(kc::to_f32(-1 - 0x1p-40, Round::down), -1 - 0x1p-23f);
}

TEST(Convert, Subnormals) {
  // f16: least subnormal 2^-24; half of it is a tie to zero (even).
  EXPECT_EQ(hf(0x1p-25, Round::nearest), 0x0000);
  EXPECT_EQ(hf(0x1p-25 * 1.0001, Round::nearest), 0x0001);
  EXPECT_EQ(hf(0x1p-25 * 3, Round::nearest), 0x0002);  // 1.5 spacings: tie to even 2
  EXPECT_EQ(hf(0x1p-30, Round::up), 0x0001);
  EXPECT_EQ(hf(0x1p-30, Round::down), 0x0000);
  EXPECT_EQ(hf(-0x1p-30, Round::up), 0x8000);  // negative zero keeps its sign
  EXPECT_EQ(hf(-0x1p-30, Round::down), 0x8001);
  EXPECT_EQ(hf(1023 * 0x1p-24 + 0x1p-26, Round::up), 0x0400);  // up into the normal range
  // bf16: least subnormal 2^-133.
  EXPECT_EQ(bf(0x1p-133, Round::nearest), 0x0001);
  EXPECT_EQ(bf(0x1p-134, Round::nearest), 0x0000);
  EXPECT_EQ(bf(0x1p-134 * 1.5, Round::nearest), 0x0001);
  EXPECT_EQ(bf(0x1p-140, Round::up), 0x0001);
  EXPECT_EQ(bf(-0x1p-140, Round::down), 0x8001);
  // From a float subnormal.
  EXPECT_EQ(kc::to_bf16(f32(0x00010000)).bits, 0x0001);
  EXPECT_EQ(kc::to_bf16(f32(0x00008000)).bits, 0x0000);  // tie to even
  EXPECT_EQ(kc::to_bf16(f32(0x00018000)).bits, 0x0002);  // tie to even
  // f32: 2^-150 ties to zero, 1.5 * 2^-149... rounds to 2^-148 (even).
  EXPECT_EQ(kc::to_f32(0x1p-150, Round::nearest), 0.0f);
  EXPECT_EQ(kc::to_f32(0x1p-150, Round::up), 0x1p-149f);
  EXPECT_EQ(kc::to_f32(3 * 0x1p-150, Round::nearest), 0x1p-148f);
}

TEST(Convert, Overflow) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(hf(65504, Round::nearest), 0x7bff);
  EXPECT_EQ(hf(65519.99, Round::nearest), 0x7bff);
  EXPECT_EQ(hf(65520, Round::nearest), 0x7c00);  // the tie above max goes to inf
  EXPECT_EQ(hf(1e6, Round::nearest), 0x7c00);
  EXPECT_EQ(hf(1e6, Round::down), 0x7bff);   // toward zero: max finite
  EXPECT_EQ(hf(1e6, Round::up), 0x7c00);
  EXPECT_EQ(hf(-1e6, Round::down), 0xfc00);
  EXPECT_EQ(hf(-1e6, Round::up), 0xfbff);
  EXPECT_EQ(hf(inf, Round::down), 0x7c00);   // an infinity stays one in every direction
  EXPECT_EQ(hf(-inf, Round::up), 0xfc00);
  const float fmax = std::numeric_limits<float>::max();
  EXPECT_EQ(kc::to_bf16(fmax).bits, 0x7f80);
  EXPECT_EQ(kc::to_bf16(fmax, Round::down).bits, 0x7f7f);
  EXPECT_EQ(kc::to_bf16(-fmax, Round::up).bits, 0xff7f);
  EXPECT_EQ(kc::to_bf16(-fmax, Round::down).bits, 0xff80);
  EXPECT_EQ(kc::to_f32(1e39, Round::nearest), std::numeric_limits<float>::infinity());
  EXPECT_EQ(kc::to_f32(1e39, Round::down), fmax);
  EXPECT_EQ(kc::to_f32(-1e39, Round::up), -fmax);
}

TEST(Convert, NanKeepsSignAndPayloadNeverInf) {
  EXPECT_EQ(kc::to_bf16(f32(0x7fc12345)).bits, 0x7fc1);
  EXPECT_EQ(kc::to_bf16(f32(0xffc12345)).bits, 0xffc1);
  EXPECT_EQ(kc::to_bf16(f32(0x7fa00000)).bits, 0x7fa0);  // a signalling payload kept as is
  EXPECT_EQ(kc::to_bf16(f32(0x7f800001)).bits, 0x7fc0);  // payload below bf16: quiet bit
  EXPECT_EQ(kc::to_bf16(f32(0xff800001)).bits, 0xffc0);
  EXPECT_EQ(kc::to_f16(f32(0x7fc02000)).bits, 0x7e01);
  EXPECT_EQ(kc::to_f16(f32(0x7f800001)).bits, 0x7e00);
  EXPECT_EQ(kc::to_f16(f32(0xff800001)).bits, 0xfe00);
  for (Round r : kAll) {
    EXPECT_TRUE(std::isnan(kc::from_bf16(kc::to_bf16(std::nan(""), r))));
    EXPECT_TRUE(std::isnan(kc::from_f16(kc::to_f16(-std::nan(""), r))));
    EXPECT_TRUE(std::signbit(kc::from_f16(kc::to_f16(-std::nan(""), r))));
    EXPECT_TRUE(std::isnan(kc::to_f32(std::nan(""), r)));
  }
  // f16 NaN payloads come back into float's top fraction bits.
  EXPECT_EQ(std::bit_cast<uint32_t>(kc::from_f16({0x7d55})), 0x7faaa000u);
}

TEST(Convert, RoundToEveryType) {
  EXPECT_EQ(kc::round_to(kc::DType::bf16, 1 + 0x1p-8, Round::up), 1 + 0x1p-7);
  EXPECT_EQ(kc::round_to(kc::DType::f16, 1 + 0x1p-11, Round::up), 1 + 0x1p-10);
  EXPECT_EQ(kc::round_to(kc::DType::f32, 1 + 0x1p-24, Round::up), 1 + 0x1p-23);
  EXPECT_EQ(kc::round_to(kc::DType::f64, 1 + 0x1p-52), 1 + 0x1p-52);
  EXPECT_EQ(kc::round_to(kc::DType::i32, 2.5), 2);
  EXPECT_EQ(kc::round_to(kc::DType::i32, 2.5, Round::up), 3);
  EXPECT_EQ(kc::round_to(kc::DType::i32, -2.5, Round::down), -3);
}

}  // namespace

namespace {
uint64_t mix(uint64_t& s) {
  s += 0x9e3779b97f4a7c15ull;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// bf16 by the well-known integer trick (round to nearest even on the float's bits), an independent
// way to the same answer for non-NaN floats.
uint16_t bf16_by_bits(float f) {
  uint32_t b = std::bit_cast<uint32_t>(f);
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

TEST(Convert, Bf16MatchesTheBitTrickOnRandomFloats) {
  uint64_t s = 7;
  for (int i = 0; i < 1000000; ++i) {
    float f = f32(static_cast<uint32_t>(mix(s)));
    if (std::isnan(f)) continue;
    ASSERT_EQ(kc::to_bf16(f).bits, bf16_by_bits(f)) << std::hex << std::bit_cast<uint32_t>(f);
    // Directed: down <= x <= up, adjacent or equal, and nearest is one of them.
    float d = kc::from_bf16(kc::to_bf16(f, Round::down)), u = kc::from_bf16(kc::to_bf16(f, Round::up));
    ASSERT_LE(d, f);
    ASSERT_GE(u, f);
  }
}

#ifdef __FLT16_MAX__
// The compiler's _Float16 conversions round to nearest even from float and from double in one step.
TEST(Convert, F16MatchesTheCompilerOnRandomFloatsAndDoubles) {
  uint64_t s = 11;
  for (int i = 0; i < 1000000; ++i) {
    uint32_t b = static_cast<uint32_t>(mix(s));
    b = (b & 0x80000000u) | ((b & 0x7fffffffu) % 0x48000000u);  // mostly within fp16's range
    float f = f32(b);
    _Float16 h = static_cast<_Float16>(f);
    ASSERT_EQ(kc::to_f16(f).bits, std::bit_cast<uint16_t>(h)) << std::hex << b;
    double d = std::bit_cast<double>(mix(s) & 0x40ffffffffffffffull);  // |d| < 2^16ish, any bits
    _Float16 hd = static_cast<_Float16>(d);
    ASSERT_EQ(kc::to_f16(d, Round::nearest).bits, std::bit_cast<uint16_t>(hd)) << d;
  }
}
#endif

}  // namespace
