// rows::layer_norm: the float64 reference on rows checked by hand; the offset fill, on which a
// two-pass fp32 kernel stays inside every output's interval and a one-pass E[x^2] - E[x]^2 falls
// outside (the fill really cancels in fp32); gate 4's zero-mean integer rows, exact in fp32 and
// missed by every fp16 and bf16 replay.
#include <cmath>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;
using kc::Fill;
using kc::FillKind;

// Six fp32 ops after the sums (/ n, + eps, sqrt, 1 / ., * rstd, * w), sums a chain (with_sums).
kc::Entry entry(DType in, DType out, double eps = 1e-5) { return with_sums(kc::rows::layer_norm(in, out, eps), 6); }

enum class Var { two_pass, one_pass, welford };

// An fp32 layer norm writing y, mean and rstd into the case; its sums are chains, as declared.
void kernel(kc::Case& c, Var form, float eps = 1e-5f) {
  const int64_t rows = c.shape()["rows"], cols = c.shape()["cols"];
  auto x = values(c, "x"), w = values(c, "w"), b = values(c, "b");
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * cols;
    float mu = 0, var = 0;
    if (form == Var::welford) {
      float m2 = 0;
      for (int64_t j = 0; j < cols; ++j) {
        const float d = float(xr[j]) - mu;
        mu += d / float(j + 1);
        m2 += d * (float(xr[j]) - mu);
      }
      var = m2 / float(cols);
    } else {
      float s = 0, q = 0;
      for (int64_t j = 0; j < cols; ++j) s += float(xr[j]);
      mu = s / float(cols);
      for (int64_t j = 0; j < cols; ++j) {
        const float v = float(xr[j]), d = v - mu;
        q += form == Var::one_pass ? v * v : d * d;
      }
      var = form == Var::one_pass ? q / float(cols) - mu * mu : q / float(cols);
      if (var < 0) var = 0;  // one pass: clamped, as real code does
    }
    const float rs = 1.0f / std::sqrt(var + eps);
    for (int64_t j = 0; j < cols; ++j)
      set(c, "y", size_t(r * cols + j), (float(xr[j]) - mu) * rs * float(w[size_t(j)]) + float(b[size_t(j)]));
    set(c, "mean", size_t(r), mu);
    set(c, "rstd", size_t(r), rs);
  }
}

// Outputs outside their interval, per output buffer name (y, mean, rstd).
std::map<std::string, size_t> outside(const kc::Entry& e, const kc::Case& c) {
  std::map<std::string, size_t> bad;
  for (const auto& ex : e.rig.reference(c)) {
    auto got = values(c, ex.name);
    EXPECT_EQ(ex.lo.size(), got.size());
    for (size_t i = 0; i < got.size(); ++i)
      if (!(got[i] >= ex.lo[i] && got[i] <= ex.hi[i])) ++bad[ex.name];
  }
  return bad;
}

TEST(RowsLayerNorm, ReferenceByHand) {
  auto e = entry(DType::f32, DType::f32, 0.0);
  auto c = prepared(e, shape(2, 4), {});
  const double x[8] = {1, 2, 3, 4, -1, 1, -1, 1}, w[4] = {1, 2, 1, 0.5}, b[4] = {0, 1, -1, 0.25};
  for (size_t i = 0; i < 8; ++i) set(c, "x", i, x[i]);
  for (size_t i = 0; i < 4; ++i) set(c, "w", i, w[i]), set(c, "b", i, b[i]);
  auto ex = e.rig.reference(c);
  ASSERT_EQ(ex.size(), 3u);
  ASSERT_EQ(ex[0].name, "y");
  // Row 0: mean 2.5, variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25. Row 1: mean 0, variance 1.
  EXPECT_DOUBLE_EQ(ex[1].want[0], 2.5);
  EXPECT_DOUBLE_EQ(ex[2].want[0], 1 / std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(ex[1].want[1], 0);
  EXPECT_DOUBLE_EQ(ex[2].want[1], 1);
  const double r0 = 1 / std::sqrt(1.25);
  const double y0[4] = {-1.5 * r0 * 1 + 0, -0.5 * r0 * 2 + 1, 0.5 * r0 * 1 - 1, 1.5 * r0 * 0.5 + 0.25};
  const double y1[4] = {-1, 3, -2, 0.75};
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_DOUBLE_EQ(ex[0].want[j], y0[j]) << j;
    EXPECT_DOUBLE_EQ(ex[0].want[4 + j], y1[j]) << j;
  }
  // Every interval holds float64's value, and a two-pass fp32 kernel's.
  for (const auto& o : ex)
    for (size_t i = 0; i < o.want.size(); ++i) EXPECT_TRUE(o.lo[i] <= o.want[i] && o.want[i] <= o.hi[i]) << o.name << i;
  kernel(c, Var::two_pass, 0.0f);
  EXPECT_TRUE(outside(e, c).empty());
}

