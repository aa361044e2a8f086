// Gate 3's margin: compare() finds the passing output nearest its bound (or an interval's end) in its
// one pass, whatever the chunks; the entry's margin is the worst over every gate 3 case, the named
// fills' included, and only a gate 3 that passed within its bounds has one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gates/fill_cases.hpp"
#include "gates/gates.hpp"
#include "harness.hpp"
#include "kc/numeric.hpp"
#include "toy.hpp"

using namespace testing_kc;
using kc::Gate;
using kc::Status;

namespace {

// One f32 output y whose float64 want is 1 + d_i 2^-24 against a stored 1.0f: y[i]'s ratio is
// about d_i (the bound of an f32 output with no sums is 2^-24 |want| and a floor far below).
struct Synthetic {
  static constexpr size_t n = 100000;  // many of compare()'s 4,096-output chunks
  kc::Spec spec;
  kc::Case c{kc::Shape{{"n", int64_t(n)}}, kc::Fill{}, 1};
  kc::Expected y{"y"};
  Synthetic() {
    spec.name = "margin/synthetic";
    for (float& v : c.out<float>("y", n)) v = 1.0f;
    y.want.assign(n, 1 + 0.25 * 0x1p-24);
  }
};

}  // namespace

TEST(Margin, IsTheFirstOutputOfTheLargestRatioOverEveryChunk) {
  Synthetic t;
  t.y.want[70001] = 1 + 0.75 * 0x1p-24;
  t.y.want[90002] = 1 + 0.75 * 0x1p-24;  // as near, later: the earlier is named
  t.y.want[5] = 1 + 0.5 * 0x1p-24;
  auto o = kc::detail::compare(t.spec, t.c, {t.y}, true);
  ASSERT_FALSE(o.failed) << o.detail;
  ASSERT_TRUE(o.margin);
  const kc::Margin m = *o.margin;
  EXPECT_EQ(m.output, "y");
  EXPECT_EQ(m.index, 70001u);
  EXPECT_NEAR(m.ratio, 0.75, 1e-6);
  EXPECT_FALSE(m.interval);
  EXPECT_EQ(m.got, 1.0);
  EXPECT_EQ(m.want, t.y.want[70001]);
  EXPECT_DOUBLE_EQ(m.ratio, std::fabs(m.got - m.want) / m.bound);
  EXPECT_EQ(m.shape, "n:100000");
  EXPECT_EQ(m.fill, "");
  // A hair nearer, later (compare() divides only where an output may beat the worst so far).
  t.y.want[95003] = 1 + (0.75 + 1e-6) * 0x1p-24;
  o = kc::detail::compare(t.spec, t.c, {t.y}, true);
  ASSERT_TRUE(o.margin);
  EXPECT_EQ(o.margin->index, 95003u);
}

// An interval's output: its distance from want over the interval's width; it counts beside the
// bounded outputs of another buffer, and the nearer of the two is the margin.
TEST(Margin, AnIntervalsOutputCountsByItsDistanceFromWant) {
  Synthetic t;
  auto z = t.c.out<float>("z", 4);
  kc::Expected ze{"z"};
  for (int i = 0; i < 4; ++i) {
    z[i] = float(i);
    ze.want.push_back(i), ze.lo.push_back(i - 1.0), ze.hi.push_back(i + 1.0);
  }
  z[2] = 2.9f;  // 0.9 from want in an interval 2 wide: 0.45, y's 0.25 beaten
  auto o = kc::detail::compare(t.spec, t.c, {t.y, ze}, true);
  ASSERT_FALSE(o.failed) << o.detail;
  ASSERT_TRUE(o.margin);
  EXPECT_EQ(o.margin->output, "z");
  EXPECT_EQ(o.margin->index, 2u);
  EXPECT_TRUE(o.margin->interval);
  EXPECT_EQ(o.margin->lo, 1.0);
  EXPECT_EQ(o.margin->hi, 3.0);
  EXPECT_NEAR(o.margin->ratio, 0.45, 1e-6);
  z[2] = 2.4f;  // 0.2: y's 0.25 is now the nearest
  o = kc::detail::compare(t.spec, t.c, {t.y, ze}, true);
  EXPECT_EQ(o.margin->output, "y");
  // As at a rounding point: want at the low end, got the other end of a one-ulp interval: 1, a pass.
  ze.lo[2] = 2;
  z[2] = 3.0f;
  o = kc::detail::compare(t.spec, t.c, {t.y, ze}, true);
  ASSERT_FALSE(o.failed) << o.detail;
  EXPECT_EQ(o.margin->output, "z");
  EXPECT_EQ(o.margin->ratio, 1.0);
  z[2] = 2.0f;  // exact: none of the width
  o = kc::detail::compare(t.spec, t.c, {t.y, ze}, true);
  EXPECT_EQ(o.margin->output, "y");
}

