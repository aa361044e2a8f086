// The formula's operations at one coordinate, in each of the three numbers: double (the float64
// reference, and gate 4's replays of its sums), Track (the error bound or the interval).
#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "kc/families/blocks.hpp"
#include "kc/lowp.hpp"
#include "kc/parallel.hpp"
#include "run.hpp"

namespace kc::formula {

namespace detail {
Track apply(const Track& x, double v, double lip, double d1, double ulps);
Track pin(double v, const Interval& iv);
Track make_finish(Track r, bool exact);
}  // namespace detail

using detail::Run;

template <class N> void View<N>::check(int64_t i) const {
  if (i < 0 || i >= f_.n) throw Error(fmt::format("formula: element {} read of a view of {}", i, f_.n));
}

template <class N> typename Out<N>::Ref Out<N>::operator[](int64_t i) const {
  if (i < 0 || i >= f_.n) throw Error(fmt::format("formula: element {} written of an output view of {}", i, f_.n));
  return Ref{run_, out_, base_ + f_.offset(i)};
}

namespace {

const detail::Buffer& buffer(const Run& r, std::string_view name, int& at) {
  at = r.def.find(name);
  if (at < 0) throw Error(fmt::format("formula: no buffer '{}'", name));
  return r.def.bufs[size_t(at)];
}

// Ulps an index of Run::ulps: expf, logf, tanhf, erff, rsqrtf.
enum Fn { kExp, kLog, kTanh, kErf, kRsqrt, kSin, kCos };

double dist0(const Interval& iv) { return iv.lo > 0 ? iv.lo : iv.hi < 0 ? -iv.hi : 0; }

// A monotone function on an interval, its ends widened one double ulp outward (then the fp32 step).
template <class F> Interval mono(const Interval& x, F f, bool increasing, double ulps) {
  if (x.nan) return x;
  double a = f(x.lo), b = f(x.hi);
  if (!increasing) std::swap(a, b);
  return blocks::fp32_step(Interval::of(std::nextafter(a, -INFINITY), std::nextafter(b, INFINITY)), ulps);
}

}  // namespace

template <class N> View<N> Ctx<N>::in(std::string_view name) const {
  int at;
  const auto& b = buffer(*run_, name, at);
  if (!b.input()) throw Error(fmt::format("formula: '{}' is an output; f.in reads inputs", name));
  int64_t base;
  detail::Free f = run_->free_of(at, coords_, base);
  return View<N>(run_->data[size_t(at)].data() + base, f);
}

template <class N> Out<N> Ctx<N>::out(std::string_view name) const {
  int at;
  const auto& b = buffer(*run_, name, at);
  if (b.input()) throw Error(fmt::format("formula: '{}' is an input; f.out writes outputs", name));
  int64_t base;
  detail::Free f = run_->free_of(at, coords_, base);
  return Out<N>(run_, at, base, f);
}

template <class N> int64_t Ctx<N>::id(std::string_view ids, int64_t i) const {
  int at;
  if (buffer(*run_, ids, at).kind != detail::Kind::ids) throw Error(fmt::format("formula: '{}' holds no ids", ids));
  return int64_t(in(ids).raw(i));
}

template <class N> View<N> Ctx<N>::row(std::string_view table, int64_t id) const {
  int at;
  const auto& b = buffer(*run_, table, at);
  if (!b.input()) throw Error(fmt::format("formula: table '{}' is an output", table));
  BadId bad = BadId::never;
  for (const auto& x : run_->def.bufs)
    if (x.kind == detail::Kind::ids && x.table == b.name) bad = x.bad;
  const int64_t rows = run_->ext[size_t(at)][0];
  int fill = 0;
  if (id < 0 || id >= rows) {
    switch (bad) {
      case BadId::never:
        throw Error(fmt::format("formula: id {} outside table '{}' of {} rows, and no rule for a bad id is stated", id,
                                table, rows));
      case BadId::zero: fill = 1; break;
      case BadId::nan: fill = 2; break;
      case BadId::clamp: id = std::clamp<int64_t>(id, 0, rows - 1); break;
    }
  }
  int64_t base;
  detail::Free f = run_->free_of(at, coords_, base, 1);
  const int64_t row_size = run_->data[size_t(at)].size() / size_t(rows);
  return View<N>(run_->data[size_t(at)].data() + base + (fill ? 0 : id * row_size), f, fill);
}

template <class N> int64_t Ctx<N>::size(std::string_view dim) const { return run_->c.shape()[dim]; }

template <class N> std::vector<int64_t> Ctx<N>::top(const View<N>& v, int64_t k) const {
  if (k < 0 || k > v.size()) throw Error(fmt::format("formula: top {} of {} values", k, v.size()));
  std::vector<int64_t> ids(size_t(v.size()));
  std::iota(ids.begin(), ids.end(), 0);
  auto before = [&](int64_t i, int64_t j) {
    const double a = v.raw(i), b = v.raw(j);
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && (!std::isnan(b) || i < j);
    return a > b || (a == b && i < j);
  };
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), before);
  ids.resize(size_t(k));
  return ids;
}

