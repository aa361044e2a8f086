// Numeric helpers (kc/numeric.hpp). Every narrowing conversion goes through one routine that rounds
// an exact double to a binary format given by its fraction bits and exponent range, so float->bf16,
// double->bf16, double->f32 and the rest each round once, in the direction asked.
#include "kc/numeric.hpp"

#include <bit>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace kc {
namespace {

// A binary floating-point format: `frac` stored fraction bits, exponents emin..emax (normal range).
struct Format {
  int frac;
  int emin;
  int emax;
  int exp_bits;
};
constexpr Format kBf16{7, -126, 127, 8};
constexpr Format kF16{10, -14, 15, 5};
constexpr Format kF32{23, -126, 127, 8};

double max_finite(const Format& f) { return std::ldexp(2.0 - std::ldexp(1.0, -f.frac), f.emax); }

// Round a finite, non-zero double to the nearest value of format f in direction r (overflow gives
// inf for nearest, and max finite or inf for the directed roundings as IEEE 754 says). The result is
// exact in double: all our formats are far inside double's range and precision.
double round_finite(double x, const Format& f, Round r) {
  int e;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  int ex = std::max(e - 1, f.emin);
  double q = std::ldexp(1.0, ex - f.frac);  // spacing of f at x (subnormal spacing below emin)
  double m = x / q;                         // exact: a power-of-two scaling
  double fl = std::floor(m);                // exact: |m| < 2^(frac+1) <= 2^24
  double rest = m - fl;                     // exact, in [0, 1)
  double k;
  switch (r) {
    case Round::down: k = fl; break;
    case Round::up: k = rest > 0 ? fl + 1 : fl; break;
    default:
      if (rest > 0.5) k = fl + 1;
      else if (rest < 0.5) k = fl;
      else k = std::fmod(fl, 2.0) == 0 ? fl : fl + 1;  // tie: to even
  }
  double v = k * q;
  double mx = max_finite(f);
  if (v > mx) v = (r == Round::down) ? mx : std::numeric_limits<double>::infinity();
  if (v < -mx) v = (r == Round::up) ? -mx : -std::numeric_limits<double>::infinity();
  if (v == 0) v = std::copysign(0.0, x);
  return v;
}

// Bits of a value already exact in format f (sign, biased exponent, fraction).
uint32_t encode(double v, const Format& f) {
  uint32_t sign = std::signbit(v) ? 1u : 0u;
  int total = 1 + f.exp_bits + f.frac;
  uint32_t s = sign << (total - 1);
  uint32_t exp_all = (1u << f.exp_bits) - 1;
  double a = std::fabs(v);
  if (std::isinf(a)) return s | (exp_all << f.frac);
  if (a == 0) return s;
  int e;
  std::frexp(a, &e);
  int ex = e - 1;
  if (ex < f.emin) {  // subnormal: a = m * 2^(emin - frac)
    auto m = static_cast<uint32_t>(std::ldexp(a, f.frac - f.emin));
    return s | m;
  }
  int bias = (1 << (f.exp_bits - 1)) - 1;
  auto m = static_cast<uint32_t>(std::ldexp(a, f.frac - ex)) - (1u << f.frac);
  return s | (static_cast<uint32_t>(ex + bias) << f.frac) | m;
}

// A NaN in format f: the sign and the top fraction bits of a double NaN; when those are all zero,
// the quiet bit, so the NaN never becomes an infinity. Every 16-bit NaN pattern round-trips.
uint32_t nan_bits(double x, const Format& f) {
  uint64_t b = std::bit_cast<uint64_t>(x);
  uint32_t sign = static_cast<uint32_t>(b >> 63);
  uint64_t frac52 = b & ((uint64_t{1} << 52) - 1);
  auto top = static_cast<uint32_t>(frac52 >> (52 - f.frac));
  if (top == 0) top = 1u << (f.frac - 1);
  int total = 1 + f.exp_bits + f.frac;
  uint32_t exp_all = (1u << f.exp_bits) - 1;
  return (sign << (total - 1)) | (exp_all << f.frac) | top;
}

// The usual case by integer steps on the double's bits (the harness rounds billions of values a run):
// a result in f's normal range. Anything else (subnormal, overflow, zero, inf, NaN) returns false
// and goes the general way; both give the same bits (tests/numeric compares them).
bool to_bits_normal(double x, const Format& f, Round r, uint32_t& out) {
  const uint64_t b = std::bit_cast<uint64_t>(x);
  const int e = int((b >> 52) & 0x7ff) - 1023;
  if (e < f.emin || e > f.emax) return false;
  const bool neg = b >> 63;
  const int shift = 52 - f.frac;
  const uint64_t frac52 = b & ((uint64_t{1} << 52) - 1);
  uint64_t m = frac52 >> shift;
  const uint64_t rest = frac52 & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
  bool up;  // one more unit of magnitude
  if (r == Round::nearest) up = rest > half || (rest == half && (m & 1));
  else up = rest != 0 && (r == Round::up) != neg;  // directed: away from zero toward its side
  int ex = e;
  if (up && ++m == (uint64_t{1} << f.frac)) m = 0, ++ex;
  if (ex > f.emax) return false;  // overflow: inf or max finite, by the general rule
  const int bias = (1 << (f.exp_bits - 1)) - 1, total = 1 + f.exp_bits + f.frac;
  out = (uint32_t(neg) << (total - 1)) | (uint32_t(ex + bias) << f.frac) | uint32_t(m);
  return true;
}

uint32_t to_bits_general(double x, const Format& f, Round r) {
  if (std::isnan(x)) return nan_bits(x, f);
  if (std::isinf(x) || x == 0) return encode(x, f);
  return encode(round_finite(x, f, r), f);
}

uint32_t to_bits(double x, const Format& f, Round r) {
  uint32_t bits;
  return to_bits_normal(x, f, r, bits) ? bits : to_bits_general(x, f, r);
}

// A float NaN in format f from a float's bits (never through double: widening a signalling NaN
// would set its quiet bit, and every 16-bit pattern must round-trip).
uint32_t nan_bits_f(float x, const Format& f) {
  uint32_t b = std::bit_cast<uint32_t>(x);
  uint32_t sign = b >> 31;
  uint32_t top = (b & 0x7fffffu) >> (23 - f.frac);
  if (top == 0) top = 1u << (f.frac - 1);
  int total = 1 + f.exp_bits + f.frac;
  uint32_t exp_all = (1u << f.exp_bits) - 1;
  return (sign << (total - 1)) | (exp_all << f.frac) | top;
}

float f16_value(uint16_t h) {
  uint32_t sign = h >> 15, ex = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (ex == 31)  // infinity, or a NaN with the same sign and payload in float's top fraction bits
    return std::bit_cast<float>((sign << 31) | 0x7f800000u | (m << 13));
  float v = ex == 0 ? std::ldexp(static_cast<float>(m), -24) : std::ldexp(static_cast<float>(1024 + m), int(ex) - 25);
  return sign ? -v : v;
}

}  // namespace

