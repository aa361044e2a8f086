// Plants and fills in the dense family: positions along k, a masked row of x and of w
// with float64's classes, the NaN bits in bf16, and the named fills' properties.
#include <gtest/gtest.h>

#include <cmath>

#include "../plant_index.hpp"
#include "kc/families/dense.hpp"
#include "kc/numeric.hpp"

namespace {
using namespace kc;

Case prepared(const Entry& e, int64_t m, int64_t n, int64_t k, Fill f) {
  Case c(Shape{{"m", m}, {"n", n}, {"k", k}}, f, 11);
  c.spec = &e.spec;
  e.rig.prepare(c);
  return c;
}

TEST(DensePlants, PositionsBitsAndMaskedRows) {
  Entry e = dense::projection(DType::f32);
  const int64_t M = 3, N = 4, K = 40;
  struct Want {
    const char* name;
    int64_t col;
    uint16_t bits;  // 0: any NaN or -Inf
  };
  for (const Want& w : {Want{"NaN in x at the first column", 0, 0x7fc0}, Want{"NaN in w at the middle column", 20, 0x7fc0},
                        Want{"-Inf in x at the first column", 0, 0xff80}, Want{"-Inf in w", 39, 0xff80},
                        Want{"negative NaN in x", 39, 0xffc0}, Want{"NaN with a payload in w", 39, 0x7fd5}}) {
    SCOPED_TRACE(w.name);
    Case c = prepared(e, M, N, K, Fill{FillKind::nonfinite, plant_index(e, w.name), -1});
    const bool in_x = std::string(w.name).find(" x") != std::string::npos;
    auto v = c.get<bf16>(in_x ? "x" : "w");
    const int64_t row = (in_x ? M : N) - 1;
    for (int64_t r = 0; r < (in_x ? M : N); ++r)
      for (int64_t j = 0; j < K; ++j) {
        const bool at = r == row && j == w.col;
        EXPECT_EQ(std::isfinite(from_bf16(v[r * K + j])), !at) << r << "," << j;
        if (at) EXPECT_EQ(v[r * K + j].bits, w.bits);
      }
  }
  // A masked row of x: every y of that row NaN in float64 (signed weights), every other finite.
  Case c = prepared(e, M, N, K, Fill{FillKind::nonfinite, plant_index(e, "a row of -Inf in x"), -1});
  auto x = c.get<bf16>("x");
  for (int64_t j = 0; j < K; ++j) EXPECT_EQ(from_bf16(x[(M - 1) * K + j]), -INFINITY);
  auto y = e.rig.reference(c);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) EXPECT_EQ(fclass(y[0].want[m * N + n]), m == M - 1 ? FClass::nan : FClass::finite);
  Case cw = prepared(e, M, N, K, Fill{FillKind::nonfinite, plant_index(e, "a row of -Inf in w"), -1});
  auto yw = e.rig.reference(cw);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) EXPECT_EQ(fclass(yw[0].want[m * N + n]), n == N - 1 ? FClass::nan : FClass::finite);
}

// 0 * Inf: x's last row 0 where w's last row is +Inf (the middle column); float64 makes the output
// they meet NaN, the rest of w's row +-Inf against x's finite values, the rest of x's row finite.
TEST(DensePlants, ZeroActivationAgainstInfiniteWeight) {
  Entry e = dense::projection(DType::f32);
  const int64_t M = 3, N = 4, K = 40;
  Case c = prepared(e, M, N, K, Fill{FillKind::nonfinite, plant_index(e, "+Inf in w against a 0 in x"), -1});
  auto x = c.get<bf16>("x");
  auto w = c.get<bf16>("w");
  EXPECT_EQ(from_bf16(x[(M - 1) * K + K / 2]), 0.0f);
  EXPECT_EQ(from_bf16(w[(N - 1) * K + K / 2]), INFINITY);
  auto y = e.rig.reference(c);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      const FClass cl = fclass(y[0].want[m * N + n]);
      if (n < N - 1) EXPECT_EQ(cl, FClass::finite) << m << "," << n;
      else if (m == M - 1) EXPECT_EQ(cl, FClass::nan) << m << "," << n;
      else EXPECT_TRUE(cl == FClass::pinf || cl == FClass::ninf) << m << "," << n;  // signed activations
    }
}

