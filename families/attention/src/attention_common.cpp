// The attention family's geometry, addressing and one row's float64 formula (attention_common.hpp).
#include "attention_common.hpp"
#include "kc/parallel.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace kc::attention {

float scale(const Shape& s) { return to_f32(1 / std::sqrt(double(s["d"])), Round::nearest); }

Geometry geometry(Cache cache, const Shape& s, int64_t page, int64_t chunk) {
  Geometry g;
  g.cache = cache;
  g.seqs = s["seqs"], g.rows = s["rows"], g.kv_heads = s["kv_heads"], g.group = s["group"];
  g.d = s["d"], g.keys = s["keys"];
  g.q_heads = g.kv_heads * g.group;
  g.window = s.has("window") ? s["window"] : 0;
  for (auto [name, v] : {std::pair{"seqs", g.seqs}, {"rows", g.rows}, {"kv_heads", g.kv_heads},
                         {"group", g.group}, {"d", g.d}, {"keys", g.keys}})
    if (v < 1) throw Error(fmt::format("attention family: shape {} needs {} >= 1", s.str(), name));
  if (cache == Cache::ring && g.window < 1)
    throw Error(fmt::format("attention family: a ring needs a window (shape {})", s.str()));
  // A ring's window + kPad slots hold every row's window only up to kPad + 1 rows; linear and paged
  // caches hold every key, so a windowed prefill may have any number of rows.
  if (cache == Cache::ring && g.rows > detail::kPad + 1)
    throw Error(fmt::format("attention family: a ring's rows are at most {} (shape {})", detail::kPad + 1, s.str()));
  g.scale = scale(s);
  switch (cache) {
    case Cache::linear: g.slots = g.keys + detail::kPad; break;
    case Cache::ring: g.slots = g.window + detail::kPad; break;
    case Cache::paged: {
      if (page < 1) throw Error("attention family: a page holds at least one key");
      g.slots = page;
      g.max_pages = (g.keys + page - 1) / page;
      g.pages = detail::kSpare;
      for (int64_t i = 0; i < g.seqs; ++i) g.pages += detail::page_count(g, detail::seq_len(g, i));
      break;
    }
  }
  if (chunk > 0) g.chunk = chunk, g.chunks = (g.keys + chunk - 1) / chunk;
  return g;
}

namespace detail {

int64_t seq_len(const Geometry& g, int64_t s) {
  if (s == 0) return g.keys;
  if (g.seqs >= 3 && s == g.seqs - 1) return 0;
  return std::max<int64_t>(1, g.keys - g.keys * s / g.seqs - 3 * s);
}

int64_t page_count(const Geometry& g, int64_t len) { return (len + g.slots - 1) / g.slots; }

Span visible(const Geometry& g, int64_t len, int64_t pos) {
  if (pos < 0 || len <= 0) return {};
  Span sp;
  sp.end = std::min(pos + 1, len);
  sp.lo = g.window > 0 ? std::max<int64_t>(0, pos - g.window + 1) : 0;
  return sp;
}

int64_t kv_offset(const Geometry& g, const std::vector<int32_t>& table, int64_t s, int64_t j, int64_t h) {
  if (g.cache == Cache::paged) {
    const int64_t page = table[size_t(s * g.max_pages + j / g.slots)];
    return ((page * g.slots + j % g.slots) * g.kv_heads + h) * g.d;
  }
  const int64_t slot = g.cache == Cache::ring ? j % g.slots : j;
  return ((s * g.slots + slot) * g.kv_heads + h) * g.d;
}

int64_t Inputs::kv_at(int64_t s, int64_t j, int64_t h) const { return kv_offset(g, table, s, j, h); }

Inputs read_inputs(const Case& c, const Geometry& g) {
  Inputs in;
  in.g = g;
  in.q = read(c, "q"), in.k = read(c, "k"), in.v = read(c, "v");
  auto ints = [&](const char* name) {
    auto sp = c.get<int32_t>(name);
    return std::vector<int32_t>(sp.begin(), sp.end());
  };
  in.lens = ints("lens"), in.pos = ints("pos");
  if (g.cache == Cache::paged) in.table = ints("page_table");
  return in;
}

RowKeys row_keys(const Inputs& in, int64_t s, int64_t r, int64_t qh, Span span) {
  RowKeys k;
  const int64_t d = in.g.d, kh = qh / in.g.group, n = std::max<int64_t>(0, span.end - span.lo);
  const double* q = in.qrow(s, r, qh);
  k.s.resize(size_t(n)), k.a.resize(size_t(n)), k.v.resize(size_t(n));
  // Each key's score alone, so a long row's keys spread over the cores.
  kc::parallel_for(n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t off = in.kv_at(s, span.lo + i, kh);
      const double* kr = &in.k[size_t(off)];
      double dot = 0, a = 0;
      for (int64_t t = 0; t < d; ++t) dot += q[t] * kr[t], a += std::fabs(q[t] * kr[t]);
      k.s[size_t(i)] = double(in.g.scale) * dot;
      k.a[size_t(i)] = a;
      k.v[size_t(i)] = &in.v[size_t(off)];
    }
  }, wide_grain(d));
  return k;
}