bf16 to_bf16(float x, Round r) {
  if (std::isnan(x)) return bf16{static_cast<uint16_t>(nan_bits_f(x, kBf16))};
  return to_bf16(static_cast<double>(x), r);  // exact widening, then one rounding
}
f16 to_f16(float x, Round r) {
  if (std::isnan(x)) return f16{static_cast<uint16_t>(nan_bits_f(x, kF16))};
  return to_f16(static_cast<double>(x), r);
}
bf16 to_bf16(double x, Round r) { return bf16{static_cast<uint16_t>(to_bits(x, kBf16, r))}; }
f16 to_f16(double x, Round r) { return f16{static_cast<uint16_t>(to_bits(x, kF16, r))}; }
float to_f32(double x, Round r) { return std::bit_cast<float>(to_bits(x, kF32, r)); }

float from_bf16(bf16 x) { return std::bit_cast<float>(uint32_t(x.bits) << 16); }
float from_f16(f16 x) { return f16_value(x.bits); }

double round_to(DType t, double x, Round r) {
  switch (t) {
    case DType::f64: return x;
    case DType::f32: return to_f32(x, r);
    case DType::f16: return from_f16(to_f16(x, r));
    case DType::bf16: return from_bf16(to_bf16(x, r));
    default:
      if (!std::isfinite(x)) return x;
      return r == Round::down ? std::floor(x) : r == Round::up ? std::ceil(x) : std::nearbyint(x);
  }
}

double half_ulp(DType t) {
  switch (t) {
    case DType::bf16: return 0x1p-8;
    case DType::f16: return 0x1p-11;
    case DType::f32: return 0x1p-24;
    case DType::f64: return 0x1p-53;
    default: return 0;  // integers are compared exactly
  }
}

double half_ulp_floor(DType t) {
  switch (t) {
    case DType::bf16: return 0x1p-134;
    case DType::f16: return 0x1p-25;
    case DType::f32: return 0x1p-150;
    case DType::f64: return std::numeric_limits<double>::denorm_min();  // 2^-1075 is not a double
    default: return 0;
  }
}

double gamma(double n, double u) {
  if (n <= 0) return 0;
  double nu = n * u;
  if (nu >= 1) return std::numeric_limits<double>::infinity();
  return nu / (1 - nu);
}