TEST(DenseFills, EachHasItsProperty) {
  Entry e = dense::projection(DType::f32);
  EXPECT_EQ(e.rig.fills, (std::vector<std::string>{"zeros", "offset", "sign", "cut", "range"}));
  const int64_t M = 4, N = 6, K = 64;
  auto make = [&](const char* d) {
    Fill f{FillKind::random};
    f.dist = d;
    return prepared(e, M, N, K, f);
  };
  for (const char* op : {"x", "w"}) {  // zeros: both signed zeros in every row of x and of w
    Case z = make("zeros");
    auto v = z.get<bf16>(op);
    const int64_t rows = std::string(op) == "x" ? M : N;
    for (int64_t r = 0; r < rows; ++r) {
      int neg = 0, pos = 0;
      for (int64_t j = 0; j < K; ++j) neg += v[r * K + j].bits == 0x8000, pos += v[r * K + j].bits == 0;
      EXPECT_GT(neg, 0) << op << " row " << r;
      EXPECT_GT(pos, 0) << op << " row " << r;
    }
  }
  Case s = make("sign");
  auto sx = s.get<bf16>("x");
  for (int64_t r = 0; r < M; ++r)
    for (int64_t j = 0; j < K; ++j) EXPECT_TRUE(r % 2 ? from_bf16(sx[r * K + j]) > 0 : from_bf16(sx[r * K + j]) < 0);
  Case o = make("offset");
  auto ox = o.get<bf16>("x");
  for (int64_t i = 0; i < M * K; ++i) EXPECT_NEAR(from_bf16(ox[i]), 1000, 16);
  // The magnitude is sum |x w| of the actual terms (offset x over signed w), not |y|.
  auto w = o.get<bf16>("w");
  auto ex = e.rig.reference(o);
  double m00 = 0;
  for (int64_t j = 0; j < K; ++j) m00 += std::fabs(double(from_bf16(ox[j])) * from_bf16(w[j]));
  EXPECT_DOUBLE_EQ(ex[0].mag[0], m00);
  Case rg = make("range");
  auto rx = rg.get<bf16>("x");
  float lo = INFINITY, hi = 0;
  for (int64_t i = 0; i < K; ++i) lo = std::min(lo, std::fabs(from_bf16(rx[i]))), hi = std::max(hi, std::fabs(from_bf16(rx[i])));
  EXPECT_LT(lo, 0x1p-90f);
  EXPECT_GT(hi, 0x1p90f);
  auto yr = e.rig.reference(rg);
  for (double v : yr[0].want) EXPECT_TRUE(std::isfinite(v));
  // cut: each row of x and of w one sign, 1 at column 0, the rest in [1.5, 2] 2^-13, so every
  // product but the first lies in (2^-25, 2^-24], far below the first, all of one sign.
  Case ct = make("cut");
  for (const char* op : {"x", "w"}) {
    auto v = ct.get<bf16>(op);
    const int64_t rows = std::string(op) == "x" ? M : N;
    for (int64_t r = 0; r < rows; ++r) {
      const float sign = r % 2 ? -1.f : 1.f;
      EXPECT_EQ(from_bf16(v[r * K]), sign) << op << " row " << r;
      for (int64_t j = 1; j < K; ++j) {
        const float a = sign * from_bf16(v[r * K + j]);
        EXPECT_TRUE(a >= 0x1.8p-13f && a <= 0x1p-12f) << op << " row " << r << " col " << j << ": " << a;
      }
    }
  }
}

}  // namespace
