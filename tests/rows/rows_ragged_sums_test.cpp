// Gate 4's integer rows at every width, not only the served ones: every fp16 and bf16 replay of
// sum's and dot's rows misses by 100x the exact-sum bound at every width from 4 to 320 columns (a mirrored row at 65
// columns once cancelled in bf16's 32 lanes exactly as its terms do). Through the runner: a correct
// pairwise fp32 dot passes gate 4 at 65 columns, and the same dot holding its partials in bf16 fails
// it for the bound.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kc/backend.hpp"
#include "kc/runner.hpp"
#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;
using kc::Fill;
using kc::FillKind;
using kc::Gate;

// The smallest miss, over the six replays, of the output each replay misses most; sums to 1 (sum,
// dot), so the exact-sum bound of an fp32 output is about 2^-24 and 100x of it far below 1.
double worst_miss(const kc::Entry& e, const kc::Case& c) {
  const auto ex = e.rig.reference(c);
  double worst = INFINITY;
  for (auto f : {kc::SumFormat::f16, kc::SumFormat::bf16})
    for (auto o : {kc::SumOrder::chain, kc::SumOrder::halves, kc::SumOrder::lanes32}) {
      const auto rep = e.rig.simulate(c, f, o);
      double best = 0;
      for (size_t i = 0; i < ex[0].want.size(); ++i)
        best = std::max(best, std::isfinite(rep[0][i]) ? std::fabs(rep[0][i] - ex[0].want[i]) : INFINITY);
      worst = std::min(worst, best);
    }
  return worst;
}

TEST(RowsRaggedSums, EveryWidthMissesInEveryReplay) {
  for (DType in : {DType::f32, DType::bf16, DType::f16})
    for (int64_t cols = 4; cols <= 320; ++cols)  // ten periods of a 32-lane replay
      for (uint64_t seed : {uint64_t(cols)}) {  // a seed a width: many draws over the sweep
        auto s = with_sums(kc::rows::sum(in, DType::f32));
        auto cs = prepared(s, shape(2, cols), Fill{FillKind::sums}, seed);
        EXPECT_GE(worst_miss(s, cs), 1) << "sum " << kc::dtype_name(in) << " cols " << cols << " seed " << seed;
        auto d = with_sums(kc::rows::dot(in, DType::f32));
        auto cd = prepared(d, shape(2, cols), Fill{FillKind::sums}, seed);
        EXPECT_GE(worst_miss(d, cd), 1) << "dot " << kc::dtype_name(in) << " cols " << cols << " seed " << seed;
        EXPECT_EQ(d.rig.reference(cd)[0].want[0], 1);  // the permuted terms still sum to exactly 1
      }
}

// y = x . w in fp32, summed pairwise (halves, recursively); Hold rounds every partial sum (bf16:
// the control).
template <bool Bf16> float pairwise(const float* x, const float* w, int64_t lo, int64_t hi) {
  float s = hi - lo == 1 ? x[lo] * w[lo] : pairwise<Bf16>(x, w, lo, (lo + hi) / 2) + pairwise<Bf16>(x, w, (lo + hi) / 2, hi);
  return Bf16 ? kc::from_bf16(kc::to_bf16(s)) : s;
}

template <bool Bf16> kc::Entry pairwise_dot() {
  return kc::rows::dot(DType::f32, DType::f32)
      .served({{"rows", {1, 4}}, {"cols", {65, 200}}})
      .range("cols", 1, 1)
      // ceil(log2 cols) levels of additions, and the product's rounding.
      .sums(DType::f32, [](const kc::Shape& s) { return std::ceil(std::log2(double(s["cols"]))) + 1; })
      .launch([](const kc::Buffers& b) {
        const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
        for (int64_t r = 0; r < rows; ++r)
          b.out<float>("y")[r] = pairwise<Bf16>(b.in<float>("x") + r * cols, b.in<float>("w"), 0, cols);
      });
}

std::map<Gate, kc::GateEvent> run(const std::string& name, kc::Entry (*make)()) {
  static auto backends = kc::make_backends();
  const kc::Registration reg{name, "cpu", __FILE__, __LINE__, false, make};
  std::map<Gate, kc::GateEvent> v;
  for (auto& e : kc::run_entry(reg, *backends.front(), kc::RunOptions{}, {})) v[e.gate] = e;
  return v;
}

TEST(RowsRaggedSums, PairwiseFp32DotPassesGate4At65Columns) {
  auto v = run("t/pairwise_dot", pairwise_dot<false>);
  EXPECT_EQ(v[Gate::sums].status, kc::Status::pass) << v[Gate::sums].detail;
  // rows:1/cols:65 (the smallest served shape) and rows:4/cols:200.
  EXPECT_NE(v[Gate::sums].detail.find("at 2 shapes"), std::string::npos) << v[Gate::sums].detail;
  EXPECT_EQ(v[Gate::shapes].status, kc::Status::pass) << v[Gate::shapes].detail;
  auto bad = run("t/pairwise_dot_bf16", pairwise_dot<true>);
  EXPECT_EQ(bad[Gate::sums].status, kc::Status::fail) << bad[Gate::sums].detail;
  EXPECT_EQ(bad[Gate::sums].why, "bound") << bad[Gate::sums].detail;
}

}  // namespace
