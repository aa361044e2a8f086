// rows::argmax and rows::topk: selections with a stated NaN rule, checked exactly.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "rows_common.hpp"

namespace kc::rows {
using namespace detail;

namespace {

// Random rows with ties at the top: the row's maximum is copied to another column (before or after
// it), so "ties go to the lower id" is exercised at every gate.
void fill_with_ties(Case& c, Buf& x, const Dims& d, const std::vector<Plant>& ops) {
  Rng r = rng_for(c, "x");
  if (!fill_dist(x, c, "x", d, true, {-1000, 1000})) fill_spread(x, r, -4, 3);
  if (d.cols >= 2)
    for (int64_t row = 0; row < d.rows; ++row) {
      size_t b = size_t(row * d.cols);
      int64_t at = 0;
      for (int64_t j = 1; j < d.cols; ++j)
        if (x.get(b + j) > x.get(b + at)) at = j;
      int64_t other = r.range(0, d.cols - 2);
      if (other >= at) ++other;
      x.set_exact(b + size_t(other), x.get(b + size_t(at)));
    }
  plant_if(x, c, ops, "x", d, true);
}

// argmax's rule: -1 for a row holding a NaN, else the lowest column holding the row's maximum.
std::vector<int32_t> argmax_want(const std::vector<double>& x, const Dims& d) {
  std::vector<int32_t> id(size_t(d.rows));
  for (int64_t r = 0; r < d.rows; ++r) {
    const double* xr = x.data() + r * d.cols;
    int32_t best = 0;
    for (int64_t j = 0; j < d.cols; ++j) {
      if (std::isnan(xr[j])) {
        best = -1;
        break;
      }
      if (xr[j] > xr[best]) best = int32_t(j);
    }
    id[size_t(r)] = best;
  }
  return id;
}

// topk's order: NaN above +inf, then by value descending, ties by lower id.
bool ranks_above(double a, int64_t ia, double b, int64_t ib) {
  bool na = std::isnan(a), nb = std::isnan(b);
  if (na != nb) return na;
  if (!na && a != b) return a > b;
  return ia < ib;
}

std::vector<int32_t> topk_want(const std::vector<double>& x, const Dims& d, int k) {
  std::vector<int32_t> ids(size_t(d.rows * k));
  std::vector<int32_t> idx(size_t(d.cols));
  for (int64_t r = 0; r < d.rows; ++r) {
    const double* xr = x.data() + r * d.cols;
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                      [&](int32_t a, int32_t b) { return ranks_above(xr[a], a, xr[b], b); });
    std::copy(idx.begin(), idx.begin() + k, ids.begin() + r * k);
  }
  return ids;
}

// Whole rows: a row of -Inf or of +Inf selects the lowest ids, a row of NaN gives -1 (argmax) or
// NaNs first, a row of -Inf but one finite value selects it. Fills: ties (equal maxima, -0 beside +0:
// -0 == +0, so the lower id wins), rows of one sign, signed zeros, subnormals, the whole range.
const std::vector<std::string> kSelectFills = {fills::kTies, fills::kSign, fills::kZeros, fills::kSubnormal, fills::kRange};

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

Entry argmax(DType in) {
  static const std::vector<Plant> ops = plants::standard({{"x", plants::kAllRows}});
  Entry e;
  plants::set(e.rig, ops);
  e.rig.fills = kSelectFills;
  e.rig.prepare = [in](Case& c) {
    Dims d = dims_of(c);
    Buf x(c, "x", in, size_t(d.rows * d.cols), Role::in);
    Buf(c, "id", DType::i32, size_t(d.rows), Role::out);
    fill_with_ties(c, x, d, ops);
  };
  e.rig.reference = [](const Case& c) {
    Dims d = dims_of(c);
    auto id = argmax_want(read(c, "x"), d);
    Expected ex;
    ex.name = "id";
    ex.want.assign(id.begin(), id.end());
    ex.mag.assign(id.size(), 0.0);
    return results(ex);
  };
  return std::move(e).rule(
      "a row holding a NaN gives id -1; otherwise the lowest id holding the row's maximum (+inf included)",
      [](const Case& c) -> std::string {
        Dims d = dims_of(c);
        auto x = read(c, "x");
        auto want = argmax_want(x, d);
        auto got = c.get<int32_t>("id");
        for (int64_t r = 0; r < d.rows; ++r)
          if (got[size_t(r)] != want[size_t(r)])
            return fmt::format("row {}: want id {}, got {}", r, want[size_t(r)], got[size_t(r)]);
        return "";
      });
}

Entry topk(DType in, int k) {
  static const std::vector<Plant> ops = plants::standard({{"x", plants::kAllRows}});
  if (k < 1) throw Error(fmt::format("rows::topk: k = {} must be at least 1", k));
  Entry e;
  plants::set(e.rig, ops);
  e.rig.fills = kSelectFills;
  e.rig.prepare = [in, k](Case& c) {
    Dims d = dims_of(c);
    if (d.cols < k) throw Error(fmt::format("rows::topk: k = {} is more than cols = {} at {}", k, d.cols, c.shape().str()));
    Buf x(c, "x", in, size_t(d.rows * d.cols), Role::in);
    Buf(c, "ids", DType::i32, size_t(d.rows * k), Role::out);
    Buf(c, "vals", in, size_t(d.rows * k), Role::out);
    fill_with_ties(c, x, d, ops);
  };
  // want: ids by the rule, vals the inputs at those ids (copies: exact).
  e.rig.reference = [k](const Case& c) {
    Dims d = dims_of(c);
    auto x = read(c, "x");
    auto ids = topk_want(x, d, k);
    Expected ei, ev;
    ei.name = "ids";
    ev.name = "vals";
    ei.want.assign(ids.begin(), ids.end());
    ei.mag.assign(ids.size(), 0.0);
    ev.mag.assign(ids.size(), 0.0);
    for (size_t i = 0; i < ids.size(); ++i) ev.want.push_back(x[size_t(int64_t(i) / k * d.cols) + size_t(ids[i])]);
    return results(ei, ev);
  };
  return std::move(e).rule(
      fmt::format("the {} largest of each row, descending; a NaN ranks above +inf, ties go to the lower id", k),
      [k](const Case& c) -> std::string {
        Dims d = dims_of(c);
        auto x = read(c, "x");
        auto want = topk_want(x, d, k);
        auto got = c.get<int32_t>("ids");
        auto vals = read(c, "vals");
        for (size_t i = 0; i < want.size(); ++i) {
          int64_t r = int64_t(i) / k;
          double wv = x[size_t(r * d.cols) + size_t(want[i])];
          if (got[i] != want[i] || !same_value(vals[i], wv))
            return fmt::format("row {} rank {}: want id {} ({}), got id {} ({})", r, int64_t(i) % k, want[i], wv, got[i],
                               vals[i]);
        }
        return "";
      });
}

}  // namespace kc::rows