namespace {
template <class N> std::vector<double> row_of(const View<N>& x) {
  std::vector<double> v(size_t(x.size()));
  for (int64_t i = 0; i < x.size(); ++i) v[size_t(i)] = x.raw(i);
  return v;
}
// Gate 4's replay of sum (x - mean)^2 in the run's format and order.
double replay_squares(const Run& r, const std::vector<double>& x, double mean) {
  std::vector<double> sq(x.size());
  for (size_t j = 0; j < x.size(); ++j) sq[j] = (x[j] - mean) * (x[j] - mean);
  return replay_sum(sq.data(), sq.size(), r.format, r.order);
}
}  // namespace

template <class N> N Ctx<N>::centred_squares(const View<N>& x, const N& mean) const {
  run_->summed = true;
  const std::vector<double> v = row_of(x);
  if constexpr (std::is_same_v<N, double>) {
    if (run_->mode == detail::Mode::replay) return replay_squares(*run_, v, mean);
    return detail::centred_squares(v.data(), x.size(), mean);
  } else {
    return detail::centred_squares(v.data(), x.size(), mean, run_->gamma);
  }
}

template <class N> Moments<N> Ctx<N>::welford(const View<N>& x) const {
  run_->summed = true;
  const std::vector<double> v = row_of(x);
  const auto n = int64_t(v.size());
  if constexpr (std::is_same_v<N, double>) {
    if (run_->mode == detail::Mode::replay) {
      const double mu = replay_sum(v.data(), v.size(), run_->format, run_->order) / double(n);
      return {mu, replay_squares(*run_, v, mu)};
    }
    double s = 0;
    for (double t : v) s += t;
    const double mu = s / double(n);
    return {mu, detail::centred_squares(v.data(), n, mu)};
  } else {
    return detail::welford(v.data(), n);
  }
}

template <class N> N Ctx<N>::interval(const N& x) const {
  if constexpr (std::is_same_v<N, double>) return x;
  else return x.pinned ? x : detail::pin(x.v, detail::interval_of(x));
}

template <class N> std::vector<N>& Ctx<N>::scratch() {
  thread_local std::vector<N> s;
  return s;
}

