// The families' building blocks (kc/families/blocks.hpp).
#include "kc/families/blocks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "kc/parallel.hpp"
#include "kc/spec.hpp"

namespace kc::blocks {

Rng rng_for(const Case& c, const std::string& buffer) {
  uint64_t h = c.seed() ^ 0x9ae16a3b2f90404full;
  for (char ch : buffer) h = (h ^ uint8_t(ch)) * 0x100000001b3ull;
  Rng r(h);
  r.next();
  return r;
}

void each_stream(Rng& r, int64_t n, const std::function<void(int64_t, Rng&)>& fn) {
  const uint64_t base = r.next();
  kc::parallel_for(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      Rng ri(base ^ uint64_t(i + 1) * 0xd1b54a32d192ed03ull);
      ri.next();
      fn(i, ri);
    }
  });
}

Dims dims_of(const Case& c) {
  const Shape& s = c.shape();
  Dims d{s["rows"], s["cols"]};
  if (d.rows < 1 || d.cols < 1)
    throw Error(fmt::format("shape {} needs rows >= 1 and cols >= 1", s.str()));
  return d;
}

namespace {
template <class T> void* decl(Case& c, const std::string& name, size_t n, Role role) {
  switch (role) {
    case Role::in: return c.in<T>(name, n).data();
    case Role::out: return c.out<T>(name, n).data();
  }
  return nullptr;
}
}  // namespace

Buf::Buf(Case& c, const std::string& name, DType t, size_t count, Role role) : type_(t), count_(count) {
  switch (t) {
    case DType::f64: data_ = decl<double>(c, name, count, role); break;
    case DType::f32: data_ = decl<float>(c, name, count, role); break;
    case DType::f16: data_ = decl<f16>(c, name, count, role); break;
    case DType::bf16: data_ = decl<bf16>(c, name, count, role); break;
    case DType::i32: data_ = decl<int32_t>(c, name, count, role); break;
    case DType::i64: data_ = decl<int64_t>(c, name, count, role); break;
    default: throw Error(fmt::format("buffer '{}' cannot hold {}", name, dtype_name(t)));
  }
}

void Buf::set_exact(size_t i, double v) {
  set(i, v);
  double back = get(i);
  if (!(back == v || (std::isnan(v) && std::isnan(back))))
    throw Error(fmt::format("rows family: {} cannot hold {} exactly (it became {})", dtype_name(type_), v, back));
}

std::vector<double> read(const Case& c, std::string_view name) {
  const HostBuffer& b = c.buffer(name);
  std::vector<double> v(b.decl.count);
  kc::parallel_for(int64_t(v.size()), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) v[size_t(i)] = load_as_double(b.bytes.data(), b.decl.type, size_t(i));
  }, 1 << 16);
  return v;
}

double spread(Rng& r, int emin, int emax, bool sign) {
  double m = 1 + r.uniform();
  int e = static_cast<int>(r.range(emin, emax));
  double v = std::ldexp(m, e);
  return sign && r.coin() ? -v : v;
}

namespace {
// +-(1 + f) 2^e built from one draw as the type's bits (exact in it, no rounding): the fills of gate
// 1's many cases cost a draw an element. fbits: the type's fraction bits; bias: its exponent bias.
template <class Bits> Bits spread_bits(uint64_t z, int emin, int emax, bool sign, int fbits, int bias) {
  const uint64_t e = uint64_t(emin + bias) + ((z >> 32) * uint64_t(emax - emin + 1) >> 32);
  const uint64_t f = z & ((uint64_t(1) << fbits) - 1);
  const uint64_t s = sign ? (z >> 31) & 1 : 0;
  return Bits(s << (8 * sizeof(Bits) - 1) | e << fbits | f);
}
}  // namespace

void fill_spread(Buf& b, Rng& r, int emin, int emax, bool sign) {
  constexpr size_t kBlock = size_t(1) << 14;  // elements a stream
  each_stream(r, int64_t((b.size() + kBlock - 1) / kBlock), [&](int64_t blk, Rng& rb) {
    const size_t i0 = size_t(blk) * kBlock, e = std::min(b.size(), i0 + kBlock);
    switch (b.type()) {
      case DType::f32:
        for (size_t i = i0; i < e; ++i) static_cast<uint32_t*>(b.data())[i] = spread_bits<uint32_t>(rb.next(), emin, emax, sign, 23, 127);
        break;
      case DType::bf16:
        for (size_t i = i0; i < e; ++i) static_cast<uint16_t*>(b.data())[i] = spread_bits<uint16_t>(rb.next(), emin, emax, sign, 7, 127);
        break;
      case DType::f16:
        for (size_t i = i0; i < e; ++i) static_cast<uint16_t*>(b.data())[i] = spread_bits<uint16_t>(rb.next(), emin, emax, sign, 10, 15);
        break;
      default:
        for (size_t i = i0; i < e; ++i) b.set(i, spread(rb, emin, emax, sign));
    }
  });
}

int64_t plant_row(const Dims& d) { return d.rows / 2; }

int64_t plant_col(const Plant& p, const Fill& f, const Dims& d) { return plants::column(p, f, d.cols); }

void plant_if(Buf& b, const Case& c, const std::vector<Plant>& ps, const std::string& name, const Dims& d,
              bool per_row) {
  if (c.fill().kind != FillKind::nonfinite || c.fill().plant < 0) return;  // -1: gate 1's fill, no plant
  const Plant& p = plants::at(ps, c.fill().plant, c.spec ? c.spec->name.c_str() : "plant_if");
  if (p.operand != name) return;
  size_t base = per_row ? size_t(plant_row(d) * d.cols) : 0;
  plants::write(b.data(), b.type(), base, d.cols, p.kind, plant_col(p, c.fill(), d));
}

