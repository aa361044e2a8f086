// The attention range on hand-built rows: one key, every key equal, a rescale at the last key, P
// rounded to bf16, a merge; each against the CPU kernels' own fp32 code (kernels/attention), and
// the linear-fractional ends against every vertex of a small box.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "families/attention/src/attention_range.hpp"
#include "kc/numeric.hpp"
#include "kernels/attention/cpu_attention.hpp"

namespace {
using namespace kc::attention::detail;
using kc::Interval;

// A row of n keys with head dim d: q = e_0, so key j's score is k[j][0] (scale 1); v spread.
struct HandRow {
  int64_t n, d;
  std::vector<float> q;
  std::vector<kc::bf16> k, v;
  std::vector<double> kd, vd;  // the same, as doubles
  HandRow(const std::vector<double>& scores, int64_t d_, uint32_t seed) : n(int64_t(scores.size())), d(d_) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> u(-2, 2);
    q.assign(size_t(d), 0.f);
    q[0] = 1;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t t = 0; t < d; ++t) {
        k.push_back(kc::to_bf16(float(t == 0 ? scores[size_t(j)] : u(g))));
        v.push_back(kc::to_bf16(float(u(g))));
      }
    for (auto x : k) kd.push_back(kc::from_bf16(x));
    for (auto x : v) vd.push_back(kc::from_bf16(x));
  }
  std::vector<double> s() const {
    std::vector<double> r;
    for (int64_t j = 0; j < n; ++j) r.push_back(kd[size_t(j * d)]);
    return r;
  }
  std::vector<double> delta(const Allow& al) const {
    std::vector<double> r;
    for (double x : s()) r.push_back(score_delta(x, std::fabs(x), 1.0, al));
    return r;
  }
  std::vector<const double*> rows() const {
    std::vector<const double*> r;
    for (int64_t j = 0; j < n; ++j) r.push_back(&vd[size_t(j * d)]);
    return r;
  }
  // The CPU decode kernels' online softmax on this row.
  void kernel(std::vector<float>& out, float& lse, bool p_bf16, const kc::attention_cpu::Faults& f = {}) const {
    kc::attention_cpu::Row st(d);
    auto key = [&](int64_t j) { return std::pair{&k[size_t(j * d)], &v[size_t(j * d)]}; };
    kc::attention_cpu::online(st, q.data(), d, 1.0f, 0, n, key, p_bf16, false, f);
    out.assign(size_t(d), 0.f);
    kc::attention_cpu::finish(st, d, false, false, out.data(), &lse);
  }
};

// What the CPU kernels declare: a chain over d, one add a key and a rescale a tile, libm's 1 ulp.
Allow cpu_allow(int64_t n, int64_t d, double p_round = 0) {
  Allow al;
  al.g_dot = kc::gamma(double(d));
  al.g_sum = kc::gamma(double(n + n / 64 + 2));
  al.e_exp = al.e_log = 2 * kc::u32;
  al.tile = 64;
  al.p_round = p_round;
  return al;
}

double ulp32(double x) { return std::ldexp(1.0, std::ilogb(std::max(std::fabs(x), 0x1p-126)) - 23); }

// out's and lse's ranges at the kernel's fp32 output.
struct Ranges {
  std::vector<Interval> out;
  Interval lse;
};
Ranges ranges(const HandRow& r, const Allow& al) {
  const Spread sp = spread(r.s(), r.delta(al), al, false);
  Ranges g;
  for (int64_t t = 0; t < r.d; ++t) g.out.push_back(finish(ratio_range(sp, r.rows(), t, nullptr, al), al.ops, kc::DType::f32));
  g.lse = finish(lse_range(sp, nullptr, al), 0, kc::DType::f32);
  return g;
}

TEST(AttentionRange, OneKeyIsItsValueWithinAFewUlps) {
  const HandRow r({0.375}, 8, 1);
  const Ranges g = ranges(r, cpu_allow(1, 8));
  std::vector<float> out;
  float lse;
  r.kernel(out, lse, false);
  for (int64_t t = 0; t < r.d; ++t) {
    const double v = r.vd[size_t(t)];
    EXPECT_TRUE(g.out[size_t(t)].contains(out[size_t(t)])) << t;
    EXPECT_TRUE(g.out[size_t(t)].contains(v));
    EXPECT_LE(g.out[size_t(t)].hi - g.out[size_t(t)].lo, 16 * ulp32(v)) << "one key: out is its v, bar the sums' rounding";
    EXPECT_FALSE(g.out[size_t(t)].contains(v + 16 * ulp32(v)));
  }
  EXPECT_TRUE(g.lse.contains(lse));
  EXPECT_TRUE(g.lse.contains(0.375));
  // lse = s + log 1: the score's gamma(d) error, exp's ulp and l's sum, a few u each (absolute at
  // l = 1), and the final add's rounding.
  EXPECT_LE(g.lse.hi - g.lse.lo, 2 * 12 * kc::u32 + 4 * ulp32(0.375));
}

