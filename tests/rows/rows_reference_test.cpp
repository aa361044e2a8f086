// The float64 references and magnitudes of the rows family on hand-made inputs, and their classes
// on non-finite ones.
#include <cmath>

#include <gtest/gtest.h>

#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;

// Prepare at a shape, then overwrite the inputs with hand-made rows.
kc::Case with(const kc::Entry& e, int64_t rows, int64_t cols, std::vector<std::pair<std::string, std::vector<double>>> in) {
  auto c = prepared(e, shape(rows, cols), {});
  for (auto& [name, v] : in)
    for (size_t i = 0; i < v.size(); ++i) set(c, name, i, v[i]);
  return c;
}

TEST(RowsReference, SumDotMax) {
  auto s = kc::rows::sum(DType::f32, DType::f32);
  auto c = with(s, 2, 3, {{"x", {1, -2, 4, 0.5, 0.25, -8}}});
  auto ex = s.rig.reference(c);
  ASSERT_EQ(ex.size(), 1u);
  EXPECT_EQ(ex[0].name, "y");
  EXPECT_EQ(ex[0].want, (std::vector<double>{3, -7.25}));
  EXPECT_EQ(ex[0].mag, (std::vector<double>{7, 8.75}));
  EXPECT_TRUE(ex[0].lo.empty());
  auto d = kc::rows::dot(DType::f32, DType::f32);
  auto cd = with(d, 2, 2, {{"x", {1, 2, 3, -4}}, {"w", {0.5, -1}}});
  auto ed = d.rig.reference(cd);
  EXPECT_EQ(ed[0].want, (std::vector<double>{-1.5, 5.5}));
  EXPECT_EQ(ed[0].mag, (std::vector<double>{2.5, 5.5}));
  auto m = kc::rows::max(DType::f32, DType::f32);
  auto cm = with(m, 3, 2, {{"x", {1, 2, NAN, 5, -INFINITY, -3}}});
  auto em = m.rig.reference(cm);
  EXPECT_EQ(em[0].want[0], 2);
  EXPECT_TRUE(std::isnan(em[0].want[1]));  // a NaN anywhere makes the row NaN
  EXPECT_EQ(em[0].want[2], -3);
}

TEST(RowsReference, RmsNormAndItsMagnitude) {
  auto e = kc::rows::rms_norm(DType::f32, DType::f32, 0);
  auto c = with(e, 1, 2, {{"x", {3, 4}}, {"w", {1, 2}}});
  auto ex = e.rig.reference(c);
  double inv = 1 / std::sqrt(12.5);
  EXPECT_DOUBLE_EQ(ex[0].want[0], 3 * inv);
  EXPECT_DOUBLE_EQ(ex[0].want[1], 8 * inv);
  // m = |y| / 2: a relative error e in the sum of squares moves y by e / 2.
  EXPECT_DOUBLE_EQ(ex[0].mag[1], 4 * inv);
  // Non-finite: +Inf in x makes the row's other outputs 0 (x / inf) and its own NaN (inf / inf).
  auto ci = with(e, 1, 3, {{"x", {1, INFINITY, 2}}, {"w", {1, 1, 1}}});
  auto ei = e.rig.reference(ci);
  EXPECT_EQ(ei[0].want[0], 0);
  EXPECT_TRUE(std::isnan(ei[0].want[1]));
}

