// rows::softmax written on the formula API against the family's former hand-written rig, restated
// here: the same inputs at every gate's fill (spread, named, plants, gate 4's stall rows), the same
// float64 reference bit for bit, magnitude y, and the same fp16/bf16 replays bit for bit.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "kc/families/blocks.hpp"
#include "kc/families/plants.hpp"
#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;
using kc::Fill;
using kc::FillKind;

kc::Entry softmax(DType in) { return with_sums(kc::rows::softmax(in, DType::f32)); }

// The former prepare for gates 1-3: spread values over binades -3..2, or a named fill, then a plant.
std::vector<double> old_inputs(kc::Case& c, DType in) {
  static const auto ops = kc::plants::standard({{"x", kc::plants::kAllRows}});
  const kc::blocks::Dims d{c.shape()["rows"], c.shape()["cols"]};
  kc::Case o(c.shape(), c.fill(), c.seed());
  o.spec = c.spec;
  kc::blocks::Buf x(o, "x", in, size_t(d.rows * d.cols), kc::Role::in);
  kc::blocks::Rng r = kc::blocks::rng_for(o, "x");
  if (!kc::blocks::fill_dist(x, o, "x", d, true)) kc::blocks::fill_spread(x, r, -3, 2);
  kc::blocks::plant_if(x, o, ops, "x", d, true);
  return values(o, "x");
}

double row_max(const double* x, int64_t n) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    if (std::isnan(x[j])) return x[j];
    m = std::max(m, x[j]);
  }
  return m;
}

// The former reference (want) and simulate (one replay of each row's sum), on x as stored.
std::vector<double> old_y(const std::vector<double>& x, int64_t rows, int64_t cols, const kc::blocks::Replay* rp) {
  std::vector<double> y(x.size()), t(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * cols;
    const double m = row_max(xr, cols);
    double s = 0;
    for (int64_t j = 0; j < cols; ++j) s += (t[size_t(j)] = std::exp(xr[j] - m));
    if (rp) s = kc::replay_sum(t.data(), t.size(), rp->f, rp->o);
    for (int64_t j = 0; j < cols; ++j) y[size_t(r * cols + j)] = t[size_t(j)] / s;
  }
  return y;
}

bool same_bits(double a, double b) { return std::isnan(a) ? std::isnan(b) : a == b; }

TEST(RowsSoftmaxFormula, SameInputsReferenceAndReplaysAsTheHandWrittenRig) {
  for (DType in : {DType::f32, DType::bf16}) {
    const auto e = softmax(in);
    std::vector<Fill> fills{Fill{}, dist("offset"), dist("ties"), dist("sign"), Fill{FillKind::sums}};
    for (int p = 0; p < int(e.rig.plants.size()); p += 3) fills.push_back(Fill{FillKind::nonfinite, p, -1});
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 64}, {3, 257}, {5, 1000}})
      for (const Fill& f : fills) {
        auto c = prepared(e, shape(rows, cols), f, 7 + uint64_t(rows));
        const auto x = values(c, "x");
        const std::string at = kc::Shape(shape(rows, cols)).str() + " fill " + std::to_string(int(f.kind)) + f.dist;
        if (f.kind != FillKind::sums) {
          const auto xo = old_inputs(c, in);
          for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(same_bits(x[i], xo[i])) << at << " x[" << i << "]";
        }
        const auto ex = e.rig.reference(c);
        ASSERT_EQ(ex.size(), 1u);
        const auto want = old_y(x, rows, cols, nullptr);
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_TRUE(same_bits(ex[0].want[i], want[i])) << at << " y[" << i << "]";
          if (!ex[0].mag.empty() && std::isfinite(want[i])) ASSERT_NEAR(ex[0].mag[i], want[i], 1e-15 * want[i]) << at;
        }
        if (f.kind == FillKind::nonfinite) continue;
        for (const auto& rp : kc::blocks::kReplays) {
          const auto rep = e.rig.simulate(c, rp.f, rp.o);
          const auto old = old_y(x, rows, cols, &rp);
          for (size_t i = 0; i < old.size(); ++i) ASSERT_TRUE(same_bits(rep[0][i], old[i])) << at << " replay y[" << i << "]";
        }
      }
  }
}

// Gate 4's rows: two levels a row, m (0..4) and m + d, d < 0, the 1s where the lanes' chains start.
TEST(RowsSoftmaxFormula, GateFourRowsAreStallRows) {
  const auto e = softmax(DType::bf16);
  auto c = prepared(e, shape(3, 256), Fill{FillKind::sums});
  const auto x = values(c, "x");
  for (int64_t r = 0; r < 3; ++r) {
    const double m = x[size_t(r * 256)];
    EXPECT_TRUE(m >= 0 && m <= 4 && m == std::floor(m));
    int small = 0;
    for (int64_t j = 0; j < 256; ++j) {
      const double v = x[size_t(r * 256 + j)];
      EXPECT_LE(v, m);
      small += v < m;
    }
    EXPECT_GT(small, 128);
  }
}

}  // namespace
