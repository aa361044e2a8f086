// kc/tensor_core.hpp's model and bound, on the CPU: the model against float64 where nothing is cut,
// the cut where the rule says, the bound over random and adversarial steps and whole K, and the
// depth it gives against the dense GEMM's 3K + 16.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kc/families/fills.hpp"
#include "kc/numeric.hpp"
#include "kc/tensor_core.hpp"
#include "kc/types.hpp"

namespace tc = kc::tc;

namespace {

uint32_t bf16(bool neg, int e, uint32_t frac7) { return (uint32_t(neg) << 15) | (uint32_t(e + 127) << 7) | frac7; }
uint32_t e4m3(bool neg, int e, uint32_t frac3) { return (uint32_t(neg) << 7) | (uint32_t(e + 7) << 3) | frac3; }

tc::Rule rule(int block, int kept, tc::Cut align = tc::Cut::zero, bool cg = true, tc::Cut out = tc::Cut::nearest) {
  return tc::Rule{block, kept, align, cg, false, out, tc::Cut::zero};
}

// Random bf16 or e4m3 operands whose products span `span` binades below 2^E0.
struct Draw {
  std::mt19937_64 rng{7};
  uint32_t op(tc::Fmt f, int e) {
    const uint32_t neg = rng() & 1;
    switch (f) {
      case tc::Fmt::bf16: return bf16(neg, e, rng() & 127);
      case tc::Fmt::fp16: return (neg << 15) | (uint32_t(std::clamp(e, -14, 15) + 15) << 10) | (rng() & 1023);
      case tc::Fmt::tf32: return (neg << 31) | (uint32_t(e + 127) << 23) | (rng() & 0x7FFFFF);  // all 23 bits
      default: return e4m3(neg, std::clamp(e, -6, 7), rng() & 7);
    }
  }
  void step(tc::Fmt f, int K, int span, std::vector<uint32_t>& a, std::vector<uint32_t>& b) {
    a.resize(K), b.resize(K);
    for (int k = 0; k < K; ++k) {
      const int e = -int(rng() % (span + 1));
      a[k] = op(f, e / 2), b[k] = op(f, e - e / 2);
    }
  }
};

double exact(tc::Fmt f, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, double c, double* mag = nullptr,
             double* big = nullptr) {
  double s = c, m = std::fabs(c), mx = std::fabs(c);
  for (size_t k = 0; k < a.size(); ++k) {
    const double p = tc::operand_value(f, a[k]) * tc::operand_value(f, b[k]);
    s += p, m += std::fabs(p), mx = std::max(mx, std::fabs(p));
  }
  if (mag) *mag = m;
  if (big) *big = mx;
  return s;
}

}  // namespace

TEST(TensorCoreModel, NothingCutIsTheCorrectlyRoundedSum) {
  // Products over 8 binades, 16 of them: the exact sum fits float64, so float(sum) is the judge.
  Draw d;
  std::vector<uint32_t> a, b;
  for (int i = 0; i < 2000; ++i) {
    d.step(tc::Fmt::bf16, 16, 8, a, b);
    const float c = float(std::ldexp(double(d.rng() % 1000), -9));
    const double s = exact(tc::Fmt::bf16, a, b, c);
    ASSERT_EQ(tc::simulate(rule(16, 48), tc::Fmt::bf16, a.data(), b.data(), 16, c), float(s)) << i;
  }
}