FClass fclass(double x) {
  if (std::isnan(x)) return FClass::nan;
  if (std::isinf(x)) return x > 0 ? FClass::pinf : FClass::ninf;
  return FClass::finite;
}

const char* fclass_name(FClass c) {
  switch (c) {
    case FClass::finite: return "finite";
    case FClass::nan: return "NaN";
    case FClass::pinf: return "+Inf";
    case FClass::ninf: return "-Inf";
  }
  return "?";
}

namespace {
template <class T> T load(const void* data, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const std::byte*>(data) + i * sizeof(T), sizeof(T));
  return v;
}
template <class T> void store(void* data, size_t i, T v) {
  std::memcpy(static_cast<std::byte*>(data) + i * sizeof(T), &v, sizeof(T));
}
template <class T> void store_int(void* data, DType t, size_t i, double v) {
  if (!(v == std::floor(v)) || v < static_cast<double>(std::numeric_limits<T>::min()) ||
      v > static_cast<double>(std::numeric_limits<T>::max()))
    throw Error(fmt::format("store_from_double: {} does not fit {} exactly", v, dtype_name(t)));
  store<T>(data, i, static_cast<T>(v));
}
}  // namespace

double load_as_double(const void* data, DType t, size_t i) {
  switch (t) {
    case DType::f64: return load<double>(data, i);
    case DType::f32: return load<float>(data, i);
    case DType::f16: return from_f16(f16{load<uint16_t>(data, i)});
    case DType::bf16: return from_bf16(bf16{load<uint16_t>(data, i)});
    case DType::i64: return static_cast<double>(load<int64_t>(data, i));
    case DType::i32: return load<int32_t>(data, i);
    case DType::u32: return load<uint32_t>(data, i);
    case DType::u16: return load<uint16_t>(data, i);
    case DType::u8: return load<uint8_t>(data, i);
    case DType::i8: return load<int8_t>(data, i);
  }
  throw Error("load_as_double: unknown element type");
}

void store_from_double(void* data, DType t, size_t i, double v) {
  switch (t) {
    case DType::f64: return store<double>(data, i, v);
    case DType::f32: return store<float>(data, i, to_f32(v, Round::nearest));
    case DType::f16: return store<uint16_t>(data, i, to_f16(v, Round::nearest).bits);
    case DType::bf16: return store<uint16_t>(data, i, to_bf16(v, Round::nearest).bits);
    case DType::i64: return store_int<int64_t>(data, t, i, v);
    case DType::i32: return store_int<int32_t>(data, t, i, v);
    case DType::u32: return store_int<uint32_t>(data, t, i, v);
    case DType::u16: return store_int<uint16_t>(data, t, i, v);
    case DType::u8: return store_int<uint8_t>(data, t, i, v);
    case DType::i8: return store_int<int8_t>(data, t, i, v);
  }
  throw Error("store_from_double: unknown element type");
}

// ---- Intervals -------------------------------------------------------------------------------
// Directed rounding without changing the FPU mode: an error-free transformation gives the exact
// rounding error of each operation, and the end moves one double ulp only when the rounded result
// lies on the wrong side of the exact one. Exact results stay exact (so a point on a bf16 value
// snaps to itself).
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
double dn(double x) { return std::nextafter(x, -kInf); }
double up(double x) { return std::nextafter(x, kInf); }

// a + b rounded down (dir < 0) or up (dir > 0).
double add_dir(double a, double b, int dir) {
  double s = a + b;
  if (!std::isfinite(s)) return s;
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);  // TwoSum: exact = s + err
  if (dir < 0 && err < 0) return dn(s);
  if (dir > 0 && err > 0) return up(s);
  return s;
}

double mul_dir(double a, double b, int dir) {
  if (a == 0 || b == 0) {
    if (std::isinf(a) || std::isinf(b)) return std::numeric_limits<double>::quiet_NaN();
    return 0.0;
  }
  double p = a * b;
  if (!std::isfinite(p)) return p;
  double err = std::fma(a, b, -p);  // exact when p is normal; below that, step outward anyway
  bool tiny = std::fabs(p) < 0x1p-969;
  if (dir < 0 && (err < 0 || tiny)) return dn(p);
  if (dir > 0 && (err > 0 || tiny)) return up(p);
  return p;
}

double div_dir(double a, double b, int dir) {
  double q = a / b;
  if (!std::isfinite(q) || std::isinf(b) || a == 0) return q;
  // Residual a - q b (exact by fma when not tiny); its sign against b's says where the truth lies.
  double rem = std::fma(-q, b, a);
  bool tiny = std::fabs(q) < 0x1p-969 || std::fabs(a) < 0x1p-969;
  double sgn = (rem == 0) ? 0 : ((rem > 0) == (b > 0) ? 1 : -1);  // truth - q has this sign
  if (dir < 0 && (sgn < 0 || tiny)) return dn(q);
  if (dir > 0 && (sgn > 0 || tiny)) return up(q);
  return q;
}

