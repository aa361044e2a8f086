// Numeric helpers: 16-bit float conversion, unit roundoffs, Higham's gamma, value classes and the
// outward-rounded intervals used to check kernels at their rounding points.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "kc/types.hpp"

namespace kc {

// Rounding of a wider value to a narrower format. nearest = round to nearest, ties to even.
enum class Round : uint8_t { nearest, down, up };

// float32 <-> bfloat16 / float16. Subnormals are kept; NaN keeps its sign and the top payload bits
// (a payload that would vanish keeps the quiet bit, so a NaN never becomes an infinity).
bf16 to_bf16(float x, Round r = Round::nearest);
f16 to_f16(float x, Round r = Round::nearest);
float from_bf16(bf16 x);
float from_f16(f16 x);
// From double directly (one rounding, not two): what an exact value rounds to in the format.
bf16 to_bf16(double x, Round r);
f16 to_f16(double x, Round r);
float to_f32(double x, Round r);

// Round a double to a format and back, in double (used by replays and interval snapping).
double round_to(DType t, double x, Round r = Round::nearest);

// fp32 unit roundoff u = 2^-24.
inline constexpr double u32 = 0x1p-24;
// An output type's half-ulp relative (2^-8 bf16, 2^-11 fp16, 2^-24 fp32, 2^-53 f64).
double half_ulp(DType t);
// The output type's subnormal half-spacing: the absolute floor of its rounding error.
double half_ulp_floor(DType t);
// Higham's gamma(n) = n u / (1 - n u) with u = 2^-24; infinite when n u >= 1.
double gamma(double n, double u = u32);

// Class of a value: what gate 1 compares, tolerance-free.
enum class FClass : uint8_t { finite, nan, pinf, ninf };
FClass fclass(double x);
const char* fclass_name(FClass c);

// Read element i of a buffer of type t as a double (integers exactly, floats widened exactly).
double load_as_double(const void* data, DType t, size_t i);
// Store a double into element i with round-to-nearest (floats) or truncation check (ints).
void store_from_double(void* data, DType t, size_t i, double v);

// A closed interval of real values, for checking at rounding points (DESIGN.md §2.4, gate 3).
// Each operation rounds its ends outward, so the true value of the formula on any point of the
// inputs' intervals lies inside the result. nan marks an interval that holds a NaN.
struct Interval {
  double lo = 0, hi = 0;
  bool nan = false;
  static Interval point(double x);
  static Interval of(double lo, double hi);
  bool contains(double x) const;  // NaN is contained only in a nan interval
  // Widen by a relative error e (|x| * e on each side) plus an absolute floor a.
  Interval widen(double rel, double abs = 0) const;
  // Snap outward to format t: lo rounded down, hi rounded up.
  Interval snap(DType t) const;
  // The set of values a rounding to nearest in t can give for a true value in this interval.
  Interval rounded(DType t) const;
  std::string str() const;
};
Interval operator+(const Interval& a, const Interval& b);
Interval operator-(const Interval& a, const Interval& b);
Interval operator*(const Interval& a, const Interval& b);
Interval operator/(const Interval& a, const Interval& b);
// Monotone or unimodal functions on intervals, exact in double then widened outward by one ulp.
Interval iv_exp(const Interval& a);
Interval iv_tanh(const Interval& a);
Interval iv_erf(const Interval& a);

}  // namespace kc
