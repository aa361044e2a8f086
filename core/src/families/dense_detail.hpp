// What the dense and affine families share (internal to core): a small seeded PRNG, bf16 values
// for the random fills (one stream a row, so fills run on every core and stay the same for a seed
// whatever the core count), and the repeated-row check gate 4's references use.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "kc/numeric.hpp"
#include "kc/parallel.hpp"
#include "kc/types.hpp"

namespace kc::fam {

// splitmix64: one independent stream per (seed, row), so rows can be filled in parallel and a
// case's inputs never depend on the thread count.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed, uint64_t stream = 0) : s(seed ^ (stream + 1) * 0x9e3779b97f4a7c15ull) { next(); }
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * 0x1p-53; }          // [0, 1)
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }  // [lo, hi]
  bool coin() { return next() >> 63; }
};

// A bf16 value of random sign with magnitude in [2^elo, 2^(ehi+1)): spread magnitudes, never zero.
// Built from its bits (sign, biased exponent, 7 random mantissa bits): exact, and fast enough to
// fill 16,384 x 16,384 weights in a fraction of a second. elo >= -126, ehi <= 127.
inline bf16 spread_bf16(Rng& r, int elo, int ehi) {
  uint64_t z = r.next();
  uint32_t e = uint32_t(127 + elo + int64_t((z >> 8) % uint64_t(ehi - elo + 1)));
  return bf16{uint16_t(((z >> 63) << 15) | (e << 7) | (z & 0x7f))};
}

inline double bf(bf16 v) { return double(from_bf16(v)); }
inline bf16 bf_exact(double v) { return to_bf16(v, Round::nearest); }

// True when every one of `rows` rows of `width` elements equals row r % pats byte for byte (gate 4's
// fills repeat a few pattern rows; a reference may then evaluate each distinct row once).
template <class T>
bool rows_repeat(std::span<const T> v, int64_t rows, int64_t width, int64_t pats) {
  if (pats < 1 || pats > rows) return false;
  std::atomic<bool> same{true};
  kc::parallel_for(rows - pats, [&](int64_t b, int64_t e) {
    for (int64_t r = pats + b; r < pats + e && same.load(std::memory_order_relaxed); ++r)
      if (std::memcmp(&v[r * width], &v[(r % pats) * width], size_t(width) * sizeof(T)) != 0) same = false;
  }, 64);
  return same;
}

// Outputs [rows x cols] from those of the distinct pairs [pr x pc]: out[m, n] = small[m % pr, n % pc].
// Each pattern's output row is built once, then copied to its rows on every core.
inline void expand_patterns(const std::vector<double>& small, int64_t pr, int64_t pc, int64_t rows, int64_t cols,
                            std::vector<double>& out) {
  std::vector<std::vector<double>> full(size_t(pr), std::vector<double>(size_t(cols), 0.0));
  for (int64_t p = 0; p < pr; ++p)
    for (int64_t n = 0, j = 0; n < cols; ++n, j = j + 1 == pc ? 0 : j + 1) full[p][n] = small[p * pc + j];
  out.resize(size_t(rows * cols));
  kc::parallel_for(rows, [&](int64_t b, int64_t e) {
    for (int64_t m = b; m < e; ++m) std::copy(full[m % pr].begin(), full[m % pr].end(), out.begin() + m * cols);
  }, 16);
}

}  // namespace kc::fam
