// The block-scaled family: the reference and magnitude of hand-built cases of each scale layout,
// gate 4's rows exact in fp32 and missed by every fp16 / bf16 replay, and every gate 1 plant
// reaching an output's class in the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kc/families/blockscaled.hpp"
#include "kc/lowp.hpp"

namespace {
using namespace kc;
using blockscaled::Acts;
using blockscaled::Weights;
using lowp::Format;

uint8_t code(Format f, double v) { return uint8_t(lowp::encode(f, v)); }

Case prepared(Entry& e, int64_t m, int64_t n, int64_t k, Fill f = Fill{FillKind::random}) {
  Case c(Shape{{"m", m}, {"n", n}, {"k", k}}, f, 11);
  e.rig.prepare(c);
  return c;
}

TEST(BlockscaledReference, Mxfp4ByHand) {
  Entry e = blockscaled::projection(Weights::mxfp4, Acts::bf16, DType::f32);
  Case c = prepared(e, 1, 1, 64);
  auto x = c.get_mut<bf16>("x");
  auto q = c.get_mut<uint8_t>("q");
  auto s = c.get_mut<uint8_t>("s");
  for (int j = 0; j < 64; ++j) x[j] = to_bf16(1.0f);
  for (int i = 0; i < 32; ++i) q[i] = 0x52;  // low nibble 1.0 (element 2i), high 3.0 (2i + 1)
  x[0] = to_bf16(-4.0f);
  s[0] = 127, s[1] = 129;  // 1 and 4
  // block 0: 16 * 3 + 15 * 1 - 4 * 1 = 59 (element 0 is -4 * 1); block 1: (16 + 48) * 4 = 256
  auto r = e.rig.reference(c);
  EXPECT_DOUBLE_EQ(r[0].want[0], 59.0 + 256.0);
  EXPECT_DOUBLE_EQ(r[0].mag[0], 67.0 + 256.0);
}

TEST(BlockscaledReference, Nvfp4ByHand) {
  Entry e = blockscaled::projection(Weights::nvfp4, Acts::bf16, DType::f32);
  Case c = prepared(e, 1, 1, 32);
  auto x = c.get_mut<bf16>("x");
  auto q = c.get_mut<uint8_t>("q");
  auto s = c.get_mut<uint8_t>("s");
  for (int j = 0; j < 32; ++j) x[j] = to_bf16(2.0f);
  for (int i = 0; i < 16; ++i) q[i] = 0xAA;  // -1.0 in both nibbles
  s[0] = code(Format::ue4m3, 1.5), s[1] = code(Format::ue4m3, 0.25);
  c.get_mut<float>("g")[0] = 4;
  // 16 * 2 * -1 * (1.5 + 0.25) * 4
  EXPECT_DOUBLE_EQ(e.rig.reference(c)[0].want[0], -224.0);
}

TEST(BlockscaledReference, Block128ScalesByRowAndColumnBlock) {
  Entry e = blockscaled::projection(Weights::fp8_block128, Acts::fp8_group128, DType::f32);
  Case c = prepared(e, 2, 130, 144);  // two n blocks, a 16-column K tail
  auto xq = c.get_mut<uint8_t>("xq");
  auto sx = c.get_mut<float>("sx");
  auto q = c.get_mut<uint8_t>("q");
  auto s = c.get_mut<float>("s");
  ASSERT_EQ(s.size(), 4u);
  ASSERT_EQ(sx.size(), 4u);
  for (auto& v : xq) v = code(Format::e4m3, 1.0);
  for (auto& v : q) v = code(Format::e4m3, 0.5);
  s[0] = 1, s[1] = 2, s[2] = 8, s[3] = 16;  // [n block][k block]
  sx[0] = 1, sx[1] = 1, sx[2] = 3, sx[3] = 5;  // [row][k group]
  auto r = e.rig.reference(c);
  // y[m, n] = 0.5 (128 s[nb][0] sx[m][0] + 16 s[nb][1] sx[m][1])
  EXPECT_DOUBLE_EQ(r[0].want[0 * 130 + 0], 0.5 * (128 * 1 + 16 * 2));
  EXPECT_DOUBLE_EQ(r[0].want[0 * 130 + 129], 0.5 * (128 * 8 + 16 * 16));
  EXPECT_DOUBLE_EQ(r[0].want[1 * 130 + 127], 0.5 * (128 * 1 * 3 + 16 * 2 * 5));
  EXPECT_DOUBLE_EQ(r[0].want[1 * 130 + 128], 0.5 * (128 * 8 * 3 + 16 * 16 * 5));
}

TEST(BlockscaledReference, NanCodesAreNaN) {
  Entry e = blockscaled::projection(Weights::fp8_channel, Acts::bf16, DType::f32);
  Case c = prepared(e, 1, 2, 16);
  c.get_mut<uint8_t>("q")[3] = 0xFF;    // row 0
  c.get_mut<uint8_t>("q")[16] = 0x7E;  // row 1: 448, a number
  auto r = e.rig.reference(c);
  EXPECT_TRUE(std::isnan(r[0].want[0]));
  EXPECT_TRUE(std::isfinite(r[0].want[1]));
}

TEST(BlockscaledSums, RowsAreExactAndEveryReplayMisses) {
  for (Weights w : {Weights::fp8_tensor, Weights::fp8_block128, Weights::mxfp4, Weights::nvfp4})
    for (Acts a : {Acts::bf16, Acts::fp8_tensor, Acts::fp8_group128}) {
      if (blockscaled::is_fp4(w) && a != Acts::bf16) continue;
      for (int64_t k : {96, 128, 352, 1024, 7168}) {
        if (k % blockscaled::k_step(w) != 0) continue;
        const auto r = blockscaled::sums_row(w, a, k, 5);
        double sum = 0, abs = 0;
        std::vector<double> t(static_cast<size_t>(k));
        for (int64_t j = 0; j < k; ++j) {
          t[j] = r.a[j] * r.w[j];
          ASSERT_EQ(t[j], std::floor(t[j])) << "a non-integer term at " << j;
          // Each code a value of its format.
          const Format wf = blockscaled::is_fp4(w) ? Format::e2m1 : Format::e4m3;
          ASSERT_EQ(lowp::decode(wf, lowp::encode(wf, r.wcode[j])), r.wcode[j]);
          if (a != Acts::bf16) {
            ASSERT_EQ(lowp::decode(Format::e4m3, lowp::encode(Format::e4m3, r.acode[j])), r.acode[j]);
          }
          sum += t[j], abs += std::fabs(t[j]);
        }
        EXPECT_LT(abs, 0x1p24) << "a partial sum could reach 2^24";  // bounds every partial, any order
        EXPECT_NE(sum, 0);
        EXPECT_LE(std::fabs(sum), 64);
        for (SumOrder o : {SumOrder::chain, SumOrder::halves, SumOrder::lanes32}) {
          EXPECT_FALSE(std::isfinite(replay_sum(t.data(), t.size(), SumFormat::f16, o))) << "fp16 did not overflow";
          const double b = replay_sum(t.data(), t.size(), SumFormat::bf16, o);
          EXPECT_GE(std::fabs(b - sum), 0.5 * std::fabs(sum)) << blockscaled::name(w) << " k " << k;
        }
      }
    }
}

// A sum kept to 14 significant bits, toward zero, after each step of 32 terms: what a tensor core
// with such an accumulator gives (a model for this test, not a measurement).
double truncated_steps(const std::vector<double>& t, size_t from, size_t to, double start) {
  double acc = start;
  for (size_t j = from; j < to; j += 32) {
    for (size_t i = j; i < std::min(to, j + 32); ++i) acc += t[i];
    if (acc != 0) {
      const double q = std::ldexp(1.0, std::ilogb(acc) - 13);
      acc = std::trunc(acc / q) * q;
    }
  }
  return acc;
}

TEST(BlockscaledSums, IntervalRowsKeepBigAndSmallTermsApart) {
  for (Acts a : {Acts::fp8_tensor, Acts::fp8_group128})
    for (int64_t k : {384, 400, 2064, 4096}) {
      const auto r = blockscaled::sums_row(Weights::fp8_tensor, a, k, 9, 128);
      std::vector<double> t(static_cast<size_t>(k));
      double sum = 0;
      for (int64_t j = 0; j < k; ++j) t[j] = r.acode[j] * r.wcode[j], sum += r.a[j] * r.w[j];
      EXPECT_NE(sum, 0);
      // Every interval's nonzero terms are all big (2^16) or all small.
      double promoted = 0;
      for (int64_t lo = 0; lo < k; lo += 128) {
        int big = 0, small = 0;
        for (int64_t j = lo; j < std::min(k, lo + 128); ++j) {
          if (std::fabs(t[j]) == 0x1p16) ++big;
          else if (t[j] != 0) ++small;
        }
        EXPECT_TRUE(big == 0 || small == 0) << "k " << k << ": interval at " << lo << " mixes " << big << " big and " << small << " small terms";
        promoted += truncated_steps(t, size_t(lo), size_t(std::min(k, lo + 128)), 0);
      }
      const double codes = sum / (r.a[0] / r.acode[0] * r.w[0] / r.wcode[0]);  // the sum in code units
      EXPECT_EQ(promoted, codes) << "promoted every 128 columns, a 14-bit accumulator is exact on these rows";
      EXPECT_NE(truncated_steps(t, 0, t.size(), 0), codes) << "never promoted, it must miss (k " << k << ")";
    }
  EXPECT_THROW(blockscaled::sums_row(Weights::fp8_tensor, Acts::fp8_tensor, 256, 9, 128), Error);
}

TEST(BlockscaledNonfinite, EveryPlantReachesAnOutput) {
  for (Weights w : {Weights::fp8_tensor, Weights::fp8_channel, Weights::fp8_block128, Weights::mxfp4, Weights::nvfp4})
    for (Acts a : {Acts::bf16, Acts::fp8_tensor, Acts::fp8_group128}) {
      if (blockscaled::is_fp4(w) && a != Acts::bf16) continue;
      Entry e = blockscaled::projection(w, a, DType::bf16);
      ASSERT_GT(e.rig.plants_at_scale, 0);
      for (int p = 0; p < int(e.rig.plants.size()); ++p) {
        Case c = prepared(e, 3, 5, 256, Fill{FillKind::nonfinite, p});
        int nonfinite = 0;
        for (double v : e.rig.reference(c)[0].want) nonfinite += !std::isfinite(v);
        EXPECT_GT(nonfinite, 0) << blockscaled::name(w) << " " << blockscaled::name(a) << ": " << e.rig.plants[p];
      }
    }
}

// The random fill draws every scale code but NaN: e8m0's 0 (2^-127) and 254 (2^127) among them, each
// row's codes within 8 of each other; every output finite and below fp32's largest, as are its
// terms' magnitudes (a correct fp32 kernel cannot overflow); ue4m3's 0 and subnormals too.
TEST(BlockscaledRandom, EveryScaleCodeDrawnAndOutputsFitFp32) {
  for (Weights w : {Weights::mxfp4, Weights::nvfp4}) {
    Entry e = blockscaled::projection(w, Acts::bf16, DType::f32);
    Case c = prepared(e, 3, 130, 1024);
    auto s = c.get<uint8_t>("s");
    std::vector<int> seen(256, 0);
    for (uint8_t v : s) ++seen[v];
    const int top = w == Weights::mxfp4 ? 254 : 0x7E;
    for (int code = 0; code <= top; ++code) EXPECT_GT(seen[size_t(code)], 0) << blockscaled::name(w) << " code " << code;
    for (int code = top + 1; code < 256; ++code) EXPECT_EQ(seen[size_t(code)], 0) << blockscaled::name(w) << " code " << code;
    const auto r = e.rig.reference(c);
    for (size_t i = 0; i < r[0].want.size(); ++i) {
      EXPECT_TRUE(std::isfinite(r[0].want[i])) << i;
      EXPECT_LT(r[0].mag[i], 0x1p127) << i;
    }
    if (w != Weights::mxfp4) continue;
    // Row 0 takes code 0 in its first block, row 1 code 254: at every n their outputs show them.
    EXPECT_EQ(s[0], 0);
    EXPECT_EQ(s[1024 / 32], 254);
    EXPECT_GT(std::fabs(r[0].want[1]), 0x1p100);
    EXPECT_LT(std::fabs(r[0].want[0]), 0x1p-100);
    EXPECT_GT(r[0].mag[0], 0);
  }
}

TEST(BlockscaledFamily, RefusesFp8ActivationsWithFp4) {
  EXPECT_THROW(blockscaled::projection(Weights::mxfp4, Acts::fp8_tensor, DType::f32), Error);
  Entry e = blockscaled::projection(Weights::mxfp4, Acts::bf16, DType::f32);
  Case c(Shape{{"m", 1}, {"n", 1}, {"k", 48}}, Fill{}, 1);
  EXPECT_THROW(e.rig.prepare(c), Error);
}

}  // namespace