// NaN and infinities that match float64's class have no distance: never the margin.
TEST(Margin, MatchingNonFiniteOutputsAreLeftOut) {
  Synthetic t;
  auto y = t.c.get_mut<float>("y");
  const float inf = std::numeric_limits<float>::infinity();
  y[3] = std::numeric_limits<float>::quiet_NaN(), t.y.want[3] = NAN;
  y[4] = inf, t.y.want[4] = INFINITY;
  y[5] = -inf, t.y.want[5] = -INFINITY;
  auto o = kc::detail::compare(t.spec, t.c, {t.y}, true);
  ASSERT_FALSE(o.failed) << o.detail;
  ASSERT_TRUE(o.margin);
  EXPECT_TRUE(std::isfinite(o.margin->ratio));
  EXPECT_TRUE(std::isfinite(o.margin->got) && std::isfinite(o.margin->want));
  EXPECT_EQ(o.margin->index, 0u);  // all the finite ones tie at 0.25: the first
}

TEST(Margin, AFailedCompareHasNone) {
  Synthetic t;
  t.y.want[42] = 1 + 4 * 0x1p-24;
  auto o = kc::detail::compare(t.spec, t.c, {t.y}, true);
  EXPECT_TRUE(o.failed);
  EXPECT_NE(o.detail.find("y[42]"), std::string::npos) << o.detail;
  EXPECT_FALSE(o.margin);
}

TEST(Margin, NamesTheCasesNamedFill) {
  Synthetic t;
  kc::Fill f;
  f.dist = "offset";
  kc::Case c{kc::Shape{{"n", 2}}, f, 1};
  for (float& v : c.out<float>("y", 2)) v = 1.0f;
  kc::Expected y{"y"};
  y.want = {1.0, 1 + 0.5 * 0x1p-24};
  auto o = kc::detail::compare(t.spec, c, {y}, true);
  ASSERT_TRUE(o.margin);
  EXPECT_EQ(o.margin->fill, "offset");
  EXPECT_EQ(o.margin->index, 1u);
}

namespace {
// A row sum within its bound everywhere that spends half of it on a named fill's rows alone (every
// value near 4,096): the spread fill's rows are summed in float64 and rounded once, far inside.
void sum_spending_half_on_offset(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  for (int64_t i = 0; i < rows; ++i) {
    double s = 0, m = 0;
    bool offset = true;
    for (int64_t j = 0; j < cols; ++j) {
      const double v = x[i * cols + j];
      s += v, m += std::fabs(v), offset &= v > 4000;
    }
    if (offset) s += 0.5 * kc::gamma(double(cols / 8 + 3)) * m;  // the entry's depth
    b.out<float>("y")[i] = float(s);
  }
}
}  // namespace

KC_KERNEL("toy/margin/offset", cpu) {
  kc::Entry e = toy::rowsum()
                    .served({{"rows", {1, 6}}, {"cols", {64, 256}}})
                    .tile("cols", 64, 8, 8)
                    .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] / 8 + 3); })
                    .launch(sum_spending_half_on_offset);
  e.rig.fills = {"offset"};
  e.rig.prepare = [spread = e.rig.prepare](kc::Case& c) {
    spread(c);
    if (c.fill().dist == "offset")
      for (float& v : c.get_mut<float>("x")) v += 4096;
  };
  return e;
}