namespace {

// ---- double: the reference, and the replays ----

double d_sum_of(Run* run_, const double* t, int64_t n) {
  run_->summed = true;
  if (run_->mode == detail::Mode::replay) return replay_sum(t, size_t(n), run_->format, run_->order);
  double s = 0;
  for (int64_t k = 0; k < n; ++k) s += t[k];
  return s;
}
double d_max_of(Run*, const double* t, int64_t n) {
  double m = -INFINITY;
  for (int64_t k = 0; k < n; ++k) m = std::isnan(t[k]) || std::isnan(m) ? NAN : std::max(m, t[k]);
  return m;
}
double d_exp(Run*, const double& x) { return std::exp(x); }
double d_log(Run*, const double& x) { return std::log(x); }
double d_tanh(Run*, const double& x) { return std::tanh(x); }
double d_erf(Run*, const double& x) { return std::erf(x); }
double d_sin(Run*, const double& x) { return std::sin(x); }
double d_cos(Run*, const double& x) { return std::cos(x); }
double d_sqrt(Run*, const double& x) { return std::sqrt(x); }
double d_rsqrt(Run*, const double& x) { return 1 / std::sqrt(x); }
double d_abs(Run*, const double& x) { return std::fabs(x); }
double d_max(Run*, const double& x, const double& y) {
  return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
}
double d_min(Run*, const double& x, const double& y) {
  return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
}
double d_round(Run*, const double& x, DType t) { return round_to(t, x); }

// ---- Track: the bound ----

Track t_sum_of(Run* run_, const Track* t, int64_t n) {
  run_->summed = true;
  Track r;
  bool pinned = false, exact = true;
  int grid = INT_MAX;
  double abs = 0;
  for (int64_t k = 0; k < n; ++k) {
    r.v += t[k].v;
    pinned |= t[k].pinned;
    exact &= t[k].exact && std::isfinite(t[k].v);
    grid = std::min(grid, detail::low_bit(t[k].v));
    abs += std::fabs(t[k].v);
  }
  if (pinned) {  // an interval through the sum, widened by gamma(depth) on its terms' magnitudes
    Interval s = Interval::point(0);
    double mag = 0;
    for (int64_t k = 0; k < n; ++k) {
      Interval iv = detail::interval_of(t[k]);
      s = s + iv;
      mag += std::max(std::fabs(iv.lo), std::fabs(iv.hi));
    }
    return detail::pin(r.v, s.widen(0, run_->gamma * mag + double(n) * 0x1p-150));
  }
  // Exact in any order: every term exact in fp32, on a grid of 2^grid, the sum of magnitudes below
  // 2^24 of it (each partial sum then an fp32 number).
  if (exact && (grid == INT_MAX || (grid >= -149 && abs <= std::ldexp(1.0, 24 + grid)))) {
    r.exact = true;
    return r;
  }
  r.exact = false;
  if (!std::isfinite(r.v)) return r;
  // |s^ - sum t| <= gamma (sum |t_k| + E_k) + sum E_k: the terms' own errors, then the sum's on them.
  for (int64_t k = 0; k < n; ++k) {
    const double e = detail::error_of(t[k]);
    r.m += t[k].m + std::fabs(t[k].v);
    r.a += t[k].a + run_->gamma * e;
  }
  r.a += double(n) * 0x1p-150;
  return r;
}

Track t_max_of(Run*, const Track* t, int64_t n) {
  Track r = Track::input(-INFINITY);
  bool pinned = false, nan = false;
  double e = 0;
  for (int64_t k = 0; k < n; ++k) {
    nan |= std::isnan(t[k].v);
    pinned |= t[k].pinned;
    if (t[k].v > r.v || k == 0) r.v = t[k].v;
    r.m = std::max(r.m, t[k].m);
    r.exact &= t[k].exact;
    e = std::max(e, detail::error_of(t[k]));
  }
  if (nan) return Track::input(NAN);
  if (pinned) {
    Interval iv = detail::interval_of(t[0]);
    for (int64_t k = 1; k < n; ++k) {
      Interval x = detail::interval_of(t[k]);
      iv = Interval::of(std::max(iv.lo, x.lo), std::max(iv.hi, x.hi));
    }
    return detail::pin(r.v, iv);
  }
  r.a = std::max(e - detail::tl_gamma * r.m, 0.0);  // max is 1-Lipschitz in each term
  return r;
}

template <class F, class D>
Track fn(const Track& x, double ulps, F f, D lip_on, Interval (*iv)(const Interval&), bool increasing = true) {
  const double v = f(x.v);
  if (x.pinned) return detail::pin(v, iv ? blocks::fp32_step(iv(x.iv), ulps) : mono(x.iv, f, increasing, ulps));
  const Interval around = detail::interval_of(x);
  return detail::apply(x, v, lip_on(around), lip_on(Interval::point(x.v)), ulps);
}

Track t_exp(Run* run_, const Track& x) {
  return fn(x, run_->ulps[kExp], [](double v) { return std::exp(v); },
            [](const Interval& i) { return std::exp(i.hi); }, iv_exp);
}
Track t_log(Run* run_, const Track& x) {
  return fn(x, run_->ulps[kLog], [](double v) { return std::log(v); },
            [](const Interval& i) { return i.lo > 0 ? 1 / i.lo : INFINITY; }, nullptr);
}
Track t_tanh(Run* run_, const Track& x) {
  return fn(x, run_->ulps[kTanh], [](double v) { return std::tanh(v); },
            [](const Interval& i) { const double t = std::tanh(dist0(i)); return 1 - t * t; }, iv_tanh);
}
Track t_erf(Run* run_, const Track& x) {
  return fn(x, run_->ulps[kErf], [](double v) { return std::erf(v); },
            [](const Interval& i) { const double d = dist0(i); return 2 / std::sqrt(M_PI) * std::exp(-d * d); }, iv_erf);
}
// sin or cos over an interval: the ends, and 1 or -1 where a peak of the function lies inside (every
// value past a width of 2 pi). Widened one double ulp outward.
Interval iv_trig(const Interval& x, bool cosine) {
  if (x.nan || !std::isfinite(x.lo) || !std::isfinite(x.hi)) return Interval::of(-1, 1);
  if (x.hi - x.lo >= 2 * M_PI) return Interval::of(-1, 1);
  const double shift = cosine ? M_PI / 2 : 0;  // cos(t) = sin(t + pi/2)
  const double a = x.lo + shift, b = x.hi + shift;
  double lo = std::min(std::sin(a), std::sin(b)), hi = std::max(std::sin(a), std::sin(b));
  // peaks of sin at pi/2 + 2 pi k (1) and -pi/2 + 2 pi k (-1)
  auto holds = [&](double at) { return std::ceil((a - at) / (2 * M_PI)) <= std::floor((b - at) / (2 * M_PI)); };
  if (holds(M_PI / 2)) hi = 1;
  if (holds(-M_PI / 2)) lo = -1;
  return Interval::of(std::max(-1.0, std::nextafter(lo, -INFINITY)), std::min(1.0, std::nextafter(hi, INFINITY)));
}
Interval iv_sin(const Interval& x) { return iv_trig(x, false); }
Interval iv_cos(const Interval& x) { return iv_trig(x, true); }

// |sin'|, |cos'| <= 1: the argument's error passes through at most unchanged (an fp32 angle's error
// at a large position, pos * inv_freq rounded, reaches the result whole).
Track t_sin(Run* run_, const Track& x) {
  return fn(x, run_->ulps[kSin], [](double v) { return std::sin(v); }, [](const Interval&) { return 1.0; }, iv_sin);
}
Track t_cos(Run* run_, const Track& x) {
  return fn(x, run_->ulps[kCos], [](double v) { return std::cos(v); }, [](const Interval&) { return 1.0; }, iv_cos);
}
Track t_sqrt(Run*, const Track& x) {
  const double v = std::sqrt(x.v);
  if (x.pinned) return detail::pin(v, blocks::fp32_step(blocks::iv_sqrt(x.iv)));
  // |sqrt(x') - sqrt(x)| <= min(E / (sqrt(x - E) + sqrt(x)), sqrt(E)): finite even where E reaches 0.
  const double e = detail::error_of(x);
  if (!(e > 0)) return detail::apply(x, v, 0, 0, 0.5);
  const double t = std::min(e / (std::sqrt(std::max(x.v - e, 0.0)) + v), std::sqrt(e)), lip = t / e;
  return detail::apply(x, v, lip, std::min(lip, 0.5 / v), 0.5);
}
Track t_rsqrt(Run* run_, const Track& x) {
  return fn(x, run_->ulps[kRsqrt], [](double v) { return 1 / std::sqrt(v); },
            [](const Interval& i) { return i.lo > 0 ? 0.5 / (i.lo * std::sqrt(i.lo)) : INFINITY; }, nullptr, false);
}
Track t_abs(Run*, const Track& x) {
  Track r = x;
  r.v = std::fabs(x.v);
  if (x.pinned) r.iv = Interval::of(dist0(x.iv), std::max(std::fabs(x.iv.lo), std::fabs(x.iv.hi)));
  return r;
}
Track t_max(Run* run_, const Track& x, const Track& y) {
  const Track t[2] = {x, y};
  return t_max_of(run_, t, 2);
}
Track t_min(Run* run_, const Track& x, const Track& y) {
  const Track t[2] = {-x, -y};
  return -t_max_of(run_, t, 2);
}
Track t_round(Run*, const Track& x, DType t) {
  return detail::pin(round_to(t, x.v), detail::interval_of(x).rounded(t));
}

}  // namespace