TEST(RowsLayerNorm, MaskedRowAndNaNReachMeanAndRstd) {
  auto e = entry(DType::bf16, DType::bf16);
  const auto& plants = e.rig.plants;
  auto at = [&](const std::string& name) {
    for (size_t p = 0; p < plants.size(); ++p)
      if (plants[p] == name) return int(p);
    ADD_FAILURE() << "no plant " << name;
    return 0;
  };
  for (const char* p : {"NaN in x", "-Inf in x", "a row of -Inf in x"}) {
    auto c = prepared(e, shape(3, 16), Fill{FillKind::nonfinite, at(p), -1});
    auto ex = e.rig.reference(c);
    // Row 1 (the middle) holds the plant: its rstd and every y are NaN; the other rows are finite.
    EXPECT_TRUE(std::isnan(ex[2].want[1])) << p;
    EXPECT_TRUE(std::isfinite(ex[2].want[0]) && std::isfinite(ex[2].want[2])) << p;
    for (size_t j = 16; j < 32; ++j) EXPECT_TRUE(std::isnan(ex[0].want[j])) << p;
    EXPECT_TRUE(all_finite(ex[0].want, 0, 16) && all_finite(ex[0].want, 32, 48)) << p;
  }
  for (const char* p : {"-Inf in x", "a row of -Inf in x"}) {  // the mean of a row holding -Inf
    auto c = prepared(e, shape(3, 16), Fill{FillKind::nonfinite, at(p), -1});
    EXPECT_EQ(e.rig.reference(c)[1].want[1], -INFINITY) << p;
  }
}

// The offset fill cancels in fp32: the rounding of E[x^2] alone (near 1e6, fp32's half ulp there
// is 2^-5) is larger than the variance (about 3e-5), so a one-pass variance keeps no digit of it.
TEST(RowsLayerNorm, OffsetFillCancelsInFp32) {
  auto e = entry(DType::f32, DType::f32);
  auto c = prepared(e, shape(8, 256), dist("offset"));
  auto x = values(c, "x");
  for (int64_t r = 0; r < 8; ++r) {
    double s = 0, s2 = 0;
    for (int64_t j = 0; j < 256; ++j) s += x[size_t(r * 256 + j)];
    for (int64_t j = 0; j < 256; ++j) s2 += std::pow(x[size_t(r * 256 + j)] - s / 256, 2);
    const double ex2 = (s2 / 256) + (s / 256) * (s / 256);
    EXPECT_GT(ex2 * kc::u32, 100 * (s2 / 256)) << r;
  }
}

TEST(RowsLayerNorm, TwoPassInsideOnePassOutsideOnOffset) {
  for (auto [rows, cols] : {std::pair{8, 64}, std::pair{8, 257}, std::pair{4, 1024}})
    for (uint64_t seed : {1, 2, 3, 4}) {
      auto e = entry(DType::f32, DType::f32);
      auto c = prepared(e, shape(rows, cols), dist("offset"), seed);
      kernel(c, Var::two_pass);
      EXPECT_TRUE(outside(e, c).empty()) << cols << " seed " << seed;
      kernel(c, Var::one_pass);
      auto bad = outside(e, c);
      EXPECT_EQ(bad["rstd"], size_t(rows)) << cols << " seed " << seed;  // every row's rstd
      EXPECT_EQ(bad["mean"], 0u);  // the same mean as two passes
    }
}

