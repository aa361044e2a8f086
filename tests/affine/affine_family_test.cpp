// The affine family: MLX's packing round-trips at every bit width (and matches MLX's byte layout
// for 3, 5 and 6 bits), gate 4's fills are exact in fp32 in both of the formula's forms and lost by
// every fp16/bf16 replay, the reference and magnitude match a hand-computed case, and gate 1's
// plants give the classes float64 gives.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "../../kernels/affine/cpu/affine_cpu.hpp"
#include "kc/families/affine.hpp"
#include "kc/numeric.hpp"

namespace {
using namespace kc;

TEST(AffinePacking, RoundTripsAtEveryWidth) {
  std::mt19937 g(7);
  for (int bits : {2, 3, 4, 5, 6, 8}) {
    for (int64_t k : {32, 64, 96, 128, 4096}) {
      std::vector<uint32_t> codes(static_cast<size_t>(k)), words(size_t(affine::words_per_row(k, bits)));
      for (auto& c : codes) c = g() & ((1u << bits) - 1);
      affine::pack_row(codes.data(), k, bits, words.data());
      for (int64_t i = 0; i < k; ++i) ASSERT_EQ(affine::code_at(words.data(), i, bits), codes[i]) << bits << " bits, code " << i;
      EXPECT_EQ(int64_t(words.size()) * 32, k * bits);
    }
  }
  EXPECT_THROW(affine::words_per_row(36, 3), Error);
}

TEST(AffinePacking, MatchesMlxLayout) {
  // 4 bits: code i in nibble i of the word; 8 bits: byte i; 2 bits: bit pair i.
  std::vector<uint32_t> c4 = {0, 1, 2, 3, 4, 5, 6, 7}, w(1);
  affine::pack_row(c4.data(), 8, 4, w.data());
  EXPECT_EQ(w[0], 0x76543210u);
  std::vector<uint32_t> c8 = {1, 2, 3, 0xfe};
  affine::pack_row(c8.data(), 4, 8, w.data());
  EXPECT_EQ(w[0], 0xfe030201u);
  // 3 bits: eight codes in three bytes, byte 0 = c0 | c1 << 3 | (c2 & 3) << 6 (MLX's extract_bits).
  std::vector<uint32_t> c3(32), w3(3);
  for (int i = 0; i < 32; ++i) c3[i] = uint32_t(i * 5 + 3) & 7;
  affine::pack_row(c3.data(), 32, 3, w3.data());
  const uint8_t* by = reinterpret_cast<const uint8_t*>(w3.data());
  EXPECT_EQ(by[0] & 0x7, c3[0]);
  EXPECT_EQ((by[0] & 0x38) >> 3, c3[1]);
  EXPECT_EQ(((by[0] & 0xc0) >> 6) + ((by[1] & 0x1) << 2), c3[2]);
  EXPECT_EQ((by[2] & 0xe0) >> 5, c3[7]);
  // 5 bits: eight codes in five bytes.
  std::vector<uint32_t> c5(32), w5(5);
  for (int i = 0; i < 32; ++i) c5[i] = uint32_t(i * 7 + 1) & 31;
  affine::pack_row(c5.data(), 32, 5, w5.data());
  by = reinterpret_cast<const uint8_t*>(w5.data());
  EXPECT_EQ(by[0] & 0x1f, c5[0]);
  EXPECT_EQ(((by[0] & 0xe0) >> 5) + ((by[1] & 0x3) << 3), c5[1]);
  EXPECT_EQ(((by[2] & 0xf0) >> 4) + ((by[3] & 0x1) << 4), c5[4]);
  // 6 bits: four codes in three bytes.
  std::vector<uint32_t> c6(16), w6(3);
  for (int i = 0; i < 16; ++i) c6[i] = uint32_t(i * 11 + 5) & 63;
  affine::pack_row(c6.data(), 16, 6, w6.data());
  by = reinterpret_cast<const uint8_t*>(w6.data());
  EXPECT_EQ(by[0] & 0x3f, c6[0]);
  EXPECT_EQ(((by[0] >> 6) & 0x03) + ((by[1] & 0x0f) << 2), c6[1]);
  EXPECT_EQ(((by[1] >> 4) & 0x0f) + ((by[2] & 0x03) << 4), c6[2]);
  EXPECT_EQ((by[2] >> 2) & 0x3f, c6[3]);
}

TEST(AffineSums, ExactInFp32InBothFormsAndLostByEveryReplay) {
  for (int bits : {2, 3, 4, 5, 6, 8})
    for (int group : {32, 64, 128})
      for (int64_t k : {int64_t(128), int64_t(256), int64_t(4096), int64_t(16384)}) {
        std::vector<double> xs, b;
        std::vector<uint32_t> q;
        double s = 0;
        affine::sums_rows(k, bits, group, 3 * k + bits, 5 * k + group, xs, s, b, q);
        std::vector<double> t(static_cast<size_t>(k));
        double exact = 0, mag = 0;
        float direct = 0, factored = 0;
        for (int64_t g = 0; g < k / group; ++g) {
          float a = 0, xsum = 0;
          for (int64_t j = g * group; j < (g + 1) * group; ++j) {
            ASSERT_LE(q[j], (1u << bits) - 1);
            double w = s * q[j] + b[g];
            t[j] = xs[j] * w;
            exact += t[j];
            mag += std::fabs(xs[j]) * (std::fabs(s * q[j]) + std::fabs(b[g]));
            direct += float(xs[j]) * float(w);
            a += float(xs[j]) * float(q[j]);
            xsum += float(xs[j]);
          }
          factored += float(s) * a + float(b[g]) * xsum;
        }
        SCOPED_TRACE(testing::Message() << bits << " bits, group " << group << ", k " << k);
        EXPECT_LT(mag, 0x1p24);
        EXPECT_NE(exact, 0);
        EXPECT_EQ(double(direct), exact);
        EXPECT_EQ(double(factored), exact);
        // Codes palindromic in runs of 8: a word's nibbles read in reverse give the same sums.
        for (int64_t j = 0; j < k; ++j) EXPECT_EQ(q[j], q[(j / 8) * 8 + 7 - j % 8]);
        double bound = std::fabs(exact) * half_ulp(DType::bf16) + half_ulp_floor(DType::bf16);
        for (SumFormat f : {SumFormat::f16, SumFormat::bf16})
          for (SumOrder o : {SumOrder::chain, SumOrder::halves, SumOrder::lanes32}) {
            double r = replay_sum(t.data(), t.size(), f, o);
            double miss = std::isfinite(r) ? std::fabs(r - exact) : INFINITY;
            EXPECT_GE(miss, 100 * bound) << sum_format_name(f) << " " << sum_order_name(o);
          }
      }
}

TEST(AffineReference, WantAndMagnitudeByHand) {
  Entry e = affine::projection(4, 32, DType::f32);
  Case c(Shape{{"m", 1}, {"n", 1}, {"k", 64}}, Fill{FillKind::random}, 3);
  e.rig.prepare(c);
  auto x = c.get_mut<bf16>("x");
  auto q = c.get_mut<uint32_t>("q");
  auto s = c.get_mut<bf16>("s");
  auto b = c.get_mut<bf16>("b");
  // x = 1 everywhere but x[0] = -2 and x[40] = 0.5; codes 3 in group 0, 10 in group 1 but q[40] = 0.
  std::vector<uint32_t> codes(64);
  for (int j = 0; j < 64; ++j) x[j] = to_bf16(1.0f), codes[j] = j < 32 ? 3 : 10;
  x[0] = to_bf16(-2.0f), x[40] = to_bf16(0.5f), codes[40] = 0;
  affine::pack_row(codes.data(), 64, 4, q.data());
  s[0] = to_bf16(0.5f), b[0] = to_bf16(-1.0f);   // group 0: w = 0.5
  s[1] = to_bf16(0.25f), b[1] = to_bf16(2.0f);   // group 1: w = 4.5 (q = 10), 2 (q = 0)
  auto exp = e.rig.reference(c);
  // group 0: sum x q = 3 * (31 - 2) = 87, sum x = 29: 0.5 * 87 - 29 = 14.5
  // group 1: sum x q = 10 * 31 = 310, sum x = 31.5: 0.25 * 310 + 2 * 31.5 = 140.5
  EXPECT_DOUBLE_EQ(exp[0].want[0], 155.0);
  // magnitude: group 0: sum |x| (1.5 + 1) = 33 * 2.5 = 82.5; group 1: 31 * (2.5 + 2) + 0.5 * 2 = 140.5
  EXPECT_DOUBLE_EQ(exp[0].mag[0], 223.0);
  EXPECT_DOUBLE_EQ(affine_cpu::depth(Shape{{"m", 1}, {"n", 1}, {"k", 512}}, 64), 64 + 2 + 8);
}

TEST(AffineNonfinite, PlantsGiveTheClassesOfFloat64) {
  Entry e = affine::projection(4, 64, DType::bf16);
  ASSERT_GT(e.rig.plants.size(), 11u);  // today's eleven first (affine_plants_test.cpp: the rest)
  const int64_t M = 2, N = 3, K = 256;
  for (int p = 0; p < 11; ++p) {
    Case c(Shape{{"m", M}, {"n", N}, {"k", K}}, Fill{FillKind::nonfinite, p}, 4);
    e.rig.prepare(c);
    auto want = e.rig.reference(c)[0].want;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        bool hit = p < 4 ? m == M - 1 : n == N - 1;
        FClass cl = fclass(want[m * N + n]);
        SCOPED_TRACE(e.rig.plants[p]);
        if (!hit) EXPECT_EQ(cl, FClass::finite);
        else if (p == 0 || p == 4 || p == 7 || p == 10) EXPECT_EQ(cl, FClass::nan);
        else if (p == 5) EXPECT_EQ(cl, FClass::pinf);   // x > 0, codes >= 1: s * sum x q > 0
        else if (p == 6) EXPECT_EQ(cl, FClass::ninf);
        else if (p == 8) EXPECT_EQ(cl, FClass::pinf);   // sum x > 0
        else if (p == 9) EXPECT_EQ(cl, FClass::ninf);
        else EXPECT_NE(cl, FClass::finite);
      }
  }
}

}  // namespace
