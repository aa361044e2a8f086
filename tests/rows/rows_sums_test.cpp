// Gate 4's integer rows: exact in fp32 whatever the order, and every fp16 and bf16 replay (three
// orders) misses the exact-sum bound by at least 100x, over many seeds, shapes and types.
#include <cmath>

#include <gtest/gtest.h>

#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;
using kc::Fill;
using kc::FillKind;

constexpr kc::SumFormat kF[] = {kc::SumFormat::f16, kc::SumFormat::bf16};
constexpr kc::SumOrder kO[] = {kc::SumOrder::chain, kc::SumOrder::halves, kc::SumOrder::lanes32};

// The gate-4 bound (DESIGN.md §2.4 without gamma, a declared ulp counted as 2u) for an output.
double exact_bound(const kc::Spec& s, DType out, double want) {
  double ulps = 0;
  for (const auto& u : s.sums->ulps) ulps += u.ulps;
  double aw = std::fabs(want);
  return aw * kc::half_ulp(out) + aw * (s.sums->ops * kc::u32 + ulps * 2 * kc::u32) * (1 + kc::half_ulp(out)) +
         kc::half_ulp_floor(out);
}

// The smallest miss over outputs of the best-missing output, per replay: gate 4 needs >= 100.
double worst_replay_miss(const kc::Entry& e, const kc::Case& c) {
  auto ex = e.rig.reference(c);
  double worst = INFINITY;
  for (auto f : kF)
    for (auto o : kO) {
      auto rep = e.rig.simulate(c, f, o);
      double best = 0;
      for (size_t k = 0; k < ex.size(); ++k) {
        DType t = c.buffer(ex[k].name).decl.type;
        for (size_t i = 0; i < ex[k].want.size(); ++i) {
          double r = rep[k][i], w = ex[k].want[i];
          best = std::max(best, std::isfinite(r) ? std::fabs(r - w) / exact_bound(*c.spec, t, w) : INFINITY);
        }
      }
      worst = std::min(worst, best);
    }
  return worst;
}

// Sums of the row in fp32, in three orders: each must equal the float64 sum (the fill's promise).
void expect_fp32_exact(const std::vector<double>& t, double exact) {
  float a = 0, b = 0;
  for (double v : t) a += float(v);
  for (size_t i = t.size(); i-- > 0;) b += float(t[i]);
  float lanes[32] = {};
  for (size_t i = 0; i < t.size(); ++i) lanes[i % 32] += float(t[i]);
  float l = 0;
  for (float v : lanes) l += v;
  EXPECT_EQ(double(a), exact);
  EXPECT_EQ(double(b), exact);
  EXPECT_EQ(double(l), exact);
  double abs = 0;
  for (double v : t) abs += std::fabs(v);
  EXPECT_LT(abs, 0x1p24);  // every partial sum of any order stays below 2^24
}

TEST(RowsSums, SumAndDotMissBy100xInEveryFormatAndOrder) {
  for (DType in : {DType::f32, DType::bf16, DType::f16})
    for (DType out : {DType::f32, DType::bf16, DType::f16})
      for (int64_t cols : {64, 100, 256, 1024})
        for (uint64_t seed = 1; seed <= 6; ++seed) {
          auto s = with_sums(kc::rows::sum(in, out));
          auto c = prepared(s, shape(1, cols), Fill{FillKind::sums}, seed);
          auto x = values(c, "x");
          expect_fp32_exact(x, 1);
          EXPECT_EQ(s.rig.reference(c)[0].want[0], 1);  // the row sums to exactly 1
          EXPECT_GE(worst_replay_miss(s, c), 100) << "sum " << kc::dtype_name(in) << " cols " << cols;
          auto d = with_sums(kc::rows::dot(in, out));
          auto cd = prepared(d, shape(1, cols), Fill{FillKind::sums}, seed);
          auto xd = values(cd, "x"), w = values(cd, "w");
          std::vector<double> t(xd.size());
          for (size_t j = 0; j < t.size(); ++j) t[j] = xd[j] * w[j];
          expect_fp32_exact(t, 1);
          EXPECT_GE(worst_replay_miss(d, cd), 100) << "dot " << kc::dtype_name(in) << " cols " << cols;
        }
}

