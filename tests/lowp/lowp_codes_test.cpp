// Every code of every low-precision format against the tests' own field definition (oracle.hpp),
// the counts of each format's special codes, a few values its specification names, and every finite
// code surviving a conversion back.
#include <gtest/gtest.h>

#include <bit>

#include "kc/lowp.hpp"
#include "oracle.hpp"

namespace {
using kc::lowp::Format;
using kc::lowp::Sat;
namespace lo = kc::lowp;

TEST(LowpCodes, EveryCodeIsItsFieldValue) {
  for (Format f : lowp_oracle::kAll)
    for (uint32_t c = 0; c < lowp_oracle::codes(f); ++c) {
      const double want = lowp_oracle::value(f, c), got = lo::decode(f, c);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << lo::name(f) << " code " << c;
        EXPECT_TRUE(lo::is_nan(f, c)) << lo::name(f) << " code " << c;
      } else {
        // Bit-equal: a negative zero stays negative.
        EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want)) << lo::name(f) << " code " << c
                                                                               << ": " << got << " want " << want;
        EXPECT_FALSE(lo::is_nan(f, c));
      }
    }
}

TEST(LowpCodes, SpecialCodeCounts) {
  struct Count {
    Format f;
    int nan, inf, finite;
  };
  for (const Count& k : {Count{Format::e4m3, 2, 0, 254}, Count{Format::e5m2, 6, 2, 248}, Count{Format::e2m1, 0, 0, 16},
                         Count{Format::e8m0, 1, 0, 255}, Count{Format::ue4m3, 129, 0, 127}}) {
    int nan = 0, inf = 0, fin = 0;
    for (uint32_t c = 0; c < lowp_oracle::codes(k.f); ++c) {
      const double v = lo::decode(k.f, c);
      nan += std::isnan(v), inf += std::isinf(v), fin += std::isfinite(v);
    }
    EXPECT_EQ(nan, k.nan) << lo::name(k.f);
    EXPECT_EQ(inf, k.inf) << lo::name(k.f);
    EXPECT_EQ(fin, k.finite) << lo::name(k.f);
  }
}

TEST(LowpCodes, NamedValues) {
  EXPECT_TRUE(std::isnan(lo::decode(Format::e4m3, 0x7F)));
  EXPECT_TRUE(std::isnan(lo::decode(Format::e4m3, 0xFF)));
  EXPECT_EQ(lo::decode(Format::e4m3, 0x7E), 448.0);
  EXPECT_EQ(lo::decode(Format::e4m3, 0xFE), -448.0);
  EXPECT_EQ(lo::decode(Format::e4m3, 0x38), 1.0);
  EXPECT_EQ(lo::decode(Format::e4m3, 0x08), 0x1p-6);  // least normal
  EXPECT_EQ(lo::decode(Format::e4m3, 0x01), 0x1p-9);  // least subnormal
  EXPECT_EQ(lo::decode(Format::e5m2, 0x7B), 57344.0);
  EXPECT_EQ(lo::decode(Format::e5m2, 0x7C), INFINITY);
  EXPECT_EQ(lo::decode(Format::e5m2, 0xFC), -INFINITY);
  EXPECT_EQ(lo::decode(Format::e5m2, 0x3C), 1.0);
  EXPECT_EQ(lo::decode(Format::e5m2, 0x01), 0x1p-16);
  const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (uint32_t c = 0; c < 8; ++c) {
    EXPECT_EQ(lo::decode(Format::e2m1, c), e2m1[c]);
    EXPECT_EQ(lo::decode(Format::e2m1, c | 8), -e2m1[c]);
  }
  EXPECT_EQ(lo::decode(Format::e8m0, 127), 1.0);
  EXPECT_EQ(lo::decode(Format::e8m0, 0), 0x1p-127);
  EXPECT_EQ(lo::decode(Format::e8m0, 254), 0x1p127);
  EXPECT_TRUE(std::isnan(lo::decode(Format::e8m0, 255)));
  EXPECT_EQ(lo::decode(Format::ue4m3, 0x7E), 448.0);
  EXPECT_TRUE(std::isnan(lo::decode(Format::ue4m3, 0x7F)));
  EXPECT_TRUE(std::isnan(lo::decode(Format::ue4m3, 0x80)));  // bit 7 is no sign
  EXPECT_EQ(lo::max_finite(Format::e4m3), 448.0);
  EXPECT_EQ(lo::max_finite(Format::e5m2), 57344.0);
  EXPECT_EQ(lo::max_finite(Format::e2m1), 6.0);
  EXPECT_EQ(lo::max_finite(Format::e8m0), 0x1p127);
  EXPECT_EQ(lo::max_finite(Format::ue4m3), 448.0);
  EXPECT_THROW(lo::decode(Format::e2m1, 16), kc::Error);
  EXPECT_THROW(lo::decode(Format::e4m3, 256), kc::Error);
}

TEST(LowpCodes, EveryFiniteCodeConvertsBackToItself) {
  for (Format f : lowp_oracle::kAll)
    for (Sat s : {Sat::finite, Sat::none})
      for (const auto& [c, v] : lowp_oracle::finite(f)) EXPECT_EQ(lo::encode(f, v, s), c) << lo::name(f) << " " << v;
}

TEST(LowpCodes, NaNConvertsToANaNCode) {
  for (Format f : {Format::e4m3, Format::e5m2, Format::e8m0, Format::ue4m3})
    for (Sat s : {Sat::finite, Sat::none}) {
      EXPECT_TRUE(lo::is_nan(f, lo::encode(f, NAN, s))) << lo::name(f);
      EXPECT_TRUE(lo::is_nan(f, lo::encode(f, -NAN, s))) << lo::name(f);
    }
  EXPECT_EQ(lo::encode(Format::e4m3, -NAN), 0xFFu);  // the sign kept
  EXPECT_THROW(lo::encode(Format::e2m1, NAN), kc::Error);
}

}  // namespace
