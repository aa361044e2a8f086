// rows::sum, rows::dot, rows::max: one output a row.
#include <algorithm>
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
void fill_x(Case& c, Buf& x, const Dims& d, DType in, const std::vector<std::string>& operands, bool sums_fill) {
  Rng r = rng_for(c, "x");
  if (c.fill().kind == FillKind::sums && sums_fill) {
    each_stream(r, d.rows, [&](int64_t row, Rng& rs) {
      std::vector<double> v;
      for (int k = 0; k < kRedraws; ++k) {
        v = mirrored_row(rs, d.cols, in);
        if (replays_miss(v, 1, 1)) break;
      }
      for (int64_t j = 0; j < d.cols; ++j) x.set_exact(size_t(row * d.cols + j), v[size_t(j)]);
    });
    return;
  }
  fill_spread(x, r, -4, 3);
  plant_if(x, c, operands, "x", d, true);
}

Expected row_expected(const std::string& name, std::vector<double> want, std::vector<double> mag) {
  Expected e;
  e.name = name;
  e.want = std::move(want);
  e.mag = std::move(mag);
  return e;
}

}  // namespace

Entry sum(DType in, DType out) {
  static const std::vector<std::string> ops = {"x"};
  Entry e;
  e.rig.plants = plant_names(ops);
  e.rig.prepare = [in, out](Case& c) {
    Dims d = dims_of(c);
    Buf x(c, "x", in, size_t(d.rows * d.cols), Role::in);
    Buf(c, "y", out, size_t(d.rows), Role::out);
    fill_x(c, x, d, in, ops, true);
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

Entry dot(DType in, DType out) {
  static const std::vector<std::string> ops = {"x", "w"};
  Entry e;
  e.rig.plants = plant_names(ops);
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
      for (int64_t j = 0; j < d.cols; ++j) w.set_exact(size_t(j), wv[size_t(j)]);
      Rng r = rng_for(c, "x");
      each_stream(r, d.rows, [&](int64_t row, Rng& rs) {
        std::vector<double> v, t(size_t(d.cols));
        for (int k = 0; k < kRedraws; ++k) {
          v = mirrored_row(rs, d.cols, in, wv);
          for (int64_t j = 0; j < d.cols; ++j) t[size_t(j)] = v[size_t(j)] * wv[size_t(j)];
          if (replays_miss(t, 1, 1)) break;
        }
        for (int64_t j = 0; j < d.cols; ++j) x.set_exact(size_t(row * d.cols + j), v[size_t(j)]);
      });
      return;
    }
    Rng rx = rng_for(c, "x"), rw = rng_for(c, "w");
    fill_spread(x, rx, -4, 3);
    fill_spread(w, rw, -3, 2);
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

Entry max(DType in, DType out) {
  static const std::vector<std::string> ops = {"x"};
  Entry e;
  e.rig.plants = plant_names(ops);
  e.rig.prepare = [in, out](Case& c) {
    Dims d = dims_of(c);
    Buf x(c, "x", in, size_t(d.rows * d.cols), Role::in);
    Buf(c, "y", out, size_t(d.rows), Role::out);
    fill_x(c, x, d, in, ops, false);
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
