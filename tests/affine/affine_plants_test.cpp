// Plants and fills in the affine family: scales and biases at the group holding the
// column (first, middle, last), masked rows, NaN bits, and the named fills in x.
#include <gtest/gtest.h>

#include <cmath>

#include "../plant_index.hpp"
#include "kc/families/affine.hpp"
#include "kc/numeric.hpp"

namespace {
using namespace kc;

TEST(AffinePlants, GroupsRowsAndBits) {
  Entry e = affine::projection(4, 64, DType::f32);
  const int64_t M = 2, N = 3, K = 256, G = K / 64;
  auto prep = [&](const std::string& name) {
    Case c(Shape{{"m", M}, {"n", N}, {"k", K}}, Fill{FillKind::nonfinite, plant_index(e, name), -1}, 4);
    c.spec = &e.spec;
    e.rig.prepare(c);
    return c;
  };
  struct Want {
    const char* name;
    const char* op;
    int64_t group;
    uint16_t bits;
  };
  for (const Want& w : {Want{"NaN in s", "s", 0, 0x7fc0}, Want{"NaN in s at the middle column", "s", 2, 0x7fc0},
                        Want{"-Inf in b at the middle column", "b", 2, 0xff80}, Want{"negative NaN in b", "b", 3, 0xffc0},
                        Want{"NaN with a payload in s", "s", 3, 0x7fd5}}) {
    SCOPED_TRACE(w.name);
    Case c = prep(w.name);
    auto v = c.get<bf16>(w.op);
    for (int64_t i = 0; i < N * G; ++i) {
      const bool at = i == (N - 1) * G + w.group;
      EXPECT_EQ(std::isfinite(from_bf16(v[i])), !at) << i;
      if (at) EXPECT_EQ(v[i].bits, w.bits);
    }
    // float64's class: the plant's W row is NaN or infinite, every other output finite.
    auto y = e.rig.reference(c);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) EXPECT_EQ(std::isfinite(y[0].want[m * N + n]), n != N - 1);
  }
  Case cx = prep("-Inf in x at the first column");
  EXPECT_EQ(from_bf16(cx.get<bf16>("x")[(M - 1) * K]), -INFINITY);
  Case rs = prep("a row of -Inf in s");
  for (int64_t g = 0; g < G; ++g) EXPECT_EQ(from_bf16(rs.get<bf16>("s")[(N - 1) * G + g]), -INFINITY);
  Case rx = prep("a row of -Inf in x");
  auto y = e.rig.reference(rx);
  for (int64_t n = 0; n < N; ++n) EXPECT_FALSE(std::isfinite(y[0].want[(M - 1) * N + n]));
  EXPECT_TRUE(std::isfinite(y[0].want[0]));
}

TEST(AffineFills, XTakesTheNamedFill) {
  Entry e = affine::projection(4, 64, DType::f32);
  EXPECT_EQ(e.rig.fills, (std::vector<std::string>{"zeros", "offset", "sign", "range"}));
  const int64_t M = 2, N = 3, K = 128;
  auto make = [&](const char* d) {
    Fill f{FillKind::random};
    f.dist = d;
    Case c(Shape{{"m", M}, {"n", N}, {"k", K}}, f, 6);
    c.spec = &e.spec;
    e.rig.prepare(c);
    return c;
  };
  Case o = make("offset");
  for (bf16 v : o.get<bf16>("x")) EXPECT_NEAR(from_bf16(v), 1000, 16);
  Case s = make("sign");
  auto sx = s.get<bf16>("x");
  for (int64_t i = 0; i < M * K; ++i) EXPECT_TRUE(i / K % 2 ? from_bf16(sx[i]) > 0 : from_bf16(sx[i]) < 0);
  Case z = make("zeros");
  int neg = 0, pos = 0;
  for (bf16 v : z.get<bf16>("x")) neg += v.bits == 0x8000, pos += v.bits == 0;
  EXPECT_GT(neg, 0);
  EXPECT_GT(pos, 0);
  auto y = e.rig.reference(make("range"));
  for (double v : y[0].want) EXPECT_TRUE(std::isfinite(v));
}

}  // namespace