TEST(AttentionRange, EqualKeysGiveTheMeanWithinTheSumsBound) {
  const int64_t n = 300, d = 16;
  const HandRow r(std::vector<double>(size_t(n), 0.5), d, 2);
  const Allow al = cpu_allow(n, d);
  const Ranges g = ranges(r, al);
  std::vector<float> out;
  float lse;
  r.kernel(out, lse, false);
  for (int64_t t = 0; t < d; ++t) {
    double mean = 0, big = 0;
    for (int64_t j = 0; j < n; ++j) mean += r.vd[size_t(j * d + t)] / double(n), big = std::max(big, std::fabs(r.vd[size_t(j * d + t)]));
    const Interval& iv = g.out[size_t(t)];
    EXPECT_TRUE(iv.contains(mean));
    EXPECT_TRUE(iv.contains(out[size_t(t)])) << t << ": " << out[size_t(t)] << " outside " << iv.str();
    // Not loose: the sums' gamma and a few exp ulps a weight, on the values' size.
    EXPECT_LE(iv.hi - iv.lo, 4 * (al.g_sum + 16 * kc::u32) * big + 4 * ulp32(big)) << iv.str();
  }
  EXPECT_TRUE(g.lse.contains(lse));
  EXPECT_TRUE(g.lse.contains(0.5 + std::log(double(n))));
}

TEST(AttentionRange, ARescaleAtTheLastKeyPassesOnlyWhereTheSumIsRescaled) {
  const int64_t n = 200, d = 8;
  std::vector<double> s(size_t(n), 0.0);
  s.back() = 6;  // the max moves at the last key, in the last tile
  const HandRow r(s, d, 3);
  const Ranges g = ranges(r, cpu_allow(n, d));
  std::vector<float> good, bad;
  float lg, lb;
  r.kernel(good, lg, false);
  kc::attention_cpu::Faults keep;
  keep.keep_l = true;
  r.kernel(bad, lb, false, keep);
  int outside = 0;
  for (int64_t t = 0; t < d; ++t) {
    EXPECT_TRUE(g.out[size_t(t)].contains(good[size_t(t)])) << t;
    outside += !g.out[size_t(t)].contains(bad[size_t(t)]);
  }
  EXPECT_TRUE(g.lse.contains(lg));
  EXPECT_FALSE(g.lse.contains(lb)) << "an unrescaled l: lse " << lb << " in " << g.lse.str();
  EXPECT_EQ(outside, d) << "every component of the unrescaled row lies outside its range";
}

TEST(AttentionRange, PRoundedToBf16NeedsItsStatedRounding) {
  const int64_t n = 24, d = 16;
  std::vector<double> s;
  for (int64_t j = 0; j < n; ++j) s.push_back(std::ldexp(double((j * 37) % 23) - 11, -2));
  const HandRow r(s, d, 4);
  std::vector<float> out;
  float lse;
  r.kernel(out, lse, /*p_bf16=*/true);
  const Ranges stated = ranges(r, cpu_allow(n, d, 0x1p-8)), fp32 = ranges(r, cpu_allow(n, d));
  int outside = 0;
  for (int64_t t = 0; t < d; ++t) {
    EXPECT_TRUE(stated.out[size_t(t)].contains(out[size_t(t)])) << t;
    outside += !fp32.out[size_t(t)].contains(out[size_t(t)]);
  }
  EXPECT_GT(outside, 0) << "bf16 P must not pass as P kept in fp32";
  EXPECT_TRUE(fp32.lse.contains(lse)) << "l sums the fp32 P either way";
}

TEST(AttentionRange, LinearFractionalEndsAreTheBoxsExtremeVertices) {
  std::mt19937 g(5);
  std::uniform_real_distribution<double> u(0.1, 2), a(-3, 3);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 6;
    Spread sp;
    std::vector<double> av(n), bv(n);
    std::vector<const double*> rows;
    for (int j = 0; j < n; ++j) {
      const double w = u(g), lam = 0.5 * u(g);
      sp.w.push_back(w), sp.lo.push_back(w / (1 + lam)), sp.hi.push_back(w * (1 + lam));
      av[size_t(j)] = a(g), bv[size_t(j)] = u(g);
    }
    for (int j = 0; j < n; ++j) rows.push_back(&av[size_t(j)]);
    Allow al;  // no sums' error, no P rounding: the ends are the ratio's exact extremes
    const Interval iv = ratio_range(sp, rows, 0, bv.data(), al);
    double lo = INFINITY, hi = -INFINITY;
    for (int m = 0; m < (1 << n); ++m) {
      double num = 0, den = 0;
      for (int j = 0; j < n; ++j) {
        const double w = (m >> j) & 1 ? sp.hi[size_t(j)] : sp.lo[size_t(j)];
        num += w * av[size_t(j)], den += w * bv[size_t(j)];
      }
      lo = std::min(lo, num / den), hi = std::max(hi, num / den);
    }
    EXPECT_NEAR(iv.lo, lo, 1e-12 * (1 + std::fabs(lo))) << trial;
    EXPECT_NEAR(iv.hi, hi, 1e-12 * (1 + std::fabs(hi))) << trial;
  }
}

