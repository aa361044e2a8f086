// The named value fills in the rows family: each has its property, and the references'
// magnitudes are the sums of |terms| of the actual inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;
using kc::Fill;
using kc::FillKind;

double min_normal(DType t) { return t == DType::f16 ? 0x1p-14 : 0x1p-126; }

TEST(RowsDist, FamiliesDeclareTheirFills) {
  auto fills = [](const kc::Entry& e) { return e.rig.fills; };
  using V = std::vector<std::string>;
  auto contains = [](const V& v, const V& want) {
    for (const auto& w : want)
      if (std::find(v.begin(), v.end(), w) == v.end()) return false;
    return true;
  };
  EXPECT_TRUE(contains(fills(kc::rows::max(DType::f32, DType::f32)), {"ties", "sign", "zeros"}));
  EXPECT_TRUE(contains(fills(kc::rows::rms_norm(DType::f32, DType::f32)), {"tiny", "offset", "range"}));
  EXPECT_TRUE(contains(fills(kc::rows::dot(DType::f32, DType::f32)), {"zeros", "offset", "sign"}));
  EXPECT_TRUE(contains(fills(kc::rows::softmax(DType::f32, DType::f32)), {"offset", "ties", "sign"}));
  // An unknown distribution is an error, not a spread fill under another name.
  auto e = kc::rows::max(DType::f32, DType::f32);
  EXPECT_THROW(prepared(e, shape(2, 8), dist("gaussian")), kc::Error);
}

TEST(RowsDist, OffsetReallyCancelsInFp32) {
  auto e = kc::rows::rms_norm(DType::f32, DType::f32);
  const int64_t rows = 4, cols = 256;
  auto x = values(prepared(e, shape(rows, cols), dist("offset")), "x");
  for (int64_t r = 0; r < rows; ++r) {
    const double* v = x.data() + r * cols;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mean += v[j] / cols;
    for (int64_t j = 0; j < cols; ++j) var += (v[j] - mean) * (v[j] - mean) / cols;
    float s = 0, sq = 0;  // one pass in fp32: E[x^2] - E[x]^2
    for (int64_t j = 0; j < cols; ++j) s += float(v[j]), sq += float(v[j]) * float(v[j]);
    const float n = float(cols), var32 = sq / n - (s / n) * (s / n);
    EXPECT_GT(std::fabs(double(var32) - var), var) << "row " << r << ": fp32 one-pass " << var32 << ", float64 " << var;
    EXPECT_NEAR(mean, 1000, 0.02);
  }
  // In 16-bit types the offset still dwarfs the spread (a condition number of at least 2^10).
  for (DType t : {DType::bf16, DType::f16}) {
    auto eb = kc::rows::rms_norm(t, t);
    auto xb = values(prepared(eb, shape(1, cols), dist("offset")), "x");
    double mean = 0, var = 0, sq = 0;
    for (double v : xb) mean += v / cols, sq += v * v / cols;
    for (double v : xb) var += (v - mean) * (v - mean) / cols;
    EXPECT_GT(var, 0);
    EXPECT_GT(sq / var, 1024.0) << kc::dtype_name(t);
  }
}