Interval nan_iv() {
  Interval r;
  r.lo = r.hi = std::numeric_limits<double>::quiet_NaN();
  r.nan = true;
  return r;
}

Interval make(double lo, double hi) {
  if (std::isnan(lo) || std::isnan(hi)) return nan_iv();
  Interval r;
  r.lo = lo;
  r.hi = hi;
  return r;
}
}  // namespace

Interval Interval::point(double x) { return std::isnan(x) ? nan_iv() : make(x, x); }
Interval Interval::of(double lo, double hi) {
  if (std::isnan(lo) || std::isnan(hi)) return nan_iv();
  return make(std::min(lo, hi), std::max(lo, hi));
}

bool Interval::contains(double x) const {
  if (std::isnan(x)) return nan;
  return !nan && lo <= x && x <= hi;
}

Interval Interval::widen(double rel, double abs) const {
  if (nan) return *this;
  double l = add_dir(lo, -add_dir(mul_dir(std::fabs(lo), rel, 1), abs, 1), -1);
  double h = add_dir(hi, add_dir(mul_dir(std::fabs(hi), rel, 1), abs, 1), 1);
  return make(l, h);
}

Interval Interval::snap(DType t) const {
  if (nan) return *this;
  return make(round_to(t, lo, Round::down), round_to(t, hi, Round::up));
}

Interval Interval::rounded(DType t) const {
  if (nan) return *this;
  // Round to nearest is monotone, so the ends' roundings bound every value's.
  return make(round_to(t, lo, Round::nearest), round_to(t, hi, Round::nearest));
}

std::string Interval::str() const {
  if (nan) return "[NaN]";
  return fmt::format("[{:.9g}, {:.9g}]", lo, hi);
}

Interval operator+(const Interval& a, const Interval& b) {
  if (a.nan || b.nan) return nan_iv();
  return make(add_dir(a.lo, b.lo, -1), add_dir(a.hi, b.hi, 1));
}

Interval operator-(const Interval& a, const Interval& b) {
  if (a.nan || b.nan) return nan_iv();
  return make(add_dir(a.lo, -b.hi, -1), add_dir(a.hi, -b.lo, 1));
}

Interval operator*(const Interval& a, const Interval& b) {
  if (a.nan || b.nan) return nan_iv();
  const double xs[2] = {a.lo, a.hi}, ys[2] = {b.lo, b.hi};
  double lo = kInf, hi = -kInf;
  for (double x : xs)
    for (double y : ys) {
      double l = mul_dir(x, y, -1), h = mul_dir(x, y, 1);
      if (std::isnan(l) || std::isnan(h)) return nan_iv();
      lo = std::min(lo, l);
      hi = std::max(hi, h);
    }
  return make(lo, hi);
}

Interval operator/(const Interval& a, const Interval& b) {
  if (a.nan || b.nan) return nan_iv();
  if (b.lo <= 0 && b.hi >= 0) {  // a divisor that may be zero: anything (or NaN for 0/0)
    if (a.lo <= 0 && a.hi >= 0) return nan_iv();
    return make(-kInf, kInf);
  }
  const double xs[2] = {a.lo, a.hi}, ys[2] = {b.lo, b.hi};
  double lo = kInf, hi = -kInf;
  for (double x : xs)
    for (double y : ys) {
      double l = div_dir(x, y, -1), h = div_dir(x, y, 1);
      if (std::isnan(l) || std::isnan(h)) return nan_iv();
      lo = std::min(lo, l);
      hi = std::max(hi, h);
    }
  return make(lo, hi);
}

namespace {
// A monotone increasing function: its value at each end, widened one double ulp outward (glibc's
// exp, tanh and erf are within one ulp), clamped to the function's range.
template <class F> Interval monotone(const Interval& a, F f, double min_v, double max_v) {
  if (a.nan) return a;
  double l = f(a.lo), h = f(a.hi);
  if (std::isnan(l) || std::isnan(h)) return nan_iv();
  return make(std::max(dn(l), min_v), std::min(up(h), max_v));
}
}  // namespace

Interval iv_exp(const Interval& a) { return monotone(a, [](double x) { return std::exp(x); }, 0.0, kInf); }
Interval iv_tanh(const Interval& a) { return monotone(a, [](double x) { return std::tanh(x); }, -1.0, 1.0); }
Interval iv_erf(const Interval& a) { return monotone(a, [](double x) { return std::erf(x); }, -1.0, 1.0); }

}  // namespace kc
