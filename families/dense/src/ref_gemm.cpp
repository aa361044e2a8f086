// The blocked float64 references (ref_gemm.hpp): one body (ref_gemm_body.hpp) compiled for three
// instruction sets, picked once at run time from the CPU, so a binary built anywhere uses AVX-512 or
// AVX2 where the host has them and still runs where it has neither.
//
// No floating-point contraction in this file: the body fuses only products that are exact
// (fma_exact), so every sum rounds as the plain loop's `y += p` does and the references stay
// bit-equal to it on any compiler and CPU.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "ref_gemm.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "kc/parallel.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KC_REF_X86 1
#include <immintrin.h>
#else
#define KC_REF_X86 0
#endif

namespace kc::fam {
namespace {

// A bf16 widened to double: its bits are the top half of a float's, exact.
inline double wide(bf16 v) {
  uint32_t u = uint32_t(v.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return double(f);
}

// Code i of a row packed as affine::pack_row packs it (one little-endian bit stream in 32-bit words).
inline uint32_t code(const uint32_t* row, int64_t i, int bits) {
  uint64_t bit = uint64_t(i) * uint64_t(bits);
  uint64_t lo = row[bit / 32];
  if ((bit % 32) + uint64_t(bits) > 32) lo |= uint64_t(row[bit / 32 + 1]) << 32;
  return uint32_t(lo >> (bit % 32)) & ((1u << bits) - 1);
}

}  // namespace

// Portable: GCC/Clang vector extensions of two doubles (SSE2 on any x86-64, NEON on arm64).
namespace ref_portable {
namespace {
struct Isa {
  typedef double V __attribute__((vector_size(16)));
  typedef int64_t I __attribute__((vector_size(16)));
  static constexpr int W = 2, MR = 4, NV = 1;
  static V ld(const double* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void st(double* p, V v) { std::memcpy(p, &v, sizeof v); }
  static V bcast(double x) { return V{x, x}; }
  static V zero() { return V{0, 0}; }
  static V add(V a, V b) { return a + b; }
  static V mul(V a, V b) { return a * b; }
  static V fma_exact(V a, V b, V c) { return c + a * b; }
  static V abs(V v) { return (V)((I)v & I{INT64_MAX, INT64_MAX}); }
};
#include "ref_gemm_body.hpp"
}  // namespace
}  // namespace ref_portable

#if KC_REF_X86
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace ref_avx2 {
namespace {
struct Isa {
  using V = __m256d;
  static constexpr int W = 4, MR = 2, NV = 2;
  static V ld(const double* p) { return _mm256_loadu_pd(p); }
  static void st(double* p, V v) { _mm256_storeu_pd(p, v); }
  static V bcast(double x) { return _mm256_set1_pd(x); }
  static V zero() { return _mm256_setzero_pd(); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V fma_exact(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V abs(V v) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), v); }
};
#include "ref_gemm_body.hpp"
}  // namespace
}  // namespace ref_avx2
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(__attribute__((target("avx512f,fma"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,fma")
#endif
namespace ref_avx512 {
namespace {
struct Isa {
  using V = __m512d;
  static constexpr int W = 8, MR = 6, NV = 2;
  static V ld(const double* p) { return _mm512_loadu_pd(p); }
  static void st(double* p, V v) { _mm512_storeu_pd(p, v); }
  static V bcast(double x) { return _mm512_set1_pd(x); }
  static V zero() { return _mm512_setzero_pd(); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V fma_exact(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V abs(V v) { return _mm512_abs_pd(v); }
};
#include "ref_gemm_body.hpp"
}  // namespace
}  // namespace ref_avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif  // KC_REF_X86

namespace {

RefIsa detect() {
#if KC_REF_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return RefIsa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return RefIsa::avx2;
#endif
  return RefIsa::portable;
}

const RefIsa best_isa = detect();
std::atomic<RefIsa> current{best_isa};

bool supports(RefIsa want) {
  switch (want) {
    case RefIsa::best:
    case RefIsa::portable: return true;
    case RefIsa::avx2: return best_isa == RefIsa::avx2 || best_isa == RefIsa::avx512;
    case RefIsa::avx512: return best_isa == RefIsa::avx512;
  }
  return false;
}

}  // namespace

const char* ref_isa_name() {
  switch (current.load()) {
    case RefIsa::avx512: return "avx512";
    case RefIsa::avx2: return "avx2";
    default: return "portable";
  }
}

bool force_ref_isa(RefIsa isa) {
  if (!supports(isa)) return false;
  current = isa == RefIsa::best ? best_isa : isa;
  return true;
}

void ref_dense(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  if (M <= 0 || N <= 0) return;
  if (ref_device_took(M, N, K, [&](const RefDevice& d) { return d.dense(x, w, M, N, K, y, mag); })) return;
  ref_dense_cpu(x, w, M, N, K, y, mag);
}

void ref_dense_cpu(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  if (M <= 0 || N <= 0) return;
  switch (current.load()) {
#if KC_REF_X86
    case RefIsa::avx512: return ref_avx512::run_dense(x, w, M, N, K, y, mag);
    case RefIsa::avx2: return ref_avx2::run_dense(x, w, M, N, K, y, mag);
#endif
    default: return ref_portable::run_dense(x, w, M, N, K, y, mag);
  }
}

void ref_affine(const bf16* x, const AffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  if (M <= 0 || N <= 0) return;
  if (ref_device_took(M, N, K, [&](const RefDevice& d) { return d.affine(x, w, M, N, K, y, mag); })) return;
  ref_affine_cpu(x, w, M, N, K, y, mag);
}

void ref_affine_cpu(const bf16* x, const AffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  if (M <= 0 || N <= 0) return;
  switch (current.load()) {
#if KC_REF_X86
    case RefIsa::avx512: return ref_avx512::run_affine(x, w, M, N, K, y, mag);
    case RefIsa::avx2: return ref_avx2::run_affine(x, w, M, N, K, y, mag);
#endif
    default: return ref_portable::run_affine(x, w, M, N, K, y, mag);
  }
}

}  // namespace kc::fam