TEST(TensorCoreModel, AddendsBelowTheWindowAreCutAsTheRuleSays) {
  std::vector<uint32_t> a(16, 0), b(16, 0);
  a[0] = b[0] = bf16(false, 0, 0);  // 1
  a[5] = bf16(false, -7, 0), b[5] = bf16(false, -7, 0x40);  // 1.5 * 2^-14
  // kept 13: the window's last bit is 2^-13; 1.5 * 2^-14 = 2^-14 + 2^-15 is below it.
  EXPECT_EQ(tc::simulate(rule(16, 13), tc::Fmt::bf16, a.data(), b.data(), 16, 0.f), 1.f);
  EXPECT_EQ(tc::simulate(rule(16, 13, tc::Cut::nearest), tc::Fmt::bf16, a.data(), b.data(), 16, 0.f), 1.f + 0x1p-13f);
  EXPECT_EQ(tc::simulate(rule(16, 15), tc::Fmt::bf16, a.data(), b.data(), 16, 0.f), 1.f + 0x1.8p-14f);
  a[5] |= 0x8000;  // negative: toward zero keeps 1, toward -Inf takes a whole window bit
  EXPECT_EQ(tc::simulate(rule(16, 13), tc::Fmt::bf16, a.data(), b.data(), 16, 0.f), 1.f);
  EXPECT_EQ(tc::simulate(rule(16, 13, tc::Cut::down), tc::Fmt::bf16, a.data(), b.data(), 16, 0.f), 1.f - 0x1p-13f);
  // C beside p and -p: cut away when it is an addend of the step, kept when added after it.
  std::vector<uint32_t> x(16, 0), y(16, 0);
  x[0] = bf16(false, 10, 0), y[0] = bf16(false, 10, 0), x[1] = bf16(true, 10, 0), y[1] = bf16(false, 10, 0);
  EXPECT_EQ(tc::simulate(rule(16, 13), tc::Fmt::bf16, x.data(), y.data(), 16, 1.f), 0.f);
  EXPECT_EQ(tc::simulate(rule(16, 13, tc::Cut::zero, false), tc::Fmt::bf16, x.data(), y.data(), 16, 1.f), 1.f);
  // Steps of 8: p and -p in different steps leave the accumulator at 2^20 after the first.
  x[1] = y[1] = 0, x[9] = bf16(true, 10, 0), y[9] = bf16(false, 10, 0);
  EXPECT_EQ(tc::simulate(rule(8, 13), tc::Fmt::bf16, x.data(), y.data(), 16, 1.f), 0.f);
  EXPECT_EQ(tc::simulate(rule(8, 23), tc::Fmt::bf16, x.data(), y.data(), 16, 1.f), 1.f);
}

TEST(TensorCoreModel, SpecialsAreIeeeButOverflowIsInfInEveryMode) {
  std::vector<uint32_t> a(16, 0), b(16, 0);
  a[0] = 0x7F80, b[0] = bf16(false, 0, 0);
  EXPECT_EQ(tc::simulate(rule(16, 23), tc::Fmt::bf16, a.data(), b.data(), 16, 1.f), HUGE_VALF);
  b[0] = 0;
  EXPECT_TRUE(std::isnan(tc::simulate(rule(16, 23), tc::Fmt::bf16, a.data(), b.data(), 16, 1.f)));
  a[0] = 0x7F, b[0] = e4m3(false, 0, 0);  // e4m3's NaN
  EXPECT_TRUE(std::isnan(tc::simulate(rule(32, 13), tc::Fmt::e4m3, a.data(), b.data(), 16, 1.f)));
  // A product past fp32's range is Inf even where the result is truncated (the H200's
  // special:product_overflow row), not IEEE's largest float.
  a[0] = b[0] = bf16(false, 100, 0);
  EXPECT_EQ(tc::simulate(rule(16, 23), tc::Fmt::bf16, a.data(), b.data(), 16, 0.f), HUGE_VALF);
  EXPECT_EQ(tc::simulate(rule(16, 23, tc::Cut::zero, true, tc::Cut::zero), tc::Fmt::bf16, a.data(), b.data(), 16, 0.f),
            HUGE_VALF);
  // An exact zero is +0, C = -0 included (special:c_minus_zero_alone).
  std::vector<uint32_t> z(16, 0);
  EXPECT_FALSE(std::signbit(tc::simulate(rule(16, 23), tc::Fmt::bf16, z.data(), z.data(), 16, -0.f)));
}

