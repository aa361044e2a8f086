// Plants and fills in the rows family: each plant lands where its name says (column,
// whole row, NaN sign and payload bits in the buffer), float64's classes for whole rows, and each
// named fill has its property.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "../plant_index.hpp"
#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;
using kc::Fill;
using kc::FillKind;

uint64_t bits(const kc::Case& c, const std::string& name, size_t i) {
  const kc::HostBuffer& b = c.buffer(name);
  uint64_t v = 0;
  const size_t es = kc::dtype_size(b.decl.type);
  std::memcpy(&v, b.bytes.data() + i * es, es);
  return v;
}

// The columns of row `row` that are not finite.
std::vector<int64_t> nonfinite_cols(const std::vector<double>& v, int64_t row, int64_t cols) {
  std::vector<int64_t> out;
  for (int64_t j = 0; j < cols; ++j)
    if (!std::isfinite(v[size_t(row * cols + j)])) out.push_back(j);
  return out;
}

TEST(RowsPlants, SinglePlantsAtFirstMiddleAndLastColumns) {
  const int64_t rows = 5, cols = 20, mid = rows / 2;
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    auto e = kc::rows::softmax(t, DType::f32);
    struct Want {
      const char* name;
      int64_t col;
      bool nan;
    };
    for (const Want& w : {Want{"NaN in x at the first column", 0, true}, Want{"NaN in x at the middle column", 10, true},
                          Want{"NaN in x", 19, true}, Want{"-Inf in x at the first column", 0, false},
                          Want{"-Inf in x at the middle column", 10, false}, Want{"-Inf in x", 19, false}}) {
      SCOPED_TRACE(w.name);
      auto c = prepared(e, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(e, w.name), -1});
      auto v = values(c, "x");
      EXPECT_EQ(nonfinite_cols(v, mid, cols), std::vector<int64_t>{w.col});
      double at = v[size_t(mid * cols + w.col)];
      EXPECT_TRUE(w.nan ? std::isnan(at) : at == -INFINITY);
      EXPECT_TRUE(all_finite(v, 0, size_t(mid * cols)));
      EXPECT_TRUE(all_finite(v, size_t((mid + 1) * cols), v.size()));
      // Fill::pos still moves it (--repro shrinks over it).
      auto c7 = prepared(e, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(e, w.name), 7});
      EXPECT_EQ(nonfinite_cols(values(c7, "x"), mid, cols), std::vector<int64_t>{7});
    }
  }
}

TEST(RowsPlants, NaNSignAndPayloadBitsAreInTheBuffer) {
  struct T {
    DType t;
    uint64_t quiet, negative;
    int width;
  };
  for (const T& t : {T{DType::f32, 0x7fc00000u, 0xffc00000u, 32}, T{DType::bf16, 0x7fc0u, 0xffc0u, 16},
                     T{DType::f16, 0x7e00u, 0xfe00u, 16}}) {
    auto e = kc::rows::max(t.t, t.t);
    const int64_t rows = 3, cols = 16, at = 1 * cols + cols - 1;
    auto neg = prepared(e, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(e, "negative NaN in x"), -1});
    EXPECT_EQ(bits(neg, "x", at), t.negative) << kc::dtype_name(t.t);
    auto pay = prepared(e, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(e, "NaN with a payload in x"), -1});
    const uint64_t b = bits(pay, "x", at);
    EXPECT_TRUE(std::isnan(values(pay, "x")[at]));
    EXPECT_NE(b, t.quiet) << "the payload is the default one";
    EXPECT_EQ(b >> (t.width - 1), 0u) << "the payload NaN is positive";
    EXPECT_EQ(b & t.quiet, t.quiet) << "quiet";
    auto plain = prepared(e, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(e, "NaN in x"), -1});
    EXPECT_EQ(bits(plain, "x", at), t.quiet);
  }
}

