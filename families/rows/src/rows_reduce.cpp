// rows::sum, rows::dot, rows::max: one output a row.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "kc/parallel.hpp"
#include "rows_common.hpp"

namespace kc::rows {
using namespace detail;

namespace {

// Gate 4: integer rows whose every fp16 and bf16 replay misses the exact sum by at least 1 (the
// row sums to 1, so that is 100x the bound of any output type); a row is redrawn until it does.
constexpr int kRedraws = 32;

// x [rows x cols] for sum and max (and the terms of sum).
void fill_x(Case& c, Buf& x, const Dims& d, DType in, const std::vector<Plant>& operands, bool sums_fill,
            const fills::Range& range) {
  Rng r = rng_for(c, "x");
  if (c.fill().kind == FillKind::sums && sums_fill) {
    each_stream(r, d.rows, [&](int64_t row, Rng& rs) {
      std::vector<double> v;
      for (int k = 0; k < kRedraws; ++k) {
        v = mirrored_row(rs, d.cols, in);
        // Past half the draws, the negatives in a random order: a reversed mirror can meet a
        // replay's lanes so that their rounded partials cancel as exactly as the terms do (bf16 in
        // 32 lanes at 65 columns), and no redraw of the values alone changes that.
        if (k >= kRedraws / 2)
          for (int64_t i = d.cols - 1, h = d.cols / 2; i > h; --i) std::swap(v[size_t(i)], v[size_t(rs.range(h, i))]);
        if (replays_miss(v, 1, 1)) break;
      }
      for (int64_t j = 0; j < d.cols; ++j) x.set_exact(size_t(row * d.cols + j), v[size_t(j)]);
    });
    return;
  }
  if (!fill_dist(x, c, "x", d, true, range)) fill_spread(x, r, -4, 3);
  plant_if(x, c, operands, "x", d, true);
}

// The range fill's exponents for a sum of `cols` terms each below 2^(hi+1) times `scale`: the sum
// stays below a quarter of the output type's largest value, in any order.
fills::Range sum_range(DType out, int64_t cols, int scale_exp = 0) {
  int lg = 0;
  while ((int64_t(1) << lg) < cols) ++lg;
  return {-120, fills::max_exponent(out) - 3 - lg - scale_exp};
}

Expected row_expected(const std::string& name, std::vector<double> want, std::vector<double> mag) {
  Expected e;
  e.name = name;
  e.want = std::move(want);
  e.mag = std::move(mag);
  return e;
}

}  // namespace

// Whole rows: a masked row (-Inf) sums to -Inf (+Inf is its mirror, a NaN row one NaN). Fills:
// magnitudes over the type's range, signed zeros (the sign of a zero sum), subnormals (flushed to
// zero by a kernel that should not), a large offset (every partial sum large).
Entry sum(DType in, DType out) {
  static const std::vector<Plant> ops = plants::standard({{"x", plants::kMaskRow}});
  Entry e;
  plants::set(e.rig, ops);
  e.rig.fills = {fills::kRange, fills::kZeros, fills::kSubnormal, fills::kOffset};
  e.rig.prepare = [in, out](Case& c) {
    Dims d = dims_of(c);
    Buf x(c, "x", in, size_t(d.rows * d.cols), Role::in);
    Buf(c, "y", out, size_t(d.rows), Role::out);
    fill_x(c, x, d, in, ops, true, sum_range(out, d.cols));
  };
  // want: the row's sum in float64; magnitude: sum of |x| (the terms the kernel adds).
  e.rig.reference = [](const Case& c) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    std::vector<double> want(size_t(d.rows)), mag(size_t(d.rows));
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        double s = 0, m = 0;
        for (int64_t j = 0; j < d.cols; ++j) {
          s += x[size_t(r * d.cols + j)];
          m += std::fabs(x[size_t(r * d.cols + j)]);
        }
        want[size_t(r)] = s;
        mag[size_t(r)] = m;
      }
    });
    return results(row_expected("y", want, mag));
  };
  e.rig.simulate = [](const Case& c, SumFormat f, SumOrder o) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    std::vector<double> y(size_t(d.rows));
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) y[size_t(r)] = replay_sum(x.data() + r * d.cols, size_t(d.cols), f, o);
    });
    return std::vector<std::vector<double>>{y};
  };
  return e;
}

