// The attention range (attention_range.hpp).
#include "attention_range.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kc/families/blocks.hpp"
#include "kc/spec.hpp"

namespace kc::attention::detail {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSlack = 1 + 0x1p-20;  // second-order terms of the first-order counts below

double ulps_of(const Case& c, const char* a, const char* b, double fallback) {
  const double x = blocks::declared_ulps(c, a, -1);
  if (x >= 0) return x;
  return blocks::declared_ulps(c, b, fallback);
}

// The largest (sum_j w_j a_j + e) / (sum_j w_j b_j) over w_j in [lo_j, hi_j] (Dinkelbach: at the
// optimum t each w_j sits at hi_j where a_j - t b_j > 0, else at lo_j; each step raises t).
template <class A, class B> double frac_max(const Spread& sp, A a, B b, double e) {
  const size_t n = sp.w.size();
  double num = e, den = 0;
  for (size_t j = 0; j < n; ++j) num += sp.w[j] * a(j), den += sp.w[j] * b(j);
  double t = num / den;
  for (int it = 0; it < 200; ++it) {
    num = e, den = 0;
    for (size_t j = 0; j < n; ++j) {
      const double w = a(j) - t * b(j) > 0 ? sp.hi[j] : sp.lo[j];
      num += w * a(j), den += w * b(j);
    }
    const double t2 = num / den;
    if (!(t2 > t)) break;
    t = t2;
  }
  return t;
}

// The double evaluation's own error on a sum of n terms of magnitude `mag`: far below any fp32 step.
double slack(size_t n, double mag) { return double(n + 8) * 0x1p-51 * mag; }
}  // namespace

Allow allow_of(const Case& c, const Steps& st, const char* tiled_dim) {
  Allow al;
  const Shape& s = c.shape();
  const bool exact = c.fill().kind == FillKind::sums;  // gate 4's integer sums
  const Accum* acc = c.spec && c.spec->sums ? &*c.spec->sums : nullptr;
  const double depth = acc && acc->depth ? acc->depth(s) : 2.0 * double(s[tiled_dim]) + 1;
  al.g_sum = exact ? 0 : gamma(depth);
  al.g_dot = exact ? 0 : gamma(st.dot_depth ? st.dot_depth(s) : double(s["d"]));
  al.ops = acc ? acc->ops : 1;
  al.e_exp = ulps_of(c, "expf", "exp2f", 2) * 2 * u32;
  al.e_log = ulps_of(c, "logf", "log2f", 1) * 2 * u32;
  al.score_ops = st.score_ops;
  // A relative move of P: half a bf16 ulp to nearest; below one tf32 ulp (2^-10) cut toward zero.
  al.p_round = st.p == PRound::bf16 ? 0x1p-8 : st.p == PRound::tf32 ? 0x1p-10 : 0;
  const Dim* d = c.spec ? c.spec->dim(tiled_dim) : nullptr;
  al.tile = d && d->tiled ? std::max<int64_t>(1, d->tile) : 1;
  al.base = st.base;
  al.merged = st.merged;
  return al;
}

double score_delta(double s, double abs_dot, double scale, const Allow& al) {
  const double dot_err = scale * al.g_dot * abs_dot;
  return (dot_err + al.score_ops * u32 * (std::fabs(s) + dot_err)) * kSlack;
}

Spread spread(const std::vector<double>& s, const std::vector<double>& delta, const Allow& al, bool own_max) {
  const size_t n = s.size();
  Spread sp;
  sp.M = -kInf;
  for (size_t j = 0; j < n; ++j) {
    sp.M = std::max(sp.M, s[j]);
    sp.dmax = std::max(sp.dmax, delta[j]);
  }
  // Rescales after key j: the later keys that may raise the running max (within the scores' error),
  // at most one a tile, whatever the tiles' alignment.
  std::vector<int64_t> after(n, 0);
  double run = -kInf;
  std::vector<char> moves(n, 0);
  for (size_t i = 0; i < n; ++i) {
    moves[i] = s[i] > run - 2 * sp.dmax;
    run = std::max(run, s[i]);
  }
  for (size_t j = n; j-- > 1;) after[j - 1] = after[j] + moves[j];
  const double per_exp = -std::log1p(-al.e_exp);
  sp.w.resize(n), sp.lo.resize(n), sp.hi.resize(n);
  for (size_t j = 0; j < n; ++j) {
    if (s[j] == -kInf) {
      sp.w[j] = sp.lo[j] = sp.hi[j] = 0;
      continue;
    }
    // A merged kernel's chunk restarts its max, so any later tile of the chunk may rescale, and the
    // merge rescales the chunk's partial once more.
    const int64_t tiles = int64_t(n - 1 - j) / al.tile + 1;
    const double r = double(al.merged ? tiles + 1 : std::min<int64_t>(after[j], tiles));
    const double gap = sp.M - s[j];
    // The score's error (and the kernel's max's, where the weight is relative to it), s_j - max's
    // and every rescale argument's rounding (each up to u of the gap it closes), exp's error once
    // for p_j and once a rescale.
    const double lam = (delta[j] + (own_max ? sp.dmax : 0) + 2 * u32 * (gap + 2 * sp.dmax) + (1 + r) * per_exp) * kSlack;
    const double floor = (2 + r) * 0x1p-147;  // exp's results below fp32's normal range
    sp.w[j] = std::exp(-gap);
    sp.lo[j] = std::max(0.0, std::exp(-gap - lam) * (1 - 0x1p-52) - floor);
    sp.hi[j] = std::exp(-gap + lam) * (1 + 0x1p-52) + floor;
  }
  return sp;
}

