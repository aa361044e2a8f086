// What a failing line says: gate 4 names the replay that explains a kernel's miss, or says none
// does; a line names the worst output of every buffer that fails; a broken stated rule names a plant
// only where the plant caused it; a named fill is printed once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "../../kernels/rows/cpu_tiles.hpp"
#include "../../kernels/rows/layer_norm/cpu_layer_norm.hpp"
#include "harness.hpp"
#include "kc/families/rows.hpp"
#include "kc/numeric.hpp"
#include "kc/registry.hpp"

using namespace testing_kc;
using kc::Gate;
using kc::Status;

namespace {

kc::Entry sum_entry() {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {1, 3}}, {"cols", {64, 300}}})
      .tile("cols", 64, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]); });
}

// A chain over the row's first `n` terms, each partial sum rounded to fp16 where `half`.
void chain_sum(const kc::Buffers& b, bool half, bool drop_last) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  auto h = [&](float v) { return half ? kc::from_f16(kc::to_f16(v)) : v; };
  for (int64_t r = 0; r < rows; ++r) {
    float s = 0;
    for (int64_t c = 0; c < cols - (drop_last ? 1 : 0); ++c) s = h(s + h(x[r * cols + c]));
    y[r] = s;
  }
}

// topk by a full sort with a given order; `higher_id_on_ties` and `nan_last` break the stated rule.
void topk4(const kc::Buffers& b, bool higher_id_on_ties, bool nan_last) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  int32_t* ids = b.out<int32_t>("ids");
  float* vals = b.out<float>("vals");
  std::vector<int32_t> idx(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int32_t a, int32_t c) {
      const bool na = std::isnan(xr[a]), nc = std::isnan(xr[c]);
      if (na != nc) return nan_last ? nc : na;
      if (!na && xr[a] != xr[c]) return xr[a] > xr[c];
      return higher_id_on_ties ? a > c : a < c;
    });
    for (int k = 0; k < 4; ++k) ids[r * 4 + k] = idx[size_t(k)], vals[r * 4 + k] = xr[idx[size_t(k)]];
  }
}

kc::Entry topk_entry() {
  return kc::rows::topk(kc::DType::f32, 4).served({{"rows", {1, 5}}, {"cols", {8, 64}}}).range("cols", 4, 1);
}

// A layer norm whose variance divides by n - 1 (the unbiased estimate): rstd and y both move.
void unbiased_layer_norm(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  const float* w = b.in<float>("w");
  const float* bias = b.in<float>("b");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float s = 0, q = 0;
    for (int64_t c = 0; c < cols; ++c) s += xr[c];
    const float mu = s / float(cols);
    for (int64_t c = 0; c < cols; ++c) q += (xr[c] - mu) * (xr[c] - mu);
    const float rs = 1.0f / std::sqrt(q / float(std::max<int64_t>(1, cols - 1)) + kc::rows_cpu::kLayerNormEps);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = (xr[c] - mu) * rs * w[c] + bias[c];
    b.out<float>("mean")[r] = mu;
    b.out<float>("rstd")[r] = rs;
  }
}

kc::Entry layer_norm_entry() {
  return kc::rows::layer_norm(kc::DType::f32, kc::DType::f32, kc::rows_cpu::kLayerNormEps)
      .served({{"rows", {1, 3}}, {"cols", {64, 300}}})
      .tile("cols", 64, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) + 1; }, kc::rows_cpu::kLayerNormOps);
}

}  // namespace

