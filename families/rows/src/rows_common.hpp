// What the rows family's functions share beyond the public building blocks (kc/families/blocks.hpp):
// the norms' depth, fp32 work after the sums and eps as a kernel may hold it. Internal to core.
#pragma once
#include "kc/families/blocks.hpp"
#include "kc/families/rows.hpp"

namespace kc::rows::detail {

using namespace kc::blocks;

// The norms' shared steps: the spec's depth of its sums at the case's shape (cols, a plain chain,
// where it says none); the spec's fp32 work after the sums (ops correctly rounded operations and
// each declared function's ulps, an ulp up to 2u) as a relative error, 8 ops where it says none;
// eps as a kernel may hold it (in double, or rounded to fp32 either way).
double sums_depth(const Case& c);
double after_sums_rel(const Case& c);
Interval eps_range(double eps);

}  // namespace kc::rows::detail
