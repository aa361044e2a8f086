// What the dense and affine families share (internal to core): a small seeded PRNG, bf16 values
// for the random fills, and a parallel loop so float64 references at 32 x 16,384 x 16,384 finish in
// a second on a many-core host.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "kc/numeric.hpp"
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

// Runs fn(i) for i in [0, n) over the host's cores, in contiguous blocks.
inline void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  int64_t threads = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), 64));
  threads = std::min(threads, std::max<int64_t>(1, n));
  if (threads == 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> pool;
  int64_t per = (n + threads - 1) / threads;
  for (int64_t t = 0; t < threads; ++t) {
    int64_t b = t * per, e = std::min(n, b + per);
    if (b >= e) break;
    pool.emplace_back([&fn, b, e] { fn(b, e); });
  }
  for (auto& th : pool) th.join();
}

// A float64 dot and its magnitude over bf16 values widened to float: a bf16 x bf16 product is exact
// in float (16 significant bits), so only the sums are done in double, four chains for speed (the
// order of float64 sums does not matter at these bounds: its error is below 2^-53 k of the
// magnitude).
inline void dot_mag(const float* a, const float* b, int64_t k, double& dot, double& mag) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0, m0 = 0, m1 = 0, m2 = 0, m3 = 0;
  int64_t i = 0;
  for (; i + 4 <= k; i += 4) {
    double p0 = a[i] * b[i], p1 = a[i + 1] * b[i + 1], p2 = a[i + 2] * b[i + 2], p3 = a[i + 3] * b[i + 3];
    s0 += p0, s1 += p1, s2 += p2, s3 += p3;
    m0 += std::fabs(p0), m1 += std::fabs(p1), m2 += std::fabs(p2), m3 += std::fabs(p3);
  }
  for (; i < k; ++i) {
    double p = a[i] * b[i];
    s0 += p;
    m0 += std::fabs(p);
  }
  dot = (s0 + s1) + (s2 + s3);
  mag = (m0 + m1) + (m2 + m3);
}

}  // namespace kc::fam
