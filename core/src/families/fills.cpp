// Named value distributions (see fills.hpp).
#include "kc/families/fills.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kc/numeric.hpp"

namespace kc::fills {
namespace {

// splitmix64, one stream a (seed, row).
struct Rng {
  uint64_t s;
  Rng(uint64_t seed, int64_t r) : s(seed ^ uint64_t(r + 1) * 0xd1b54a32d192ed03ull) { next(); }
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * 0x1p-53; }
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }
  bool coin() { return next() >> 63; }
};

int min_normal_exp(DType t) { return t == DType::f16 ? -14 : t == DType::f64 ? -1022 : -126; }
int max_exp(DType t) { return t == DType::f16 ? 15 : t == DType::f64 ? 1023 : 127; }
int fraction_bits(DType t) {
  switch (t) {
    case DType::f16: return 10;
    case DType::bf16: return 7;
    case DType::f64: return 52;
    default: return 23;
  }
}

// +-(1 + U) 2^e, e in [lo, hi], rounded to t (hi below the type's top binade: no rounding to Inf).
double spread(Rng& r, DType t, int lo, int hi, int sign) {
  double v = round_to(t, std::ldexp(1 + r.unit(), int(r.range(lo, hi))));
  return (sign < 0 || (sign == 0 && r.coin())) ? -v : v;
}

// Two distinct columns of a row of n >= 2, the first below the second.
std::pair<int64_t, int64_t> two_columns(Rng& r, int64_t n) {
  int64_t a = r.range(0, n - 1), b = r.range(0, n - 2);
  if (b >= a) ++b;
  return {std::min(a, b), std::max(a, b)};
}

}  // namespace

int max_exponent(DType t) { return max_exp(t); }

bool known(std::string_view d) {
  for (const char* k : {kOffset, kRange, kTies, kZeros, kSign, kTiny, kSubnormal, kCut})
    if (d == k) return true;
  return false;
}

void check(const std::vector<std::string>& dists) {
  for (const auto& d : dists)
    if (!known(d)) throw Error(fmt::format("fills: no distribution '{}'", d));
}

uint64_t seed_for(uint64_t case_seed, std::string_view operand, std::string_view dist) {
  uint64_t h = case_seed ^ 0x51ed270b27a9b3c5ull;
  for (char ch : operand) h = (h ^ uint8_t(ch)) * 0x100000001b3ull;
  h = (h ^ '/') * 0x100000001b3ull;
  for (char ch : dist) h = (h ^ uint8_t(ch)) * 0x100000001b3ull;
  return h;
}

void row(std::string_view d, DType t, uint64_t seed, int64_t ri, std::span<double> out, const Range& range) {
  Rng r(seed, ri);
  const int64_t n = int64_t(out.size());
  if (n == 0) return;
  const int top = max_exp(t) - 1, bottom = min_normal_exp(t);
  if (d == kOffset) {
    // The spread covers at least a few ulps of the type at 1000, so the values differ at all.
    const double s = std::max(0.01, 4 * 2 * half_ulp(t) * 512);
    for (auto& v : out) v = round_to(t, 1000 + s * (2 * r.unit() - 1));
  } else if (d == kRange) {
    const int lo = std::clamp(range.lo, bottom, top), hi = std::clamp(range.hi, lo, top);
    for (auto& v : out) v = spread(r, t, lo, hi, 0);
    out[size_t(r.range(0, n - 1))] = round_to(t, std::ldexp(1.5, hi));
    out[size_t(r.range(0, n - 1))] = -round_to(t, std::ldexp(1.25, lo));
  } else if (d == kTies) {
    const int sign = ri % 2 ? -1 : 1;
    double pool[3];
    for (auto& p : pool) p = spread(r, t, -2, 2, sign);
    for (auto& v : out) v = pool[r.range(0, 2)];
    const double top_v = sign > 0 ? *std::max_element(pool, pool + 3) : 0.0;
    if (n >= 2) {
      auto [a, b] = two_columns(r, n);
      if (sign > 0) out[size_t(a)] = out[size_t(b)] = top_v;
    }
    if (n >= 2) {  // -0 at the lower column, +0 at the higher
      auto [a, b] = two_columns(r, n);
      out[size_t(a)] = -0.0, out[size_t(b)] = 0.0;
    } else if (sign < 0) {
      out[0] = -0.0;
    }
  } else if (d == kZeros) {
    for (auto& v : out) v = r.range(0, 3) == 0 ? (r.coin() ? -0.0 : 0.0) : spread(r, t, -4, 3, 0);
    if (n >= 2) {
      auto [a, b] = two_columns(r, n);
      out[size_t(a)] = -0.0, out[size_t(b)] = 0.0;
    } else {
      out[0] = -0.0;
    }
  } else if (d == kSign) {
    const int sign = ri % 2 ? 1 : -1;
    for (auto& v : out) v = spread(r, t, -4, 3, sign);
  } else if (d == kTiny) {
    for (auto& v : out) v = spread(r, t, -12, -9, 0);
  } else if (d == kCut) {
    // One sign a row, so every cut bit of a dot moves it the same way and the losses add up.
    const double sign = ri % 2 ? -1 : 1;
    for (auto& v : out) v = sign * round_to(t, std::ldexp(1.5 + 0.5 * r.unit(), -13));
    out[0] = sign;
  } else if (d == kSubnormal) {
    // k 2^(emin - p), 1 <= k < 2^p: every subnormal of the type (exact in it by construction).
    const int p = fraction_bits(t);
    for (auto& v : out) {
      v = std::ldexp(double(r.range(1, (int64_t(1) << p) - 1)), bottom - p);
      if (r.coin()) v = -v;
    }
  } else {
    throw Error(fmt::format("fills: no distribution '{}'", d));
  }
}

}  // namespace kc::fills