bool fill_dist(Buf& b, const Case& c, const std::string& name, const Dims& d, bool per_row, const fills::Range& r) {
  const Fill& f = c.fill();
  if (f.kind != FillKind::random || f.dist.empty()) return false;
  const uint64_t seed = fills::seed_for(c.seed(), name, f.dist);
  const int64_t rows = per_row ? d.rows : 1;
  std::vector<double> v(size_t(d.cols));
  for (int64_t row = 0; row < rows; ++row) {
    fills::row(f.dist, b.type(), seed, row, v, r);
    for (int64_t j = 0; j < d.cols; ++j) b.set_exact(size_t(row * d.cols + j), v[size_t(j)]);
  }
  return true;
}

namespace {
// A random integer of at most `bits` significant bits (so every type we fill can hold it: bf16
// holds 8, fp16 11, fp32 24), in [lo, hi].
double integer_in(Rng& r, double lo, double hi, int bits) {
  double v = std::floor(lo + r.uniform() * (hi - lo));
  int e;
  std::frexp(v, &e);
  if (e > bits) v = std::ldexp(std::floor(std::ldexp(v, bits - e)), e - bits);
  return std::max(v, 1.0);
}

int bits_of(DType t) {
  switch (t) {
    case DType::bf16: return 8;
    case DType::f16: return 11;
    default: return 24;
  }
}

double max_of(DType t) { return t == DType::f16 ? 65504 : 0x1p24; }
}  // namespace

std::vector<double> mirrored_row(Rng& r, int64_t cols, DType t, const std::vector<double>& w) {
  auto wt = [&](int64_t j) { return w.empty() ? 1.0 : w[size_t(j)]; };
  std::vector<double> x(size_t(cols), 0.0);
  if (cols < 2) {  // nothing to mirror: the fill cannot tell, and gate 4 will say so
    x[0] = 1;
    return x;
  }
  int64_t h = cols / 2;
  int bits = bits_of(t);
  // Keep the positive half's sum near 2^22 (so the whole row's |terms| stay below 2^24): each term
  // below 2^22 / h, and at most 2^15.
  double top = std::min(0x1p15, std::max(16.0, std::floor(0x1p22 / double(h))));
  top = std::min(top, max_of(t));
  // Column 0 and its mirror leave the row's sum at exactly 1 (a small result: any lost bit shows).
  double a = static_cast<double>(r.range(2, 16));
  x[0] = a;
  x[cols - 1] = -(a - 1);
  for (int64_t j = 1; j < h; ++j) {
    double v = integer_in(r, std::max(1.0, top / 4 / wt(j)), std::max(2.0, top / wt(j)), bits);
    x[j] = v;
    x[cols - 1 - j] = -v;
  }
  // One term at least 2^16 (fp16's largest finite value is 65504): every fp16 replay overflows.
  if (h >= 2 && max_of(t) >= 0x1p17 / wt(1)) {
    double big = integer_in(r, 0x1p16 / wt(1), 0x1p17 / wt(1), bits);
    x[1] = big;
    x[cols - 2] = -big;
  }
  return x;
}

std::vector<double> squares_row(Rng& r, int64_t cols, DType t, int64_t cap) {
  int bits = bits_of(t);
  // Squares average about 2^22 / cols: the total lands between 2^20 and 2^23.
  double mean_sq = std::max(1.0, 0x1p22 / double(cols));
  double hi = std::min(std::sqrt(3 * mean_sq), double(cap));
  std::vector<double> x(static_cast<size_t>(cols));
  for (auto& v : x) {
    v = integer_in(r, std::max(1.0, hi / 4), std::max(2.0, hi), bits);
    if (r.coin()) v = -v;
  }
  // One value whose square is at least 2^16: fp16 overflows on that term in every order.
  double big = (t == DType::bf16 || cap < 300) ? 256 : static_cast<double>(r.range(256, 300));
  x[size_t(r.range(0, cols - 1))] = r.coin() ? big : -big;
  return x;
}

bool replays_miss(const std::vector<double>& terms, double exact, double by) {
  for (const auto& rp : kReplays) {
    double v = replay_sum(terms.data(), terms.size(), rp.f, rp.o);
    if (std::isfinite(v) && std::fabs(v - exact) < by) return false;
  }
  return true;
}

double declared_ulps(const Case& c, const std::string& function, double fallback) {
  if (c.spec && c.spec->sums)
    for (const auto& u : c.spec->sums->ulps)
      if (u.function == function) return u.ulps;
  return fallback;
}

Interval fp32_step(const Interval& v, double ulps) {
  // One fp32 ulp at x is at most 2^-23 |x| (normal range) and 2^-149 below it.
  return v.widen(ulps * 0x1p-23, ulps * 0x1p-149);
}

Interval iv_sqrt(const Interval& a) {
  if (a.nan || a.lo < 0) return a.nan || a.hi < 0 ? Interval::point(std::nan("")) : iv_sqrt(Interval::of(0, a.hi));
  double l = std::sqrt(a.lo), h = std::sqrt(a.hi);
  // fma gives the exact sign of l^2 - lo: step only when the rounded root lies on the wrong side.
  if (std::fma(l, l, -a.lo) > 0) l = std::nextafter(l, 0.0);
  if (std::isfinite(h) && std::fma(h, h, -a.hi) < 0) h = std::nextafter(h, std::numeric_limits<double>::infinity());
  return Interval::of(std::max(l, 0.0), h);
}

}  // namespace kc::blocks
