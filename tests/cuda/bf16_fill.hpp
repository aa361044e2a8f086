// Host-side bf16 fills and reads shared by the CUDA kernel tests.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kc_test {

inline uint32_t hash(uint32_t i, uint32_t seed) {
  uint32_t h = i * 2654435761u ^ seed;
  h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
  return h;
}
// bf16 bits of +-2^[lo, lo + span) with every mantissa, from a hash of the index: products and sums
// of many magnitudes, so fp32 sums round (and another order gives other bits).
inline std::vector<uint16_t> spread(size_t n, uint32_t seed, int lo = -6, int span = 13) {
  std::vector<uint16_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t h = hash(uint32_t(i), seed);
    v[i] = uint16_t((h & 0x8000u) | (uint32_t(127 + lo + int((h >> 8) % uint32_t(span))) << 7) | (h & 0x7Fu));
  }
  return v;
}
inline double bf(uint16_t h) {
  const uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace kc_test
