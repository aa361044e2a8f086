// rows::rms_norm and rows::add_rms_norm.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "kc/parallel.hpp"
#include "kc/spec.hpp"
#include "rows_common.hpp"

namespace kc::rows {
using namespace detail;

namespace {
constexpr int kRedraws = 32;

// The relative change a replay must make in a sum of squares for the output to move by 100x its
// exact-sum bound: y ~ S^-1/2 moves by half of S's relative change. Outputs in bf16 or fp16 need
// more than a bf16 sum of a few hundred squares can lose; those specs say .hidden(...).
double needed_rel(const Case& c, DType out) {
  double rest = 0;
  if (c.spec && c.spec->sums) {
    double ulps = 0;
    for (const auto& u : c.spec->sums->ulps) ulps += u.ulps;
    rest = (c.spec->sums->ops + ulps) * u32 + c.spec->sums->mids * half_ulp(out);
  }
  return 2 * 100 * (half_ulp(out) + rest) * 1.5;
}

// Integer rows for gate 4 whose squares' replays each miss by the relative change `need` (fp16
// overflows on the large term; bf16 must lose enough), redrawn a few times when bf16 does not.
std::vector<double> squares_fill(Rng& r, int64_t cols, DType t, double need, int64_t cap) {
  std::vector<double> v, sq(static_cast<size_t>(cols));
  for (int k = 0; k < kRedraws; ++k) {
    v = squares_row(r, cols, t, cap);
    double s = 0;
    for (size_t j = 0; j < v.size(); ++j) s += (sq[j] = v[j] * v[j]);
    if (replays_miss(sq, s, need * s)) break;
  }
  return v;
}

Interval square(const Interval& v) {
  if (v.nan) return v;
  if (v.lo <= 0 && v.hi >= 0) return Interval::of(0, std::max(v.lo * -v.lo, v.hi * v.hi)) * Interval::point(1);
  return v * v;
}

}  // namespace

// Whole rows: a masked row of x (NaN: inf / inf; +Inf is its mirror, a NaN row one NaN). w is a per-column scale, each output
// reads one of its values: a whole w of them is only many single plants. Fills (x): tiny rows
// (where eps sits matters), a large offset, magnitudes over the type's range.
Entry rms_norm(DType in, DType out, double eps) {
  static const std::vector<Plant> ops = plants::standard({{"x", plants::kMaskRow}, {"w", plants::kNoRows}});
  Entry e;
  plants::set(e.rig, ops);
  e.rig.fills = {fills::kTiny, fills::kOffset, fills::kRange};
  e.rig.prepare = [in, out](Case& c) {
    Dims d = dims_of(c);
    Buf x(c, "x", in, size_t(d.rows * d.cols), Role::in);
    Buf w(c, "w", in, size_t(d.cols), Role::in);
    Buf(c, "y", out, size_t(d.rows * d.cols), Role::out);
    Rng rx = rng_for(c, "x"), rw = rng_for(c, "w");
    fill_spread(w, rw, -2, 1);
    if (c.fill().kind == FillKind::sums) {
      double need = needed_rel(c, out);
      each_stream(rx, d.rows, [&](int64_t row, Rng& r) {
        auto v = squares_fill(r, d.cols, in, need, int64_t{1} << 20);
        for (int64_t j = 0; j < d.cols; ++j) x.set_exact(size_t(row * d.cols + j), v[size_t(j)]);
      });
      return;
    }
    // range: x^2 summed stays far inside fp32 (|x| < 2^51), y = x / rms is normal in fp32.
    if (!fill_dist(x, c, "x", d, true, {-50, 50})) fill_spread(x, rx, -4, 3);
    plant_if(x, c, ops, "x", d, true);
    plant_if(w, c, ops, "w", d, false);
  };
  // want: x / sqrt(mean x^2 + eps) * w in float64. Magnitude: the kernel sums S = sum x^2, and
  // dy/y = -1/2 dS/S (eps only damps it), so an error bounded by gamma(depth) sum|x^2| = gamma S
  // reaches y as gamma * |y| / 2: m = |y| / 2.
  e.rig.reference = [eps](const Case& c) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    auto w = read(c, "w");
    Expected y;
    y.name = "y";
    y.want.resize(x.size());
    y.mag.resize(x.size());
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {  // rows are independent: every core
      for (int64_t r = r0; r < r1; ++r) {
        const double* xr = x.data() + r * d.cols;
        double s = 0;
        for (int64_t j = 0; j < d.cols; ++j) s += xr[j] * xr[j];
        double inv = 1 / std::sqrt(s / double(d.cols) + eps);
        for (int64_t j = 0; j < d.cols; ++j) {
          double v = xr[j] * inv * w[size_t(j)];
          y.want[size_t(r * d.cols + j)] = v;
          y.mag[size_t(r * d.cols + j)] = std::fabs(v) / 2;
        }
      }
    });
    return results(y);
  };
  e.rig.simulate = [eps](const Case& c, SumFormat f, SumOrder o) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    auto w = read(c, "w");
    std::vector<double> y(x.size());
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
    std::vector<double> sq(size_t(d.cols));
    for (int64_t r = r0; r < r1; ++r) {
      const double* xr = x.data() + r * d.cols;
      for (int64_t j = 0; j < d.cols; ++j) sq[size_t(j)] = xr[j] * xr[j];
      double s = replay_sum(sq.data(), sq.size(), f, o);
      double inv = 1 / std::sqrt(s / double(d.cols) + eps);
      for (int64_t j = 0; j < d.cols; ++j) y[size_t(r * d.cols + j)] = xr[j] * inv * w[size_t(j)];
    }
    }, std::max<int64_t>(1, 4096 / d.cols));
    return std::vector<std::vector<double>>{y};
  };
  return e;
}