namespace {
// The formula on scores s (and values v) with sums by `sum` (float64, or a replay).
template <class Sum> RowValue formula(const std::vector<double>& s, const std::vector<const double*>& v, int64_t d,
                                      bool unnormalized, LseBase base, Sum sum) {
  RowValue out;
  const size_t n = s.size();
  double m = -std::numeric_limits<double>::infinity();
  bool nan = false;
  for (double x : s) {
    if (std::isnan(x)) nan = true;
    else m = std::max(m, x);
  }
  if (nan) m = std::numeric_limits<double>::quiet_NaN();
  out.empty = m == -std::numeric_limits<double>::infinity();
  const double c = out.empty ? 0 : m;  // nothing to overflow at a max of -Inf
  std::vector<double> p(n), t(n * size_t(d));
  for (size_t j = 0; j < n; ++j) p[j] = std::exp(s[j] - c);
  out.m = m;
  out.l = sum(p);
  out.o.resize(size_t(d));
  // Every component's terms laid out contiguously first: a pass over the keys a component would
  // stride through every value row (128k keys of 128 doubles: 128 passes over 128 MiB).
  for (size_t j = 0; j < n; ++j)
    for (int64_t x = 0; x < d; ++x) t[size_t(x) * n + j] = p[j] * v[j][x];
  // Each component's sum alone (its terms in key order), so a long row's components spread over the cores.
  kc::parallel_for(d, [&](int64_t lo, int64_t hi) {
    std::vector<double> tx;
    for (int64_t x = lo; x < hi; ++x) {
      tx.assign(t.begin() + ptrdiff_t(size_t(x) * n), t.begin() + ptrdiff_t(size_t(x + 1) * n));
      out.o[size_t(x)] = unnormalized ? sum(tx) : sum(tx) / out.l;
    }
  }, wide_grain(int64_t(n)));
  out.lse = c + std::log(out.l);
  if (base == LseBase::two) out.lse *= M_LOG2E;
  return out;
}
}  // namespace

RowValue row_value(const RowKeys& k, int64_t d, bool unnormalized, LseBase base) {
  return formula(k.s, k.v, d, unnormalized, base, [](const std::vector<double>& x) {
    double s = 0;
    for (double y : x) s += y;
    return s;
  });
}

RowValue row_replay(const Inputs& in, int64_t s, int64_t r, int64_t qh, Span span, SumFormat f, SumOrder o,
                    bool unnormalized, LseBase base) {
  const int64_t d = in.g.d, kh = qh / in.g.group;
  const double* q = in.qrow(s, r, qh);
  const int64_t n = std::max<int64_t>(0, span.end - span.lo);
  std::vector<double> sc(static_cast<size_t>(n));
  std::vector<const double*> v(static_cast<size_t>(n));
  kc::parallel_for(n, [&](int64_t lo, int64_t hi) {
    std::vector<double> terms(static_cast<size_t>(d));
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t off = in.kv_at(s, span.lo + i, kh);
      for (int64_t t = 0; t < d; ++t) terms[size_t(t)] = q[t] * in.k[size_t(off + t)];
      sc[size_t(i)] = double(in.g.scale) * replay_sum(terms.data(), terms.size(), f, o);
      v[size_t(i)] = &in.v[size_t(off)];
    }
  }, wide_grain(d));
  return formula(sc, v, d, unnormalized, base,
                 [&](const std::vector<double>& x) { return x.empty() ? 0.0 : replay_sum(x.data(), x.size(), f, o); });
}

bool in_domain(const RowKeys& k, int64_t d) {
  bool finite = false;
  for (size_t j = 0; j < k.s.size(); ++j) {
    if (k.s[j] == -std::numeric_limits<double>::infinity()) continue;
    if (!std::isfinite(k.s[j])) return false;
    finite = true;
    for (int64_t t = 0; t < d; ++t)
      if (!std::isfinite(k.v[j][t])) return false;
  }
  return finite;
}

void size_up(Expected& e, const char* name, size_t n, bool ranges, bool sums) {
  e.name = name;
  e.want.resize(n);
  if (ranges) e.lo.resize(n), e.hi.resize(n);
  if (sums) e.mag.resize(n), e.scale.resize(n), e.exact_sums = true;
}

void exact_or_any(Expected& e, size_t i, bool exact) {
  const double w = e.want[i];
  const bool pin = exact || !std::isfinite(w);
  e.lo[i] = pin ? w : -DBL_MAX, e.hi[i] = pin ? w : DBL_MAX;
}

void set_iv(Expected& e, size_t i, const Interval& v) { e.lo[i] = v.lo, e.hi[i] = v.hi; }

const char* const kRuleText = "an empty or fully masked row writes 0 and an LSE of -Inf; every other output keeps float64's class";

std::string check_rule(const Case& c, const std::vector<Expected>& exp, int64_t d) {
  const Expected &o = exp[0], &lse = exp[1];
  for (size_t i = 0; i < lse.want.size(); ++i) {
    const double gl = c.value(lse.name, i);
    if (fclass(gl) != fclass(lse.want[i]))
      return fmt::format("{}[{}] want {} got {:.9g}", lse.name, i, fclass_name(fclass(lse.want[i])), gl);
    const bool rule_row = lse.want[i] == -std::numeric_limits<double>::infinity();
    for (int64_t t = 0; t < d; ++t) {
      const size_t j = i * size_t(d) + size_t(t);
      const double g = c.value(o.name, j);
      if (rule_row ? g != 0 : fclass(g) != fclass(o.want[j]))
        return rule_row ? fmt::format("{}[{}] of an empty or fully masked row: want 0 got {:.9g}", o.name, j, g)
                        : fmt::format("{}[{}] want {} got {:.9g}", o.name, j, fclass_name(fclass(o.want[j])), g);
    }
  }
  return "";
}

}  // namespace detail
}  // namespace kc::attention