TEST(RowsPlants, WholeRowsAndTheirFloat64Classes) {
  const int64_t rows = 3, cols = 32, mid = 1;
  // softmax is a formula: its reference wants the kernel's sums declared (a chain over the row).
  auto sm = kc::rows::softmax(DType::f32, DType::f32).sums(DType::f32, [](const kc::Shape& s) { return double(s["cols"]); });
  auto mx = kc::rows::max(DType::f32, DType::f32);
  for (const kc::Entry* e : {&sm, &mx}) {
    // A fully masked row: every value -Inf; float64's softmax is NaN (exp(-inf - -inf)), its max -Inf.
    auto c = prepared(*e, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(*e, "a row of -Inf in x"), -1});
    auto x = values(c, "x");
    for (int64_t j = 0; j < cols; ++j) EXPECT_EQ(x[size_t(mid * cols + j)], -INFINITY);
    EXPECT_TRUE(all_finite(x, 0, size_t(cols)));
    EXPECT_TRUE(all_finite(x, size_t(2 * cols), x.size()));
    auto y = e->rig.reference(c)[0].want;
    if (e == &sm) {
      for (int64_t j = 0; j < cols; ++j) EXPECT_TRUE(std::isnan(y[size_t(mid * cols + j)])) << j;
      EXPECT_TRUE(all_finite(y, 0, size_t(cols)));
    } else {
      EXPECT_EQ(y[mid], -INFINITY);
      EXPECT_TRUE(std::isfinite(y[0]) && std::isfinite(y[2]));
    }
    // One kept value: the softmax is one-hot there, the max is that value.
    for (int64_t pos : {int64_t(-1), int64_t(5)}) {
      auto k = prepared(*e, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(*e, "a row of -Inf but one finite value in x"), pos});
      auto xk = values(k, "x");
      const int64_t keep = pos < 0 ? cols - 1 : pos;
      EXPECT_EQ(nonfinite_cols(xk, mid, cols).size(), size_t(cols - 1));
      EXPECT_TRUE(std::isfinite(xk[size_t(mid * cols + keep)]));
      auto yk = e->rig.reference(k)[0].want;
      if (e == &sm)
        for (int64_t j = 0; j < cols; ++j) EXPECT_EQ(yk[size_t(mid * cols + j)], j == keep ? 1.0 : 0.0);
      else
        EXPECT_EQ(yk[mid], xk[size_t(mid * cols + keep)]);
    }
  }
  // A row of +Inf: softmax NaN (inf - inf), max +Inf; a row of NaN: NaN.
  auto p = prepared(sm, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(sm, "a row of +Inf in x"), -1});
  EXPECT_TRUE(std::isnan(sm.rig.reference(p)[0].want[size_t(mid * cols)]));
  auto q = prepared(mx, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(mx, "a row of NaN in x"), -1});
  EXPECT_TRUE(std::isnan(mx.rig.reference(q)[0].want[mid]));
  // dot: all of w -Inf against signed x: NaN in every row.
  auto d = kc::rows::dot(DType::f32, DType::f32);
  auto dw = prepared(d, shape(rows, cols), Fill{FillKind::nonfinite, plant_index(d, "a row of -Inf in w"), -1});
  for (double v : values(dw, "w")) EXPECT_EQ(v, -INFINITY);
  const auto yw = d.rig.reference(dw);  // held: a range-for over a temporary's element would dangle
  for (double v : yw[0].want) EXPECT_TRUE(std::isnan(v));
}

TEST(RowsPlants, EachFamilyStatesItsWholeRows) {
  auto has = [](const kc::Entry& e, const std::string& n) {
    for (const auto& p : e.rig.plants)
      if (p == n) return true;
    return false;
  };
  EXPECT_TRUE(has(kc::rows::max(DType::f32, DType::f32), "a row of -Inf but one finite value in x"));
  EXPECT_TRUE(has(kc::rows::argmax(DType::f32), "a row of NaN in x"));
  EXPECT_TRUE(has(kc::rows::rms_norm(DType::f32, DType::f32), "a row of -Inf in x"));
  EXPECT_FALSE(has(kc::rows::rms_norm(DType::f32, DType::f32), "a row of -Inf in w"));  // w: a per-column scale
  EXPECT_FALSE(has(kc::rows::geglu(), "a row of -Inf in g"));                          // elementwise
  EXPECT_TRUE(has(kc::rows::geglu(), "NaN in u at the first column"));
  EXPECT_TRUE(has(kc::rows::add_rms_norm(kc::rows::Residual::rounded), "negative NaN in r"));
}

}  // namespace