// Whole rows: a masked row of x and of r (h -Inf, y NaN; w as for rms_norm). Fills: tiny
// rows (x and r), a large offset in x, magnitudes over the type's range in x.
Entry add_rms_norm(Residual form, double eps) {
  static const std::vector<Plant> ops =
      plants::standard({{"x", plants::kMaskRow}, {"r", plants::kMaskRow}, {"w", plants::kNoRows}});
  Entry e;
  plants::set(e.rig, ops);
  e.rig.fills = {fills::kTiny, fills::kOffset, fills::kRange};
  e.rig.prepare = [](Case& c) {
    Dims d = dims_of(c);
    size_t n = size_t(d.rows * d.cols);
    Buf x(c, "x", DType::bf16, n, Role::in);
    Buf r(c, "r", DType::bf16, n, Role::in);
    Buf w(c, "w", DType::bf16, size_t(d.cols), Role::in);
    Buf(c, "h", DType::bf16, n, Role::out);
    Buf(c, "y", DType::bf16, n, Role::out);
    Rng rx = rng_for(c, "x"), rr = rng_for(c, "r"), rw = rng_for(c, "w");
    fill_spread(w, rw, -2, 1);
    if (c.fill().kind == FillKind::sums) {
      // h = x + r: integers up to 240 (plus one of 256), exact in bf16 and summed exactly in fp32;
      // x and r split each h with a small residual, both exact in bf16.
      each_stream(rx, d.rows, [&](int64_t row, Rng& rs) {
        auto h = squares_fill(rs, d.cols, DType::bf16, 0, 240);
        for (int64_t j = 0; j < d.cols; ++j) {
          double hv = h[size_t(j)];
          double rv = std::fabs(hv) >= 256 ? 0 : static_cast<double>(rs.range(-4, 4));
          x.set_exact(size_t(row * d.cols + j), hv - rv);
          r.set_exact(size_t(row * d.cols + j), rv);
        }
      });
      return;
    }
    if (!fill_dist(x, c, "x", d, true, {-50, 50})) fill_spread(x, rx, -3, 2);
    if (c.fill().dist != fills::kTiny || !fill_dist(r, c, "r", d, true)) fill_spread(r, rr, -3, 2);
    plant_if(x, c, ops, "x", d, true);
    plant_if(r, c, ops, "r", d, true);
    plant_if(w, c, ops, "w", d, false);
  };
  // want: at the rounding points, in float64: h = bf16(x + r); y = bf16(v / sqrt(mean v^2 + eps) w)
  // with v = h (rounded) or v = x + r (once-rounded). Each output's interval carries the fp32
  // steps: x + r's rounding, the sum's gamma(depth) (dropped for gate 4's exact integer sums), the
  // spec's ops and ulps after the sum, and the bf16 roundings.
  e.rig.reference = [form, eps](const Case& c) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    auto r = read(c, "r");
    auto w = read(c, "w");
    size_t n = x.size();
    Expected h, y;
    h.name = "h";
    y.name = "y";
    // Gate 1 compares classes alone: its fills skip the intervals (most of this reference's time).
    const bool classes = c.fill().kind == FillKind::nonfinite;
    for (Expected* ex : {&h, &y}) {
      ex->want.resize(n);
      ex->mag.resize(n);
      if (classes) continue;
      ex->lo.resize(n);
      ex->hi.resize(n);
    }
    bool exact = c.fill().kind == FillKind::sums;
    double g = exact ? 0 : gamma(sums_depth(c));
    double after = after_sums_rel(c);
    Interval epsr = eps_range(eps);
    // Rows are independent: on every core, each chunk of rows with its own scratch.
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
    std::vector<Interval> vi(size_t(d.cols));
    std::vector<double> vw(size_t(d.cols));
    for (int64_t row = r0; row < r1; ++row) {
      size_t b = size_t(row * d.cols);
      double s = 0;
      Interval si = Interval::point(0);
      for (int64_t j = 0; j < d.cols; ++j) {
        size_t i = b + size_t(j);
        double sum = x[i] + r[i];  // exact: two bf16 values
        double hv = round_to(DType::bf16, sum);
        h.want[i] = hv;
        double v = form == Residual::rounded ? hv : sum;
        vw[size_t(j)] = v;
        s += v * v;
        if (classes) continue;
        Interval hiv = fp32_step(Interval::point(x[i]) + Interval::point(r[i])).rounded(DType::bf16);
        h.lo[i] = std::isfinite(hv) ? hiv.lo : hv;  // a non-finite h is checked by class alone
        h.hi[i] = std::isfinite(hv) ? hiv.hi : hv;
        vi[size_t(j)] = form == Residual::rounded ? hiv : fp32_step(Interval::point(x[i]) + Interval::point(r[i]));
        si = si + square(vi[size_t(j)]);
      }
      double inv = 1 / std::sqrt(s / double(d.cols) + eps);
      Interval sw = classes ? si : si.widen(g);
      Interval den = classes ? si : iv_sqrt(sw / Interval::point(double(d.cols)) + epsr);
      for (int64_t j = 0; j < d.cols; ++j) {
        size_t i = b + size_t(j);
        double yv = round_to(DType::bf16, vw[size_t(j)] * inv * w[size_t(j)]);
        y.want[i] = yv;
        y.mag[i] = std::fabs(yv) / 2;
        if (classes) continue;
        if (!std::isfinite(yv)) {
          y.lo[i] = y.hi[i] = yv;
          continue;
        }
        Interval yi = (vi[size_t(j)] / den * Interval::point(w[size_t(j)])).widen(after, 0x1p-140).rounded(DType::bf16);
        y.lo[i] = yi.nan ? -INFINITY : yi.lo;
        y.hi[i] = yi.nan ? INFINITY : yi.hi;
      }
    }
    }, std::max<int64_t>(1, 4096 / d.cols));
    return results(h, y);
  };
  e.rig.simulate = [form, eps](const Case& c, SumFormat f, SumOrder o) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    auto r = read(c, "r");
    auto w = read(c, "w");
    std::vector<double> h(x.size()), y(x.size());
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
    std::vector<double> v(size_t(d.cols)), sq(size_t(d.cols));
    for (int64_t row = r0; row < r1; ++row) {
      size_t b = size_t(row * d.cols);
      for (int64_t j = 0; j < d.cols; ++j) {
        double sum = x[b + j] + r[b + j];
        h[b + j] = round_to(DType::bf16, sum);
        v[size_t(j)] = form == Residual::rounded ? h[b + j] : sum;
        sq[size_t(j)] = v[size_t(j)] * v[size_t(j)];
      }
      double s = replay_sum(sq.data(), sq.size(), f, o);
      double inv = 1 / std::sqrt(s / double(d.cols) + eps);
      for (int64_t j = 0; j < d.cols; ++j) y[b + j] = v[size_t(j)] * inv * w[size_t(j)];
    }
    }, std::max<int64_t>(1, 4096 / d.cols));
    return std::vector<std::vector<double>>{h, y};
  };
  return e;
}

}  // namespace kc::rows