TEST(RowsReference, SoftmaxSumsToOneAndIsNotExact) {
  auto e = kc::rows::softmax(DType::f32, DType::f32).sums(DType::f32, [](const kc::Shape& s) { return double(s["cols"]); });
  auto c = with(e, 1, 3, {{"x", {0, 1, 2}}});
  auto ex = e.rig.reference(c);
  double s = std::exp(-2.0) + std::exp(-1.0) + 1;
  EXPECT_DOUBLE_EQ(ex[0].want[2], 1 / s);
  EXPECT_DOUBLE_EQ(ex[0].want[0] + ex[0].want[1] + ex[0].want[2], 1);
  for (size_t j = 0; j < 3; ++j) EXPECT_DOUBLE_EQ(ex[0].mag[j], ex[0].want[j]);  // m = y: its terms are positive
  EXPECT_FALSE(ex[0].exact_sums);
  auto cn = with(e, 2, 2, {{"x", {INFINITY, 1, -INFINITY, 1}}});
  auto en = e.rig.reference(cn);
  EXPECT_TRUE(std::isnan(en[0].want[0]) && std::isnan(en[0].want[1]));  // inf - inf
  EXPECT_EQ(en[0].want[2], 0);
  EXPECT_EQ(en[0].want[3], 1);
}

TEST(RowsReference, ArgmaxAndTopkFollowTheirRules) {
  auto a = kc::rows::argmax(DType::f32);
  auto c = with(a, 3, 4, {{"x", {1, 5, 5, 2, 1, NAN, 9, 9, -INFINITY, INFINITY, 3, INFINITY}}});
  auto ex = a.rig.reference(c);
  EXPECT_EQ(ex[0].want, (std::vector<double>{1, -1, 1}));
  auto t = kc::rows::topk(DType::f32, 3);
  auto ct = with(t, 1, 5, {{"x", {2, NAN, 7, 7, INFINITY}}});
  auto et = t.rig.reference(ct);
  EXPECT_EQ(et[0].want, (std::vector<double>{1, 4, 2}));  // NaN, +inf, then the lower of two 7s
  EXPECT_TRUE(std::isnan(et[1].want[0]));
  EXPECT_EQ(et[1].want[1], INFINITY);
  EXPECT_EQ(et[1].want[2], 7);
}

TEST(RowsReference, GluAtItsRoundingPoints) {
  auto e = kc::rows::geglu();
  auto c = with(e, 1, 2, {{"g", {1, -2}}, {"u", {2, 0.5}}});
  auto ex = e.rig.reference(c);
  auto bf = [](double v) { return kc::round_to(DType::bf16, v); };
  double g = 1, erfp = bf(std::erf(bf(g * M_SQRT1_2)));
  double want0 = bf(bf(bf(0.5 * g) * bf(1 + erfp)) * 2);
  EXPECT_EQ(ex[0].want[0], want0);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_LE(ex[0].lo[i], ex[0].want[i]);
    EXPECT_GE(ex[0].hi[i], ex[0].want[i]);
    EXPECT_EQ(bf(ex[0].lo[i]), ex[0].lo[i]);  // the ends are bf16 values
  }
  auto s = kc::rows::swiglu();
  auto cs = with(s, 1, 1, {{"g", {3}}, {"u", {1}}});
  double sig = bf(1 / bf(1 + bf(std::exp(-3.0))));
  EXPECT_EQ(s.rig.reference(cs)[0].want[0], bf(bf(3 * sig) * 1));
}

TEST(RowsReference, AddRmsNormForms) {
  for (auto form : {kc::rows::Residual::rounded, kc::rows::Residual::once_rounded}) {
    auto e = kc::rows::add_rms_norm(form, 0);
    // 1 + 2^-9 is not a bf16 value: h rounds it to 1; the once-rounded norm reads 1 + 2^-9.
    auto c = with(e, 1, 2, {{"x", {1, 2}}, {"r", {0x1p-9, 0}}, {"w", {1, 1}}});
    auto ex = e.rig.reference(c);
    ASSERT_EQ(ex.size(), 2u);
    EXPECT_EQ(ex[0].name, "h");
    EXPECT_EQ(ex[0].want[0], 1);
    double v = form == kc::rows::Residual::rounded ? 1 : 1 + 0x1p-9;
    double want = kc::round_to(DType::bf16, v / std::sqrt((v * v + 4) / 2));
    EXPECT_EQ(ex[1].want[0], want);
    EXPECT_LE(ex[1].lo[0], want);
    EXPECT_GE(ex[1].hi[0], want);
  }
}

}  // namespace