TEST(TensorCoreModel, TheStepBoundHoldsOnRandomSteps) {
  // The measured rules on their own formats, and rules the hardware does not use.
  struct Case {
    tc::Fmt f;
    int K;
    tc::Rule r;
  };
  std::vector<Case> cases;
  for (const tc::Measured& m : tc::measured_sm90()) cases.push_back({m.fmt, m.K, m.rule});
  ASSERT_GE(cases.size(), 7u);
  for (const tc::Rule& r : {rule(16, 23), rule(16, 13), rule(8, 23, tc::Cut::nearest), rule(16, 24, tc::Cut::down, false)})
    cases.push_back({tc::Fmt::bf16, 16, r});
  Draw d;
  std::vector<uint32_t> a, b;
  for (const Case& c : cases)
    for (int span : {4, 20, 40})
      for (int i = 0; i < 2000; ++i) {
        d.step(c.f, c.K, span, a, b);
        const double mag = std::ldexp(1.0 + double(d.rng() % 4096) / 4096, -int(d.rng() % span));
        const float x = i % 3 ? float(d.rng() & 1 ? mag : -mag) : 0.f;
        double m = 0, big = 0;
        const double s = exact(c.f, a, b, x, &m, &big);
        const float got = tc::simulate(c.r, c.f, a.data(), b.data(), c.K, x);
        // Several steps a call: each one's bound with big and res at most the whole sum's m.
        const double bound = double((c.K + c.r.block - 1) / c.r.block) * tc::step_bound(c.r, c.r.block, m, m);
        ASSERT_LE(std::fabs(double(got) - s), bound) << tc::format(c.r) << " span " << span << " i " << i;
        if (c.r.block == c.K)
          ASSERT_LE(std::fabs(double(got) - s), tc::step_bound(c.r, c.K, big, std::fabs(got) + std::fabs(s)));
      }
}

TEST(TensorCoreModel, TheBoundIsNearlyReachedWhereEveryAddendLosesAlmostAWindowBit) {
  // 2^0 beside 15 positive products each just under two window bits: each loses almost one.
  for (int kept : {13, 23}) {
    const tc::Rule r = rule(16, kept);
    std::vector<uint32_t> a(16), b(16);
    a[0] = b[0] = bf16(false, 0, 0);
    for (int k = 1; k < 16; ++k)  // (2 - 2^-7)^2 2^-(kept + 1), just below 2^(1 - kept): cut to 2^-kept
      a[k] = bf16(false, -(kept + 1) / 2, 127), b[k] = bf16(false, -(kept + 1) + (kept + 1) / 2, 127);
    double m = 0, big = 0;
    const double s = exact(tc::Fmt::bf16, a, b, 0.0, &m, &big);
    const double err = std::fabs(double(tc::simulate(r, tc::Fmt::bf16, a.data(), b.data(), 16, 0.f)) - s);
    const double bound = tc::step_bound(r, 16, big, s);
    EXPECT_LE(err, bound);
    EXPECT_GT(err, 0.8 * (bound - 0x1p-24 * s)) << "kept " << kept << ": the cut term is not reached";
  }
}

TEST(TensorCoreModel, AWholeDotOfManyStepsStaysInsideGammaOfTheDepth) {
  // K = 512 as 32 instructions of 16, the accumulator carried between them: gate 3's sum term.
  Draw d;
  std::vector<uint32_t> a, b;
  for (const tc::Rule& r : {rule(16, 23), rule(32, 13), rule(8, 24, tc::Cut::zero, false)}) {
    const tc::Fmt f = r.kept < 20 ? tc::Fmt::e4m3 : tc::Fmt::bf16;
    const int K = r.block == 32 ? 32 : 16;
    for (int t = 0; t < 200; ++t) {
      float acc = 0;
      double s = 0, m = 0;
      for (int i = 0; i < 512 / K; ++i) {
        d.step(f, K, t % 2 ? 6 : 14, a, b);
        double mi = 0;
        s += exact(f, a, b, 0.0, &mi), m += mi;
        acc = tc::simulate(r, f, a.data(), b.data(), K, acc);
      }
      const double dep = tc::depth(r, 512), gamma = dep * 0x1p-24 / (1 - dep * 0x1p-24);
      ASSERT_LE(std::fabs(double(acc) - s), gamma * m) << tc::format(r) << " t " << t;
    }
  }
}