// The verdict's margin is the worst of every gate 3 case (each run again here on its own), and
// names the case: here a named fill's.
TEST(Margin, TheEntrysMarginIsTheWorstOverEveryGateThreeCase) {
  kc::RunOptions opt;
  auto v = verdicts("toy/margin/offset", opt);
  ASSERT_EQ(v[Gate::shapes].status, Status::pass) << v[Gate::shapes].detail;
  ASSERT_TRUE(v[Gate::shapes].margin);
  const kc::Margin& m = *v[Gate::shapes].margin;
  EXPECT_EQ(m.fill, "offset");
  EXPECT_GT(m.ratio, 0.3);
  EXPECT_LE(m.ratio, 0.6);
  EXPECT_EQ(m.seed, opt.seed);
  for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::sums}) EXPECT_FALSE(v[g].margin) << kc::gate_name(g);

  kc::Entry e = kc::build(reg("toy/margin/offset"));
  kc::detail::GateCtx ctx{cpu(), e, opt};
  ctx.seed = opt.seed;
  double worst = -1;
  std::string at;
  auto see = [&](const kc::Shape& s, const kc::Fill& f) {
    auto o = kc::detail::check_shapes(ctx, s, f);
    ASSERT_FALSE(o.failed) << o.detail;
    ASSERT_TRUE(o.margin) << s.str();
    if (o.margin->ratio > worst) worst = o.margin->ratio, at = o.margin->shape + " " + o.margin->fill;
  };
  int cases = 0;
  for (const auto& s : kc::detail::gate3_all_shapes(ctx)) see(s, kc::Fill{}), ++cases;
  for (const auto& s : kc::detail::fill_shapes(e.spec)) {
    kc::Fill f;
    f.dist = "offset";
    see(s, f), ++cases;
  }
  EXPECT_GT(cases, 4);
  EXPECT_EQ(m.ratio, worst);
  EXPECT_EQ(m.shape + " " + m.fill, at);
}

TEST(Margin, AGateThreeThatFailsOrIsBitEqualHasNone) {
  auto tail = verdicts("toy/rowsum/tail");
  EXPECT_EQ(tail[Gate::shapes].status, Status::fail);
  EXPECT_FALSE(tail[Gate::shapes].margin);
  auto replaced = verdicts("toy/rowsum/replace_ok");
  EXPECT_EQ(replaced[Gate::shapes].status, Status::pass) << replaced[Gate::shapes].detail;
  EXPECT_FALSE(replaced[Gate::shapes].margin);
  auto ok = verdicts("toy/rowsum/ok");
  ASSERT_TRUE(ok[Gate::shapes].margin);
  EXPECT_GT(ok[Gate::shapes].margin->ratio, 0);
  EXPECT_LE(ok[Gate::shapes].margin->ratio, 1);
}

// Under --seeds the margin is the worst under every seed, and names the seed.
TEST(Margin, UnderSeveralSeedsIsTheWorstAndNamesItsSeed) {
  kc::RunOptions opt;
  double worst = -1;
  uint64_t seed = 0;
  for (int k = 0; k < 3; ++k) {
    kc::RunOptions one;
    one.seed = opt.seed + uint64_t(k);
    auto v = verdicts("toy/rowsum/ok", one);
    ASSERT_TRUE(v[Gate::shapes].margin);
    if (v[Gate::shapes].margin->ratio > worst) worst = v[Gate::shapes].margin->ratio, seed = one.seed;
  }
  opt.seeds = 3;
  auto v = verdicts("toy/rowsum/ok", opt);
  ASSERT_TRUE(v[Gate::shapes].margin);
  EXPECT_EQ(v[Gate::shapes].margin->ratio, worst);
  EXPECT_EQ(v[Gate::shapes].margin->seed, seed);
}
