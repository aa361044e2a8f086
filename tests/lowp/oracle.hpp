// The tests' own definition of each format, from its fields: (-1)^s 2^(e - bias) (1 + m / 2^M) for
// a normal code, (-1)^s 2^(1 - bias) m / 2^M for a subnormal one, and each format's special codes as
// its specification lists them. Written apart from core's decoder, which builds a double's bits.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kc/lowp.hpp"

namespace lowp_oracle {

using kc::lowp::Format;

inline const Format kAll[] = {Format::e4m3, Format::e5m2, Format::e2m1, Format::e8m0, Format::ue4m3};

inline double value(Format f, uint32_t c) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  if (f == Format::e8m0) return c == 255 ? nan : std::pow(2.0, double(int(c) - 127));
  int E = 4, M = 3, bias = 7, s = int(c >> 7);
  if (f == Format::e5m2) E = 5, M = 2, bias = 15;
  if (f == Format::e2m1) E = 2, M = 1, bias = 1, s = int(c >> 3);
  if (f == Format::ue4m3 && s) return nan;  // no sign bit: not a value
  const int e = int(c >> M) & ((1 << E) - 1), m = int(c) & ((1 << M) - 1);
  if ((f == Format::e4m3 || f == Format::ue4m3) && e == 15 && m == 7) return nan;
  if (f == Format::e5m2 && e == 31) return m == 0 ? (s ? -inf : inf) : nan;
  const double frac = double(m) / double(1 << M);
  const double mag = e == 0 ? std::pow(2.0, 1 - bias) * frac : std::pow(2.0, e - bias) * (1 + frac);
  return s ? -mag : mag;
}

inline uint32_t codes(Format f) { return f == Format::e2m1 ? 16 : 256; }

// The finite codes and their values, for nearest-value searches.
struct Finite {
  uint32_t code;
  double v;
};
inline std::vector<Finite> finite(Format f) {
  std::vector<Finite> out;
  for (uint32_t c = 0; c < codes(f); ++c)
    if (std::isfinite(value(f, c))) out.push_back({c, value(f, c)});
  return out;
}

}  // namespace lowp_oracle