// fp16 inputs cannot hold a term of 2^16; the dot's products still reach it (fp16 replays overflow
// on the product), and the plain sum (above) misses by rounding, its rows redrawn until every
// replay misses.
TEST(RowsSums, Fp16InputsDot) {
  for (int64_t cols : {64, 256, 1024})
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      auto d = with_sums(kc::rows::dot(DType::f16, DType::f32));
      auto c = prepared(d, shape(2, cols), Fill{FillKind::sums}, seed);
      EXPECT_GE(worst_replay_miss(d, c), 100) << cols;
    }
}

TEST(RowsSums, RmsNormSquaresAreExactAndFp16Overflows) {
  for (DType in : {DType::f32, DType::bf16})
    for (int64_t cols : {64, 256, 1024})
      for (uint64_t seed = 1; seed <= 4; ++seed) {
        auto e = with_sums(kc::rows::rms_norm(in, DType::f32), 6);
        auto c = prepared(e, shape(2, cols), Fill{FillKind::sums}, seed);
        auto x = values(c, "x");
        for (int64_t r = 0; r < 2; ++r) {
          std::vector<double> sq;
          double s = 0;
          for (int64_t j = 0; j < cols; ++j) {
            double v = x[size_t(r * cols + j)];
            EXPECT_EQ(v, std::floor(v));
            sq.push_back(v * v);
            s += v * v;
          }
          EXPECT_GE(s, 0x1p20);
          expect_fp32_exact(sq, s);
          for (auto o : kO) EXPECT_TRUE(std::isinf(kc::replay_sum(sq.data(), sq.size(), kc::SumFormat::f16, o)));
        }
        // With fp32 out, every replay (bf16 too) moves y by 100x its bound.
        EXPECT_GE(worst_replay_miss(e, c), 100) << kc::dtype_name(in) << " cols " << cols << " seed " << seed;
      }
}

TEST(RowsSums, AddRmsNormResidualsAreExact) {
  for (auto form : {kc::rows::Residual::rounded, kc::rows::Residual::once_rounded}) {
    auto e = with_sums(kc::rows::add_rms_norm(form), 6);
    auto c = prepared(e, shape(2, 256), Fill{FillKind::sums}, 3);
    auto x = values(c, "x"), r = values(c, "r");
    double s = 0;
    for (size_t i = 0; i < 256; ++i) {
      double h = x[i] + r[i];
      EXPECT_EQ(kc::round_to(DType::bf16, h), h);  // h is exact in bf16, so both forms agree
      s += h * h;
    }
    EXPECT_GE(s, 0x1p20);
    EXPECT_LT(s, 0x1p24);
    // The bf16 output hides a bf16 sum's error, but fp16 overflows and moves y by all of it.
    auto rep = e.rig.simulate(c, kc::SumFormat::f16, kc::SumOrder::lanes32);
    auto ex = e.rig.reference(c);
    EXPECT_EQ(rep[0], ex[0].want);  // h does not depend on the sum
    for (size_t i = 0; i < 256; ++i)
      if (ex[1].want[i] != 0) {
        EXPECT_EQ(rep[1][i], 0);
      }
    // Gate 4's integer sums are exact: the y interval has no gamma in it.
    auto cr = prepared(e, shape(2, 256), Fill{FillKind::random}, 3);
    auto er = e.rig.reference(cr);
    double wide_sums = 0, wide_rand = 0;
    for (size_t i = 0; i < 256; ++i) {
      wide_sums += (ex[1].hi[i] - ex[1].lo[i]) / std::max(std::fabs(ex[1].want[i]), 1e-30);
      wide_rand += (er[1].hi[i] - er[1].lo[i]) / std::max(std::fabs(er[1].want[i]), 1e-30);
    }
    EXPECT_LE(wide_sums, wide_rand);
  }
}

}  // namespace
