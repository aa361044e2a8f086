// Gate 3's margin (kc::Margin): the worst passing output, found inside compare()'s one parallel
// pass over the outputs (they run to gigabytes: no second pass), then kept over cases. Internal to core.
#pragma once
#include <algorithm>
#include <cmath>
#include <optional>

#include "kc/numeric.hpp"
#include "kc/report.hpp"
#include "kc/rig.hpp"

namespace kc::detail {

// The passing output of a chunk (then of a buffer) nearest its bound: the first of the largest
// ratio, so the answer does not depend on how the pass was cut into chunks.
struct Near {
  double ratio = -1;  // -1: nothing measured
  size_t i = 0;
  double bound = 0;  // the bound at i (unused for an interval's output)
  // A few ulps under ratio: an output with d <= cut * scale cannot beat it, so only one that may be
  // a new worst divides (a division at every output made such a loop 2.4x slower on one core).
  double cut = 0;
  // An output at distance d from want, where the bound is scale (d <= scale: it passed).
  void see(double d, double scale, size_t at, double b) {
    if (ratio >= 0 && !(d > cut * scale)) return;
    const double r = scale > 0 ? std::min(1.0, d / scale) : 0;
    if (r > ratio) ratio = r, i = at, bound = b, cut = r * (1 - 0x1p-50);
  }
  // An output inside [lo, hi]: its distance from want over the interval's width (0 where got is
  // want, 1 only with want at one end and got at the other). An output rounded to its type is
  // always one of the interval's ends, so a distance to the nearer end, or from the middle, would
  // read 1 for a correctly rounded answer. None where got, want or an end is not finite.
  void see_interval(double got, double want, double lo, double hi, size_t at) {
    if (!std::isfinite(got) || !std::isfinite(want) || !std::isfinite(lo) || !std::isfinite(hi)) return;
    see(std::fabs(got - want), hi - lo, at, 0);
  }
  void merge(const Near& o) {
    if (o.ratio > ratio || (o.ratio >= 0 && o.ratio == ratio && o.i < i)) *this = o;
  }
};

// The Margin a Near of output e on case c stands for.
inline Margin margin_at(const Near& n, const Expected& e, const HostBuffer& hb, const Case& c) {
  Margin m;
  m.ratio = n.ratio;
  m.output = e.name;
  m.index = n.i;
  m.want = e.want[n.i];
  m.got = output_value(hb, e.codes, n.i);
  m.interval = !e.lo.empty();
  if (m.interval)
    m.lo = e.lo[n.i], m.hi = e.hi[n.i];
  else
    m.bound = n.bound;
  m.shape = c.shape().str();
  m.fill = c.fill().dist;
  return m;
}

// Keeps the worse of acc and m in acc; the earlier on a tie.
inline void keep_worst(std::optional<Margin>& acc, const std::optional<Margin>& m) {
  if (m && (!acc || m->ratio > acc->ratio)) acc = m;
}

}  // namespace kc::detail