Interval ratio_range(const Spread& sp, const std::vector<const double*>& rows, int64_t t, const double* b,
                     const Allow& al) {
  const size_t n = sp.w.size();
  const double p = al.p_round;
  auto a = [&](size_t j) { return rows[j][t]; };
  auto bj = [&](size_t j) { return b ? b[j] : 1.0; };
  double e = 0, mag = 0, den = 0;
  for (size_t j = 0; j < n; ++j) {
    e += sp.hi[j] * std::fabs(a(j));
    mag += sp.w[j] * std::fabs(a(j)), den += sp.w[j] * bj(j);
  }
  // The numerator's sum error, and where P is rounded its subnormal floor.
  e = al.g_sum * e * (1 + p) + (p > 0 ? double(n) * 0x1p-133 * mag : 0);
  const double hi = frac_max(sp, [&](size_t j) { return a(j) + p * std::fabs(a(j)); }, bj, e);
  const double lo = -frac_max(sp, [&](size_t j) { return -(a(j) - p * std::fabs(a(j))); }, bj, e);
  // The denominator's sum (positive terms) within g_sum of its value.
  const double g = al.g_sum;
  const double h2 = hi > 0 ? hi / (1 - g) : hi / (1 + g), l2 = lo > 0 ? lo / (1 + g) : lo / (1 - g);
  const double sl = slack(n, mag / den);
  return Interval::of(l2 - sl, h2 + sl);
}

Interval sum_range(const Spread& sp, const std::vector<const double*>& rows, int64_t t, const Allow& al) {
  const size_t n = sp.w.size();
  const double p = al.p_round;
  double lo = 0, hi = 0, e = 0, mag = 0;
  for (size_t j = 0; j < n; ++j) {
    const double a = rows[j][t], aL = a - p * std::fabs(a), aH = a + p * std::fabs(a);
    lo += aL >= 0 ? sp.lo[j] * aL : sp.hi[j] * aL;
    hi += aH >= 0 ? sp.hi[j] * aH : sp.lo[j] * aH;
    e += sp.hi[j] * std::fabs(a);
    mag += sp.w[j] * std::fabs(a);
  }
  e = al.g_sum * e * (1 + p) + (p > 0 ? double(n) * 0x1p-133 * mag : 0) + slack(n, e);
  return Interval::of(lo - e, hi + e);
}

Interval weight_sum_range(const Spread& sp, const double* b, const Allow& al) {
  const size_t n = sp.w.size();
  double lo = 0, hi = 0;
  for (size_t j = 0; j < n; ++j) {
    const double bj = b ? b[j] : 1.0;
    lo += sp.lo[j] * bj, hi += sp.hi[j] * bj;
  }
  const double sl = slack(n, hi);
  return Interval::of(lo * (1 - al.g_sum) - sl, hi * (1 + al.g_sum) + sl);
}

Interval lse_range(const Spread& sp, const double* b, const Allow& al) {
  const Interval L = weight_sum_range(sp, b, al);
  double lo = sp.M + std::log(std::max(L.lo, 0.0)), hi = sp.M + std::log(L.hi);
  double lg = std::max(std::fabs(std::log(std::max(L.lo, 0x1p-1074))), std::fabs(std::log(L.hi)));
  if (al.base == LseBase::two) {
    lo *= M_LOG2E, hi *= M_LOG2E, lg *= M_LOG2E;
  }
  // log's error on its result, the final add's rounding (and a base change's, where the kernel
  // converts), each on the largest magnitude the interval holds.
  const double big = std::max(std::fabs(lo), std::fabs(hi));
  const double err = (al.e_log * lg + (al.base == LseBase::two ? 2 : 1) * u32 * big) * kSlack + 0x1p-50 * (big + 1);
  return Interval::of(lo - err, hi + err);
}

Interval max_range(const std::vector<double>& s, const std::vector<double>& delta) {
  double lo = -kInf, hi = -kInf;
  for (size_t j = 0; j < s.size(); ++j) lo = std::max(lo, s[j] - delta[j]), hi = std::max(hi, s[j] + delta[j]);
  return Interval::of(lo - 0x1p-50 * std::fabs(lo), hi + 0x1p-50 * std::fabs(hi));
}

Interval finish(const Interval& v, int ops, DType out) {
  if (v.nan) return v;
  Interval w = v.widen(ops * u32 * 1.01, ops * 0x1p-149).rounded(DType::f32);
  return out == DType::f32 ? w : w.rounded(out);
}

}  // namespace kc::attention::detail
