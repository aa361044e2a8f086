// The affine decode's device check, shared by the CUDA kernel tests: MLX-packed codes and bf16 x,
// scales and biases from hashes, one launch, then every output against a float64 sum within depth
// * u * magnitude (plus a bf16 output's rounding) and the guard bytes past y untouched.
#pragma once
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tests/cuda/bf16_fill.hpp"

namespace kc_test {

template <class Out> double value(const Out& o) {
  if constexpr (std::is_same_v<Out, float>) return o;
  else return double(__bfloat162float(o));
}

template <class T> T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  if (cudaMalloc(&d, h.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

// Code k of W row n as MLX packs it: `bits` bits from bit (n K + k) bits of the little-endian words
// (a row starts on a word: K bits is a multiple of 32).
inline int code_at(const std::vector<uint32_t>& q, int bits, size_t K, size_t n, size_t k) {
  const size_t at = (n * K + k) * size_t(bits), w = at / 32;
  const uint64_t v = uint64_t(q[w]) | (w + 1 < q.size() ? uint64_t(q[w + 1]) << 32 : 0);
  return int(v >> (at % 32)) & ((1 << bits) - 1);
}

// One launch, launch(x, q, s, b, y), of M x N outputs over K; `depth` is the launch's chain of roundings.
template <int BITS, int GROUP, class Out, class Launch>
void check_affine(int M, int N, int K, double depth, Launch launch) {
  SCOPED_TRACE(testing::Message() << BITS << " bits, group " << GROUP << ", M " << M << " N " << N << " K " << K
                                  << ", " << sizeof(Out) * 8 << "-bit out");
  const int G = K / GROUP;
  const auto hx = spread(size_t(M) * K, 7u + uint32_t(K), -4, 9);
  const auto hs = spread(size_t(N) * G, 11u + uint32_t(N), -8, 5);
  const auto hb = spread(size_t(N) * G, 13u + uint32_t(N), -6, 5);
  std::vector<uint32_t> hq(size_t(N) * K * BITS / 32);
  for (size_t i = 0; i < hq.size(); ++i) hq[i] = hash(uint32_t(i), 17u + uint32_t(M));
  const size_t ny = size_t(M) * N, guard = 64;
  uint16_t *x = upload(hx), *s = upload(hs), *b = upload(hb);
  uint32_t* q = upload(hq);
  Out* y = nullptr;
  ASSERT_TRUE(x && s && b && q);
  ASSERT_EQ(cudaMalloc(&y, (ny + guard) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMemset(y, 0xA5, (ny + guard) * sizeof(Out)), cudaSuccess);
  launch(x, q, s, b, y);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<Out> hy(ny + guard);
  ASSERT_EQ(cudaMemcpy(hy.data(), y, hy.size() * sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(x), cudaFree(s), cudaFree(b), cudaFree(q), cudaFree(y);

  // The float64 judge: y = sum_g s (sum x q) + b (sum x), and its magnitude sum_g |s| (sum |x| q) +
  // |b| (sum |x|), as the affine family computes them.
  const double u = std::ldexp(1.0, -24);
  const bool f32 = std::is_same_v<Out, float>;
  size_t bad = 0, first = ny;
  for (size_t i = 0; i < ny; ++i) {
    const size_t m = i / N, n = i % N;
    double ref = 0, mag = 0;
    for (int g = 0; g < G; ++g) {
      double xq = 0, aq = 0, sx = 0, ax = 0;
      for (int k = g * GROUP; k < (g + 1) * GROUP; ++k) {
        const double xv = bf(hx[m * K + k]);
        const int code = code_at(hq, BITS, size_t(K), n, size_t(k));
        xq += xv * code, aq += std::fabs(xv) * code, sx += xv, ax += std::fabs(xv);
      }
      const double sv = bf(hs[n * G + g]), bv = bf(hb[n * G + g]);
      ref += sv * xq + bv * sx, mag += std::fabs(sv) * aq + std::fabs(bv) * ax;
    }
    const double bound = depth * u * mag + (f32 ? 0.0 : std::ldexp(std::fabs(ref), -8)) + 1e-30;
    if (!(std::fabs(value(hy[i]) - ref) <= bound) && bad++ == 0) first = i;
  }
  EXPECT_EQ(bad, 0u) << "first at m " << first / N << " n " << first % N;
  const auto* raw = reinterpret_cast<const unsigned char*>(hy.data());
  for (size_t i = ny * sizeof(Out); i < hy.size() * sizeof(Out); ++i) ASSERT_EQ(raw[i], 0xA5) << "wrote past y";
}

}  // namespace kc_test
