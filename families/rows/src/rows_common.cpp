// The rows family's own shared steps (rows_common.hpp).
#include "rows_common.hpp"

#include <algorithm>

#include "kc/spec.hpp"

namespace kc::rows::detail {

double sums_depth(const Case& c) {
  if (c.spec && c.spec->sums && c.spec->sums->depth) return c.spec->sums->depth(c.shape());
  return static_cast<double>(c.shape()["cols"]);
}

double after_sums_rel(const Case& c) {
  if (!c.spec || !c.spec->sums) return 8 * u32;
  double ulps = 0;
  for (const auto& u : c.spec->sums->ulps) ulps += u.ulps;
  return (c.spec->sums->ops + 2 * ulps) * u32 * 1.01;  // 1% for second-order terms
}

Interval eps_range(double eps) {
  return Interval::of(std::min(eps, double(to_f32(eps, Round::down))), std::max(eps, double(to_f32(eps, Round::up))));
}

}  // namespace kc::rows::detail
