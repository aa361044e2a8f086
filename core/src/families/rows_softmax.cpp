// rows::softmax: y = exp(x - max) / sum exp(x - max), a row at a time.
#include <cmath>
#include <limits>

#include "kc/parallel.hpp"
#include "rows_common.hpp"

namespace kc::rows {
using namespace detail;

namespace {
// The row's maximum, NaN when the row holds one.
double row_max(const double* x, int64_t n) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    if (std::isnan(x[j])) return x[j];
    m = std::max(m, x[j]);
  }
  return m;
}
}  // namespace

Entry softmax(DType in, DType out) {
  static const std::vector<std::string> ops = {"x"};
  Entry e;
  e.rig.plants = plant_names(ops);
  e.rig.prepare = [in, out](Case& c) {
    Dims d = dims_of(c);
    Buf x(c, "x", in, size_t(d.rows * d.cols), Role::in);
    Buf(c, "y", out, size_t(d.rows * d.cols), Role::out);
    Rng r = rng_for(c, "x");
    if (c.fill().kind == FillKind::sums) {
      // Gate 4: integers in [-12, 0], a 0 in every row. exp's terms are not integers, so the sums
      // cannot be exact in fp32; the replays show how far a half-precision sum would move y.
      for (int64_t row = 0; row < d.rows; ++row) {
        for (int64_t j = 0; j < d.cols; ++j) x.set_exact(size_t(row * d.cols + j), double(-r.range(0, 12)));
        x.set_exact(size_t(row * d.cols + r.range(0, d.cols - 1)), 0);
      }
      return;
    }
    fill_spread(x, r, -3, 2);  // |x| < 8: exp's range is no concern, reordered sums still differ
    plant_if(x, c, ops, "x", d, true);
  };
  // want in float64. Magnitude: the terms exp(x - max) are positive, so the sum's error is at most
  // gamma(depth) S, which reaches y = e / S as gamma * y: m = y. (exp's own error is the spec's ulps;
  // it reaches y in e and again through S, so a kernel declares it twice.)
  e.rig.reference = [](const Case& c) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    Expected y;
    y.name = "y";
    y.want.resize(x.size());
    y.mag.resize(x.size());
    y.exact_sums = false;
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {  // rows are independent: every core
    for (int64_t r = r0; r < r1; ++r) {
      const double* xr = x.data() + r * d.cols;
      double m = row_max(xr, d.cols), s = 0;
      for (int64_t j = 0; j < d.cols; ++j) s += std::exp(xr[j] - m);
      for (int64_t j = 0; j < d.cols; ++j) {
        double v = std::exp(xr[j] - m) / s;
        y.want[size_t(r * d.cols + j)] = v;
        y.mag[size_t(r * d.cols + j)] = std::fabs(v);
      }
    }
    }, std::max<int64_t>(1, 4096 / d.cols));
    return results(y);
  };
  e.rig.simulate = [](const Case& c, SumFormat f, SumOrder o) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    std::vector<double> y(x.size());
    kc::parallel_for(d.rows, [&](int64_t r0, int64_t r1) {
    std::vector<double> t(size_t(d.cols));
    for (int64_t r = r0; r < r1; ++r) {
      const double* xr = x.data() + r * d.cols;
      double m = row_max(xr, d.cols);
      for (int64_t j = 0; j < d.cols; ++j) t[size_t(j)] = std::exp(xr[j] - m);
      double s = replay_sum(t.data(), t.size(), f, o);
      for (int64_t j = 0; j < d.cols; ++j) y[size_t(r * d.cols + j)] = t[size_t(j)] / s;
    }
    }, std::max<int64_t>(1, 4096 / d.cols));
    return std::vector<std::vector<double>>{y};
  };
  return e;
}

}  // namespace kc::rows
