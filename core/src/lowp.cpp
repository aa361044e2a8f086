// Low-precision formats (kc/lowp.hpp). The sign-exponent-mantissa formats share one decoder (a
// normal code's fields moved into a double's) and one encoder (round the magnitude at its binade's
// spacing, then apply the format's overflow rule); e8m0 has its own, being powers of two alone.
#include "kc/lowp.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace kc::lowp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Fields {
  int exp_bits, man_bits, bias;
  bool sign;
};
Fields fields(Format f) {
  switch (f) {
    case Format::e4m3: return {4, 3, 7, true};
    case Format::e5m2: return {5, 2, 15, true};
    case Format::e2m1: return {2, 1, 1, true};
    case Format::ue4m3: return {4, 3, 7, false};
    case Format::e8m0: return {8, 0, 127, false};
  }
  throw Error("lowp: unknown format");
}

// The largest finite magnitude's code (without sign).
uint32_t max_code(Format f) {
  switch (f) {
    case Format::e4m3: case Format::ue4m3: return 0x7E;
    case Format::e5m2: return 0x7B;
    case Format::e2m1: return 0x7;
    case Format::e8m0: return 0xFE;
  }
  return 0;
}

uint32_t nan_code(Format f, bool neg) {
  switch (f) {
    case Format::e4m3: return neg ? 0xFF : 0x7F;
    case Format::e5m2: return neg ? 0xFE : 0x7E;  // quiet: the mantissa's top bit set
    case Format::ue4m3: return 0x7F;
    case Format::e8m0: return 0xFF;
    case Format::e2m1: break;
  }
  throw Error("lowp: e2m1 has no NaN");
}

// A finite magnitude of the format, exactly, to its code (sign not included).
uint32_t magnitude_code(const Fields& fl, double a) {
  if (a == 0) return 0;
  int e;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  const int ex = e - 1, emin = 1 - fl.bias;
  if (ex < emin) return uint32_t(std::ldexp(a, fl.man_bits - emin));  // subnormal: m * 2^(emin - M)
  const uint32_t m = uint32_t(std::ldexp(a, fl.man_bits - ex)) - (1u << fl.man_bits);
  return uint32_t(ex + fl.bias) << fl.man_bits | m;
}

uint32_t encode_e8m0(double x, Sat s, Round r) {
  if (std::isnan(x) || (x < 0 && x != 0)) return 0xFF;
  if (std::isinf(x)) return s == Sat::finite ? 0xFE : 0xFF;
  if (x == 0) return 0x00;
  int e;
  const double f = std::frexp(x, &e);  // x = f 2^e, f in [0.5, 1): between 2^(e-1) and 2^e
  int p = e - 1;                       // rounded down
  if (f != 0.5) {
    if (r == Round::up) p = e;
    else if (r == Round::nearest && (f > 0.75 || (f == 0.75 && ((e - 1 + 127) & 1))))
      p = e;  // past the midpoint 1.5 * 2^(e-1), or on it with an odd code below
  }
  if (p < -127) return 0x00;
  if (p > 127) return s == Sat::finite ? 0xFE : 0xFF;
  return uint32_t(p + 127);
}

}  // namespace

const char* name(Format f) {
  switch (f) {
    case Format::e4m3: return "e4m3";
    case Format::e5m2: return "e5m2";
    case Format::e2m1: return "e2m1";
    case Format::e8m0: return "e8m0";
    case Format::ue4m3: return "ue4m3";
  }
  return "?";
}

int bits(Format f) { return f == Format::e2m1 ? 4 : 8; }

double max_finite(Format f) { return decode(f, max_code(f)); }

bool is_nan(Format f, uint32_t code) { return std::isnan(decode(f, code)); }

double decode(Format f, uint32_t code) {
  if (code >= (1u << bits(f))) throw Error("lowp: code out of range for " + std::string(name(f)));
  if (f == Format::e8m0) return code == 0xFF ? kNaN : std::ldexp(1.0, int(code) - 127);
  const Fields fl = fields(f);
  if (!fl.sign && (code >> 7)) return kNaN;  // ue4m3 has no sign bit
  const int mb = fl.man_bits, eb = fl.exp_bits;
  const uint32_t m = code & ((1u << mb) - 1), e = (code >> mb) & ((1u << eb) - 1);
  const bool neg = fl.sign && (code >> (mb + eb));
  const uint32_t top = (1u << eb) - 1;
  if ((f == Format::e4m3 || f == Format::ue4m3) && e == top && m == (1u << mb) - 1) return kNaN;
  if (f == Format::e5m2 && e == top) return m ? kNaN : (neg ? -kInf : kInf);
  double v;
  if (e == 0)
    v = std::ldexp(double(m), 1 - fl.bias - mb);
  else  // a normal code: its exponent and mantissa become a double's
    v = std::bit_cast<double>(uint64_t(int(e) - fl.bias + 1023) << 52 | uint64_t(m) << (52 - mb));
  return neg ? -v : v;
}

uint32_t encode(Format f, double x, Sat s, Round r) {
  if (f == Format::e8m0) return encode_e8m0(x, s, r);
  if (r != Round::nearest) throw Error(std::string("lowp: ") + name(f) + " converts to nearest only");
  const Fields fl = fields(f);
  const bool neg = std::signbit(x);
  if (std::isnan(x)) return nan_code(f, neg);
  if (!fl.sign && neg) return x == 0 ? 0 : nan_code(f, true);
  const uint32_t sign = neg ? 1u << (fl.exp_bits + fl.man_bits) : 0;
  const double a = std::fabs(x), mx = max_finite(f);
  // Past max (the value rounded, or an infinity): the format's overflow rule.
  auto overflow = [&]() -> uint32_t {
    if (s == Sat::finite || f == Format::e2m1) return sign | max_code(f);
    if (f == Format::e5m2) return sign | 0x7C;
    return nan_code(f, neg);
  };
  if (std::isinf(a)) return overflow();
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  const int ex = std::max(e - 1, 1 - fl.bias);
  const double q = std::ldexp(1.0, ex - fl.man_bits);  // spacing at a (subnormal spacing below)
  const double k = a / q, fk = std::floor(k), rest = k - fk;  // exact: power-of-two scaling
  double kr = fk;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(fk, 2.0) != 0)) kr = fk + 1;  // ties to even
  const double v = kr * q;
  if (v > mx) return overflow();
  return sign | magnitude_code(fl, v);
}

}  // namespace kc::lowp