template <class N> N Ctx<N>::sum_of(const N* t, int64_t n) const {
  if constexpr (std::is_same_v<N, double>) return d_sum_of(run_, t, n); else return t_sum_of(run_, t, n);
}
template <class N> N Ctx<N>::max_of(const N* t, int64_t n) const {
  if constexpr (std::is_same_v<N, double>) return d_max_of(run_, t, n); else return t_max_of(run_, t, n);
}
#define KC_FN1(name) \
  template <class N> N Ctx<N>::name(const N& x) const { \
    if constexpr (std::is_same_v<N, double>) return d_##name(run_, x); else return t_##name(run_, x); \
  }
KC_FN1(exp)
KC_FN1(log)
KC_FN1(tanh)
KC_FN1(erf)
KC_FN1(sqrt)
KC_FN1(rsqrt)
KC_FN1(sin)
KC_FN1(cos)
KC_FN1(abs)
#undef KC_FN1
template <class N> N Ctx<N>::max(const N& x, const N& y) const {
  if constexpr (std::is_same_v<N, double>) return d_max(run_, x, y); else return t_max(run_, x, y);
}
template <class N> N Ctx<N>::min(const N& x, const N& y) const {
  if constexpr (std::is_same_v<N, double>) return d_min(run_, x, y); else return t_min(run_, x, y);
}
template <class N> N Ctx<N>::round(const N& x, DType t) const {
  if constexpr (std::is_same_v<N, double>) return d_round(run_, x, t); else return t_round(run_, x, t);
}

template class Ctx<double>;
template class Ctx<Track>;
template class View<double>;
template class View<Track>;
template class Out<double>;
template class Out<Track>;

}  // namespace kc::formula