// A merge of three partials, each chunk's (m, l, o): the fp32 merge inside, one that adds the last
// partial without its scale outside.
TEST(AttentionRange, AMergeWithoutAChunksScaleIsOutside) {
  const std::vector<double> m{0.25, 2.5, -1.0}, l{3.5, 5.25, 2.0};
  const std::vector<double> o{1.5, -4.0, 0.75, 2.0, -0.5, 3.0};  // d = 2
  std::vector<const double*> rows{&o[0], &o[2], &o[4]};
  Allow al;
  al.g_sum = kc::gamma(4);
  al.e_exp = al.e_log = 2 * kc::u32;
  const Spread sp = spread(m, {0, 0, 0}, al, false);
  for (int64_t t = 0; t < 2; ++t) {
    const Interval iv = finish(ratio_range(sp, rows, t, l.data(), al), al.ops, kc::DType::f32);
    for (bool drop : {false, true}) {
      float M = 2.5f, L = 0, acc = 0;
      for (size_t c = 0; c < 3; ++c) {
        const float w = drop && c == 2 ? 1.f : std::exp(float(m[c]) - M);
        L += w * float(l[c]), acc += w * float(o[c * 2 + size_t(t)]);
      }
      EXPECT_EQ(iv.contains(acc / L), !drop) << t << " drop " << drop << ": " << acc / L << " " << iv.str();
    }
  }
  const Interval lse = finish(lse_range(sp, l.data(), al), 0, kc::DType::f32);
  double L = 0;
  for (size_t c = 0; c < 3; ++c) L += std::exp(m[c] - 2.5) * l[c];
  EXPECT_TRUE(lse.contains(2.5 + std::log(L)));
}

// Steps::merged: a kernel that cuts the keys into chunks restarts each chunk's max, so keys after the
// row's max may still be rescaled (in their chunk) and every weight takes the merge's exp. The row's
// max sits at key 0 and the scores climb after it: a single online pass never rescales, the chunked
// one does every tile. The chunked fp32 result lies in the merged range, which is wider than the
// unmerged one exactly where those rescales are counted.
TEST(AttentionRange, AMergedKernelsRescalesAreCountedByItsTiles) {
  const int64_t n = 512, d = 8, chunk = 128;
  std::vector<double> s;
  s.push_back(8);
  for (int64_t j = 1; j < n; ++j) s.push_back(std::ldexp(double(j % chunk), -4) - 4);
  const HandRow r(s, d, 6);
  Allow plain = cpu_allow(n, d), merged = plain;
  merged.merged = true;
  // The chunked kernel: the CPU kernels' online softmax a chunk, then an fp32 merge of the partials.
  std::vector<kc::attention_cpu::Row> parts;
  auto key = [&](int64_t j) { return std::pair{&r.k[size_t(j * d)], &r.v[size_t(j * d)]}; };
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    parts.emplace_back(d);
    kc::attention_cpu::online(parts.back(), r.q.data(), d, 1.0f, c0, c0 + chunk, key, false, false);
  }
  float M = -INFINITY, L = 0;
  for (const auto& p : parts) M = std::max(M, p.m);
  std::vector<float> acc(size_t(d), 0.f);
  for (const auto& p : parts) {
    const float w = std::exp(p.m - M);
    L += w * p.l;
    for (int64_t t = 0; t < d; ++t) acc[size_t(t)] += w * p.acc[size_t(t)];
  }
  const Ranges g = ranges(r, merged), narrow = ranges(r, plain);
  for (int64_t t = 0; t < d; ++t) {
    EXPECT_TRUE(g.out[size_t(t)].contains(acc[size_t(t)] / L)) << t;
    EXPECT_LE(g.out[size_t(t)].lo, narrow.out[size_t(t)].lo) << t;
    EXPECT_GE(g.out[size_t(t)].hi, narrow.out[size_t(t)].hi) << t;
  }
  EXPECT_TRUE(g.lse.contains(M + std::log(L)));
  const Spread sm = spread(r.s(), r.delta(merged), merged, false), sp = spread(r.s(), r.delta(plain), plain, false);
  EXPECT_GT(sm.hi[1] / sm.w[1], sp.hi[1] / sp.w[1]) << "key 1: its rescales counted by the tiles after it, not by the moves of one pass";
  EXPECT_EQ(sm.hi[0] / sm.w[0] > sp.hi[0] / sp.w[0], true) << "the merge's exp on every weight";
}

}  // namespace