// On the spread, tiny and range fills one pass stays inside too (the control built on one pass is
// red at the offset fill alone), and a Welford chain inside its own form's intervals (the two-pass
// mean is exact where the sum is: bf16's tiny rows, which a running mean is not); two passes on both
// types' offset rows.
TEST(RowsLayerNorm, OtherFillsPassEveryForm) {
  kc::rows::LayerNormForm wf;
  wf.variance = kc::rows::LayerNormForm::Variance::welford;
  for (const char* d : {"", "tiny", "range", "offset"})
    for (DType t : {DType::f32, DType::bf16})
      for (uint64_t seed : {1, 2, 3}) {
        auto e = entry(t, t), ew = with_sums(kc::rows::layer_norm(t, t, 1e-5, wf), 6);
        auto c = prepared(e, shape(8, 300), dist(d), seed);
        for (Var v : {Var::two_pass, Var::one_pass, Var::welford}) {
          if (v != Var::two_pass && std::string(d) == "offset") continue;
          kernel(c, v);
          auto bad = outside(v == Var::welford ? ew : e, c);
          EXPECT_TRUE(bad.empty()) << "fill '" << d << "' " << kc::dtype_name(t) << " form " << int(v) << " seed "
                                   << seed << ": " << bad["y"] << " y, " << bad["mean"] << " mean, " << bad["rstd"]
                                   << " rstd outside";
        }
      }
}

// The intervals are derived for two passes. A Welford chain's variance errs to first order in its
// running mean's error (Chan, Golub and LeVeque: n kappa u, against two passes' n u + (n kappa u)^2,
// kappa = rms / sigma, about 1.7e5 on fp32's offset rows): about 1e-3 either way there, where two
// passes can only overestimate, by (mu - mean)^2. Declaring the two-pass depth, it falls outside:
// a Welford kernel is held to the interval with the depth it declares, and must declare more.
TEST(RowsLayerNorm, WelfordChainOutsideOnFp32Offset) {
  size_t bad = 0;
  for (uint64_t seed : {1, 2, 3}) {
    auto e = entry(DType::f32, DType::f32);
    auto c = prepared(e, shape(4, 300), dist("offset"), seed);
    kernel(c, Var::welford);
    bad += outside(e, c)["rstd"];
  }
  EXPECT_GT(bad, 0u);
}

// Gate 4: each row sums to exactly 0 in fp32 in any order, its squares exactly (at most 2^24);
// every fp16 and bf16 replay moves rstd by at least 100x its exact-sum bound; an fp32 two-pass
// kernel meets the intervals, which drop gamma there.
TEST(RowsLayerNorm, SumsFillExactAndReplaysMiss) {
  for (DType t : {DType::f32, DType::bf16})
    for (auto [rows, cols] : {std::pair{4, 64}, std::pair{3, 257}, std::pair{2, 1024}}) {
      auto e = entry(t, t);
      auto c = prepared(e, shape(rows, cols), Fill{FillKind::sums});
      auto x = values(c, "x");
      for (int64_t r = 0; r < rows; ++r) {
        const double* xr = x.data() + r * cols;
        float fwd = 0, back = 0, q = 0;
        double s2 = 0;
        for (int64_t j = 0; j < cols; ++j) fwd += float(xr[j]), q += float(xr[j]) * float(xr[j]), s2 += xr[j] * xr[j];
        for (int64_t j = cols; j-- > 0;) back += float(xr[j]);
        EXPECT_EQ(fwd, 0.0f);
        EXPECT_EQ(back, 0.0f);
        EXPECT_EQ(double(q), s2);
        EXPECT_LE(s2, 0x1p24);
      }
      auto ex = e.rig.reference(c);
      const double bound = kc::u32 + 6 * kc::u32;  // rstd's: u_out + ops u
      for (auto f : {kc::SumFormat::f16, kc::SumFormat::bf16})
        for (auto o : {kc::SumOrder::chain, kc::SumOrder::halves, kc::SumOrder::lanes32}) {
          auto rep = e.rig.simulate(c, f, o);
          ASSERT_EQ(rep.size(), 3u);
          double best = 0;
          for (int64_t r = 0; r < rows; ++r) {
            const double want = ex[2].want[size_t(r)], got = rep[2][size_t(r)];
            best = std::max(best, std::isfinite(got) ? std::fabs(got - want) / (want * bound) : INFINITY);
          }
          EXPECT_GE(best, 100) << cols << " " << int(f) << " " << int(o);
        }
      kernel(c, Var::two_pass);
      EXPECT_TRUE(outside(e, c).empty()) << cols;
    }
}

}  // namespace