TEST(TensorCoreModel, DepthIsTighterThanThreeKWhereTheWindowIsWideAndHonestWhereNarrow) {
  // kc::gemm_cu::gemm_depth's guess for the dense tensor-core GEMMs, against the measured rules.
  const long K = 4096;
  const double guess = 3.0 * K + 16;
  const tc::Measured* bf = tc::find_measured("wgmma.m64n8k16.bf16");
  const tc::Measured* fp8 = tc::find_measured("wgmma.m64n8k32.e4m3");
  ASSERT_TRUE(bf && fp8);
  // bf16: per step 17 addends at 2^-25 and a truncation at 2^-23 = 10.5 u, K / 16 steps.
  EXPECT_EQ(tc::depth(bf->rule, K), 2688);
  EXPECT_LT(tc::depth(bf->rule, K), guess / 4);
  // e4m3: per step 33 addends at 2^-13 and the 14-bit truncation, K / 32 steps: far past the guess.
  EXPECT_GT(tc::depth(fp8->rule, K), 400 * guess);
  EXPECT_EQ(tc::find_measured("mma.m16n8k32.e4m3"), nullptr);  // fits no rule (records/cuda/tensor-cores.tsv)
}

TEST(TensorCoreModel, TheCutFillBreaksExactStepsAndKeepsTheModelsDepth) {
  // The dense family's `cut` fill (fills.hpp) through the measured bf16 mma, chained over K: its
  // one-sign products near 2^-25 under a running 1 lose bits every step, past gamma(K / 16) (sums
  // exact within a step, one fp32 rounding each: what controls/*/dense_tc_exact_steps state) and
  // inside gamma(depth) of the model, on every row pair drawn.
  const tc::Measured* mm = tc::find_measured("mma.m16n8k16.bf16");
  ASSERT_TRUE(mm);
  for (long K : {64L, 72L, 1024L}) {
    const double dep = tc::depth(mm->rule, K), exact_steps = double((K + 15) / 16);
    for (int64_t r = 0; r < 8; ++r) {
      std::vector<double> x(static_cast<size_t>(K)), w(static_cast<size_t>(K));
      kc::fills::row(kc::fills::kCut, kc::DType::bf16, 11, r, x);
      kc::fills::row(kc::fills::kCut, kc::DType::bf16, 12, r + 1, w);
      std::vector<uint32_t> a(16), b(16);
      float acc = 0;
      double s = 0, m = 0;
      for (long k0 = 0; k0 < K; k0 += 16) {
        for (long i = 0; i < 16; ++i) {
          const double xv = k0 + i < K ? x[size_t(k0 + i)] : 0, wv = k0 + i < K ? w[size_t(k0 + i)] : 0;
          a[size_t(i)] = kc::to_bf16(float(xv)).bits, b[size_t(i)] = kc::to_bf16(float(wv)).bits;
          s += xv * wv, m += std::fabs(xv * wv);
        }
        acc = tc::simulate(mm->rule, mm->fmt, a.data(), b.data(), 16, acc);
      }
      const double err = std::fabs(double(acc) - s);
      EXPECT_LE(err, kc::gamma(dep) * m) << "K " << K << " row " << r;
      // Past the exact-steps bound and the output's own half ulp, by a factor of 2 at least.
      EXPECT_GT(err, 2 * (kc::gamma(exact_steps) * m + 0x1p-24 * std::fabs(s))) << "K " << K << " row " << r;
    }
  }
}

TEST(TensorCoreModel, RulesFormatAndParseBack) {
  for (const tc::Rule& r : {rule(16, 23), rule(4, 13, tc::Cut::down, false, tc::Cut::zero)})
    EXPECT_EQ(tc::parse(tc::format(r)), r);
  EXPECT_THROW(tc::parse("block=16 kept=23"), kc::Error);
  EXPECT_THROW(tc::parse("block=16 kept=23 align=up c_in_group=1 op_exp=0 out=nearest cut=zero"), kc::Error);
}