TEST(RowsDist, TiesZerosSignTinySubnormalRange) {
  const int64_t rows = 4, cols = 64;
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    SCOPED_TRACE(kc::dtype_name(t));
    auto e = kc::rows::max(t, t);
    auto ties = values(prepared(e, shape(rows, cols), dist("ties")), "x");
    auto zeros = values(prepared(e, shape(rows, cols), dist("zeros")), "x");
    auto sign = values(prepared(e, shape(rows, cols), dist("sign")), "x");
    auto sub = values(prepared(e, shape(rows, cols), dist("subnormal")), "x");
    auto tiny = values(prepared(kc::rows::rms_norm(t, t), shape(rows, cols), dist("tiny")), "x");
    for (int64_t r = 0; r < rows; ++r) {
      auto row = [&](const std::vector<double>& v) { return std::vector<double>(v.begin() + r * cols, v.begin() + (r + 1) * cols); };
      auto signed_zeros = [](const std::vector<double>& v, int64_t& neg, int64_t& pos) {
        neg = pos = -1;
        for (int64_t j = 0; j < int64_t(v.size()); ++j)
          if (v[size_t(j)] == 0) (std::signbit(v[size_t(j)]) ? neg : pos) = j;
      };
      // ties: the row's maximum at two columns or more, few distinct values, -0 below +0.
      auto tr = row(ties);
      const double m = *std::max_element(tr.begin(), tr.end());
      EXPECT_GE(std::count(tr.begin(), tr.end(), m), 2);
      std::vector<double> distinct = tr;
      std::sort(distinct.begin(), distinct.end());
      EXPECT_LE(std::unique(distinct.begin(), distinct.end()) - distinct.begin(), 5);
      int64_t neg, pos;
      signed_zeros(tr, neg, pos);
      EXPECT_GE(neg, 0);
      EXPECT_GE(pos, 0);
      if (r % 2) {  // odd rows: all negative but the zeros, so the maximum is a zero
        EXPECT_EQ(m, 0.0);
        int64_t first0 = std::find(tr.begin(), tr.end(), 0.0) - tr.begin();
        EXPECT_TRUE(std::signbit(tr[size_t(first0)])) << "-0 sits before +0";
      }
      // zeros: both signed zeros present.
      signed_zeros(row(zeros), neg, pos);
      EXPECT_GE(neg, 0);
      EXPECT_GE(pos, 0);
      // sign: even rows all negative, odd rows all positive, no zeros.
      for (double v : row(sign)) EXPECT_TRUE(r % 2 ? v > 0 : v < 0) << v;
      // tiny: far below 1, never zero.
      for (double v : row(tiny)) EXPECT_TRUE(v != 0 && std::fabs(v) < 0x1p-8) << v;
      // subnormal: every value subnormal in the type.
      for (double v : row(sub)) EXPECT_TRUE(v != 0 && std::fabs(v) < min_normal(t)) << v;
    }
  }
  // range: magnitudes across the type's range in one row, the top near the output's overflow for
  // a max, and for a sum |terms| adding to less than a quarter of the output's largest value.
  auto mx = values(prepared(kc::rows::max(DType::f32, DType::f32), shape(1, 256), dist("range")), "x");
  double lo = INFINITY, hi = 0;
  for (double v : mx) lo = std::min(lo, std::fabs(v)), hi = std::max(hi, std::fabs(v));
  EXPECT_LT(lo, 0x1p-100);
  EXPECT_GT(hi, 0x1p126);
  auto sum = kc::rows::sum(DType::bf16, DType::bf16);
  auto sc = prepared(sum, shape(2, 1024), dist("range"));
  auto sx = values(sc, "x");
  double total = 0;
  for (size_t i = 0; i < 1024; ++i) total += std::fabs(sx[i]);
  EXPECT_LT(total, 0x1p126);
  EXPECT_GT(total, 0x1p100);
  const auto ys = sum.rig.reference(sc);  // held: a range-for over a temporary's element would dangle
  for (double v : ys[0].want) EXPECT_TRUE(std::isfinite(v));
}

TEST(RowsDist, MagnitudesAreSumsOfTheActualTerms) {
  // Offset x over signed w: the dot cancels in part, and its magnitude is sum |x w|, above |y|.
  auto e = kc::rows::dot(DType::f32, DType::f32);
  const int64_t rows = 3, cols = 128;
  auto c = prepared(e, shape(rows, cols), dist("offset"));
  auto x = values(c, "x"), w = values(c, "w");
  auto ex = e.rig.reference(c)[0];
  bool cancels = false;
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0;
    for (int64_t j = 0; j < cols; ++j) m += std::fabs(x[size_t(r * cols + j)] * w[size_t(j)]);
    EXPECT_DOUBLE_EQ(ex.mag[size_t(r)], m);
    EXPECT_GE(m, std::fabs(ex.want[size_t(r)]));
    cancels |= m > 1.5 * std::fabs(ex.want[size_t(r)]);
  }
  EXPECT_TRUE(cancels);
  // Seeds and fills: the same case twice is the same; another fill is another.
  auto again = values(prepared(e, shape(rows, cols), dist("offset")), "x");
  EXPECT_EQ(again, x);
  EXPECT_NE(values(prepared(e, shape(rows, cols), dist("sign")), "x"), x);
}

}  // namespace