// Whole rows: a masked row of x, and all of w -Inf (every row's dot reads all of it): against
// signed values, NaN. Fills: zeros of both signs (in x and w), a large offset in x over signed
// weights (cancellation), rows of one sign, magnitudes over the type's range in x.
Entry dot(DType in, DType out) {
  static const std::vector<Plant> ops = plants::standard({{"x", plants::kMaskRow}, {"w", plants::kMaskRow}});
  Entry e;
  plants::set(e.rig, ops);
  e.rig.fills = {fills::kZeros, fills::kOffset, fills::kSign, fills::kRange};
  e.rig.prepare = [in, out](Case& c) {
    Dims d = dims_of(c);
    Buf x(c, "x", in, size_t(d.rows * d.cols), Role::in);
    Buf w(c, "w", in, size_t(d.cols), Role::in);
    Buf(c, "y", out, size_t(d.rows), Role::out);
    if (c.fill().kind == FillKind::sums) {
      // w: small integers, symmetric, 1 at both ends and 4 next to them (the large term's weight).
      Rng rw = rng_for(c, "w");
      std::vector<double> wv(size_t(d.cols), 1.0);
      for (int64_t j = 1; j < (d.cols + 1) / 2; ++j) {
        double v = (j == 1) ? 4 : static_cast<double>(rw.range(1, 8));
        wv[size_t(j)] = wv[size_t(d.cols - 1 - j)] = v;
      }
      if (d.cols >= 2) wv[0] = wv[size_t(d.cols - 1)] = 1;
      // Terms mirrored in reverse order can meet a replay's lanes so that their rounded partials
      // cancel as exactly as the terms do (bf16 in 32 lanes at 65 columns: lane l holds t[l] and
      // -t[32 - l]), whatever the values. Then the mirrored half is permuted, w with every row's
      // x (w is shared), until every row's replays miss: the terms only move, so the sum stays 1.
      const int64_t h = d.cols / 2;
      std::vector<int64_t> perm(size_t(d.cols));
      Rng rp = rng_for(c, "perm");
      Rng r = rng_for(c, "x");
      std::vector<double> wp(wv);
      std::atomic<int> weak{0};
      for (int attempt = 0; attempt < 8; ++attempt) {
        for (int64_t j = 0; j < d.cols; ++j) perm[size_t(j)] = j;
        if (attempt > 0)
          for (int64_t i = d.cols - 1; i > d.cols - h; --i) std::swap(perm[size_t(i)], perm[size_t(rp.range(d.cols - h, i))]);
        for (int64_t j = 0; j < d.cols; ++j) wp[size_t(j)] = wv[size_t(perm[size_t(j)])];
        weak = 0;
        Rng rr = r;
        each_stream(rr, d.rows, [&](int64_t row, Rng& rs) {
          std::vector<double> v, t(size_t(d.cols));
          bool missed = false;
          for (int k = 0; k < kRedraws && !missed; ++k) {
            v = mirrored_row(rs, d.cols, in, wv);
            for (int64_t j = 0; j < d.cols; ++j) t[size_t(j)] = v[size_t(perm[size_t(j)])] * wp[size_t(j)];
            missed = replays_miss(t, 1, 1);
          }
          if (!missed) ++weak;
          for (int64_t j = 0; j < d.cols; ++j) x.set_exact(size_t(row * d.cols + j), v[size_t(perm[size_t(j)])]);
        });
        if (weak == 0) break;
      }
      for (int64_t j = 0; j < d.cols; ++j) w.set_exact(size_t(j), wp[size_t(j)]);
      return;
    }
    Rng rx = rng_for(c, "x"), rw = rng_for(c, "w");
    // w's spread is below 2^3: the range fill's x leaves room for it.
    if (!fill_dist(x, c, "x", d, true, sum_range(out, d.cols, 3))) fill_spread(x, rx, -4, 3);
    const std::string& dist = c.fill().dist;
    if (dist == fills::kOffset || dist == fills::kRange || !fill_dist(w, c, "w", d, false)) fill_spread(w, rw, -3, 2);
    plant_if(x, c, ops, "x", d, true);
    plant_if(w, c, ops, "w", d, false);
  };
  // want: sum of x w in float64 (each product exact in double for our types); magnitude: sum |x w|.
  e.rig.reference = [](const Case& c) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    auto w = read(c, "w");
    std::vector<double> want(size_t(d.rows)), mag(size_t(d.rows));
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        double s = 0, m = 0;
        for (int64_t j = 0; j < d.cols; ++j) {
          double t = x[size_t(r * d.cols + j)] * w[size_t(j)];
          s += t;
          m += std::fabs(t);
        }
        want[size_t(r)] = s;
        mag[size_t(r)] = m;
      }
    });
    return results(row_expected("y", want, mag));
  };
  e.rig.simulate = [](const Case& c, SumFormat f, SumOrder o) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    auto w = read(c, "w");
    std::vector<double> y(size_t(d.rows));
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
      std::vector<double> t(size_t(d.cols));
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t j = 0; j < d.cols; ++j) t[size_t(j)] = x[size_t(r * d.cols + j)] * w[size_t(j)];
        y[size_t(r)] = replay_sum(t.data(), t.size(), f, o);
      }
    });
    return std::vector<std::vector<double>>{y};
  };
  return e;
}

// Whole rows: a row of -Inf has the maximum -Inf (not -FLT_MAX), of +Inf +Inf, of NaN NaN, and a
// row of -Inf but one finite value that value. Fills: ties (equal maxima, -0 beside +0), rows of
// one sign (a maximum that starts at 0), signed zeros, magnitudes up to the type's top binade,
// subnormals.
Entry max(DType in, DType out) {
  static const std::vector<Plant> ops = plants::standard({{"x", plants::kAllRows}});
  Entry e;
  plants::set(e.rig, ops);
  e.rig.fills = {fills::kTies, fills::kSign, fills::kZeros, fills::kRange, fills::kSubnormal};
  e.rig.prepare = [in, out](Case& c) {
    Dims d = dims_of(c);
    Buf x(c, "x", in, size_t(d.rows * d.cols), Role::in);
    Buf(c, "y", out, size_t(d.rows), Role::out);
    fill_x(c, x, d, in, ops, false, {-1000, fills::max_exponent(out) - 1});
  };
  // want: the row's maximum, NaN when the row holds one (IEEE max would drop it); no sums.
  e.rig.reference = [](const Case& c) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    std::vector<double> want(size_t(d.rows)), mag(size_t(d.rows), 0.0);
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < d.cols; ++j) {
          double v = x[size_t(r * d.cols + j)];
          if (std::isnan(v)) {
            m = v;
            break;
          }
          m = std::max(m, v);
        }
        want[size_t(r)] = m;
      }
    });
    return results(row_expected("y", want, mag));
  };
  return e;
}

}  // namespace kc::rows
