// The kernels' software decode (kernels/blockscaled/bs_decode.hpp) against core's float64 values
// for every code, and the control's decode differing at e4m3's two NaN codes alone.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "../../kernels/blockscaled/bs_decode.hpp"
#include "kc/lowp.hpp"

namespace {
using kc::lowp::Format;

void same(double want, float got, const char* what, uint32_t c) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << " code " << c;
  } else {
    EXPECT_EQ(double(got), want) << what << " code " << c;
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << what << " code " << c;
  }
}

TEST(BlockscaledDecode, EveryCodeAsCoreDefinesIt) {
  for (uint32_t c = 0; c < 256; ++c) {
    same(kc::lowp::decode(Format::e4m3, c), kc::bs::e4m3_f32(c), "e4m3", c);
    same(kc::lowp::decode(Format::e8m0, c), kc::bs::e8m0_f32(c), "e8m0", c);
    same(kc::lowp::decode(Format::ue4m3, c), kc::bs::ue4m3_f32(c), "ue4m3", c);
  }
  for (uint32_t c = 0; c < 16; ++c) same(kc::lowp::decode(Format::e2m1, c), kc::bs::e2m1_f32(c), "e2m1", c);
}

TEST(BlockscaledDecode, TheControlsDecodeDiffersAtTheNaNCodesOnly) {
  for (uint32_t c = 0; c < 256; ++c) {
    const float a = kc::bs::e4m3_f32(c), b = kc::bs::e4m3_f32_no_nan(c);
    if ((c & 0x7F) == 0x7F) {
      EXPECT_EQ(b, c == 0x7F ? 480.0f : -480.0f);
    } else {
      EXPECT_EQ(std::bit_cast<uint32_t>(a), std::bit_cast<uint32_t>(b)) << c;
    }
  }
}

}  // namespace