KC_KERNEL("lines/sum/f16_chain", cpu) {
  return sum_entry().launch([](const kc::Buffers& b) { chain_sum(b, true, false); });
}
KC_KERNEL("lines/sum/drops_last", cpu) {
  return sum_entry().launch([](const kc::Buffers& b) { chain_sum(b, false, true); });
}
KC_KERNEL("lines/topk/higher_id_on_ties", cpu) {
  return topk_entry().launch([](const kc::Buffers& b) { topk4(b, true, false); });
}
KC_KERNEL("lines/topk/nan_last", cpu) {
  return topk_entry().launch([](const kc::Buffers& b) { topk4(b, false, true); });
}
KC_KERNEL("lines/layer_norm/unbiased", cpu) { return layer_norm_entry().launch(unbiased_layer_norm); }
KC_KERNEL("lines/layer_norm/one_pass", cpu) {
  return layer_norm_entry().launch(kc::rows_cpu::layer_norm<float, float, /*one_pass=*/true>);
}

TEST(Lines, Gate4NamesTheReplayThatExplainsAHalfPrecisionSum) {
  auto v = verdicts("lines/sum/f16_chain");
  ASSERT_EQ(v[Gate::sums].status, Status::fail) << v[Gate::sums].detail;
  EXPECT_EQ(v[Gate::sums].detail.rfind("not an fp32 sum: it matches an fp16 chain sum: y[", 0), 0u) << v[Gate::sums].detail;
}

TEST(Lines, Gate4SaysNoReplayExplainsADroppedTerm) {
  auto v = verdicts("lines/sum/drops_last");
  ASSERT_EQ(v[Gate::sums].status, Status::fail) << v[Gate::sums].detail;
  EXPECT_EQ(v[Gate::sums].detail.rfind("differs from the formula (no fp16 or bf16 replay explains the miss): y[", 0), 0u)
      << v[Gate::sums].detail;
  EXPECT_EQ(v[Gate::sums].detail.find("fp32 sum"), std::string::npos) << v[Gate::sums].detail;
}

// An unbiased variance is no half-precision sum either; and gate 3 names rstd's and y's worst.
TEST(Lines, AFailureNamesTheWorstOutputOfEveryFailingBuffer) {
  auto v = verdicts("lines/layer_norm/unbiased");
  ASSERT_EQ(v[Gate::sums].status, Status::fail) << v[Gate::sums].detail;
  EXPECT_EQ(v[Gate::sums].detail.rfind("differs from the formula", 0), 0u) << v[Gate::sums].detail;
  const std::string& d = v[Gate::shapes].detail;
  ASSERT_EQ(v[Gate::shapes].status, Status::fail) << d;
  EXPECT_NE(d.find("rstd["), std::string::npos) << d;
  EXPECT_NE(d.find("y["), std::string::npos) << d;
  EXPECT_EQ(d.find("mean["), std::string::npos) << "the mean is right: " << d;
  EXPECT_NE(d.find(" y outside"), std::string::npos) << "with how many of its outputs fail: " << d;
}

TEST(Lines, ARuleBrokenWithoutThePlantNamesNoPlant) {
  auto v = verdicts("lines/topk/higher_id_on_ties");
  const auto& e = v[Gate::nonfinite];
  ASSERT_EQ(e.status, Status::fail) << e.detail;
  EXPECT_EQ(e.why, "rule_broken");
  EXPECT_EQ(e.detail.find("(plant"), std::string::npos) << e.detail;
  EXPECT_NE(e.detail.find("with no plant too"), std::string::npos) << e.detail;
}

TEST(Lines, ARuleBrokenByThePlantNamesIt) {
  auto v = verdicts("lines/topk/nan_last");
  const auto& e = v[Gate::nonfinite];
  ASSERT_EQ(e.status, Status::fail) << e.detail;
  EXPECT_EQ(e.why, "rule_broken");
  EXPECT_NE(e.detail.find("(plant 'NaN in x')"), std::string::npos) << e.detail;
}

TEST(Lines, ANamedFillIsPrintedOnce) {
  auto v = verdicts("lines/layer_norm/one_pass");
  const auto& e = v[Gate::shapes];
  ASSERT_EQ(e.status, Status::fail) << e.detail;
  EXPECT_NE(e.shape.find("fill=offset"), std::string::npos) << e.shape;
  EXPECT_EQ(e.detail.find("fill="), std::string::npos) << e.detail;
}
