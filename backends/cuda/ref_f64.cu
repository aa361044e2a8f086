// The dense and affine float64 references on a CUDA device (ref_f64.hpp). Each output is one
// thread's chain, in the CPU's order and ops (families/dense/src/ref_gemm_body.hpp): sums from +0
// over k ascending, exact products fused (__fma_rn of a bf16 by a bf16 or a code is the product's
// add), a group folded as y + ((s * sum xq) + (b * sum x)) with each op rounded alone (__dmul_rn,
// __dadd_rn: nothing for nvcc to contract). So the doubles equal the CPU's bit for bit; core checks
// that before a run uses them (check_ref_device). The work is a plain 64 x 64 shared-memory tile:
// H200's fp64 units do in about a second what 16 cores do in half a minute.
#include <cuda_runtime.h>

#include <string>

#include "backends/cuda/ref_f64.hpp"

namespace kc::cuda_ref {
namespace {

constexpr int kTile = 64;  // outputs a block along m and n: 16 x 16 threads of 4 x 4
constexpr int kThreads = 256;

__device__ __forceinline__ double wide(uint16_t h) { return double(__uint_as_float(uint32_t(h) << 16)); }

// One k of a thread's 4 x 4 chains, column c of the two shared tiles: y += a b and mag += |a| |b|,
// each one fma from the chain before (the CPU's order). An affine code is >= 0: its |b| is itself.
template <int TK>
__device__ __forceinline__ void chains_step(const double (&as)[TK][kTile], const double (&bs)[TK][kTile], int c,
                                            int tx, int ty, double (&y)[4][4], double (&mag)[4][4]) {
  double a[4], b[4];
  for (int i = 0; i < 4; ++i) a[i] = as[c][ty + 16 * i];
  for (int j = 0; j < 4; ++j) b[j] = bs[c][tx + 16 * j];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      y[i][j] = __fma_rn(a[i], b[j], y[i][j]);
      mag[i][j] = __fma_rn(fabs(a[i]), fabs(b[j]), mag[i][j]);
    }
}

__global__ void __launch_bounds__(kThreads) dense_tile(const uint16_t* __restrict__ x, const uint16_t* __restrict__ w,
                                                        int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  constexpr int TK = 16;
  __shared__ double xs[TK][kTile], ws[TK][kTile];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t m0 = int64_t(blockIdx.y) * kTile, n0 = int64_t(blockIdx.x) * kTile;
  double acc[4][4], am[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = am[i][j] = 0.0;
  for (int64_t k0 = 0; k0 < K; k0 += TK) {
    const int kl = int(K - k0 < TK ? K - k0 : TK);
    for (int e = threadIdx.x; e < kTile * TK; e += kThreads) {
      const int r = e / TK, c = e % TK;
      const int64_t m = m0 + r, n = n0 + r;
      xs[c][r] = m < M && c < kl ? wide(x[m * K + k0 + c]) : 0.0;
      ws[c][r] = n < N && c < kl ? wide(w[n * K + k0 + c]) : 0.0;
    }
    __syncthreads();
    // Only real k: a padded zero would turn an accumulated -0 into +0.
    for (int c = 0; c < kl; ++c) chains_step(xs, ws, c, tx, ty, acc, am);
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int64_t m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < M && n < N) y[m * N + n] = acc[i][j], mag[m * N + n] = am[i][j];
    }
}

// Per row m and group g: sum x and sum |x| over the group's k ascending, from +0 (the CPU's
// group_sums_x).
__global__ void group_sums(const uint16_t* __restrict__ x, int64_t M, int64_t K, int group, double* gx) {
  const int64_t G = K / group, i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= M * G) return;
  const uint16_t* p = x + i / G * K + i % G * group;
  double s = 0.0, a = 0.0;
  for (int k = 0; k < group; ++k) {
    const double v = wide(p[k]);
    s = __dadd_rn(s, v);
    a = __dadd_rn(a, fabs(v));
  }
  gx[2 * i] = s, gx[2 * i + 1] = a;
}

__global__ void __launch_bounds__(kThreads) affine_tile(const uint16_t* __restrict__ x, const uint32_t* __restrict__ q,
                                                         const uint16_t* __restrict__ s, const uint16_t* __restrict__ b,
                                                         const double* __restrict__ gx, int bits, int group, int64_t wpr,
                                                         int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  constexpr int TK = 32;  // a group is whole chunks of 32 (group 32, 64 or 128; K a multiple of it)
  __shared__ double xs[TK][kTile], qs[TK][kTile];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t m0 = int64_t(blockIdx.y) * kTile, n0 = int64_t(blockIdx.x) * kTile, G = K / group;
  const uint32_t mask = (1u << bits) - 1;
  double acc[4][4], am[4][4], gq[4][4], gm[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = am[i][j] = gq[i][j] = gm[i][j] = 0.0;
  for (int64_t k0 = 0; k0 < K; k0 += TK) {
    for (int e = threadIdx.x; e < kTile * TK; e += kThreads) {
      const int r = e / TK, c = e % TK;
      const int64_t m = m0 + r, n = n0 + r, k = k0 + c;
      xs[c][r] = m < M ? wide(x[m * K + k]) : 0.0;
      uint32_t code = 0;
      if (n < N) {  // code k of row n: one little-endian bit stream (the CPU's code())
        const uint32_t* row = q + n * wpr;
        const uint64_t bit = uint64_t(k) * uint64_t(bits);
        uint64_t lo = row[bit / 32];
        if (bit % 32 + uint64_t(bits) > 32) lo |= uint64_t(row[bit / 32 + 1]) << 32;
        code = uint32_t(lo >> (bit % 32)) & mask;
      }
      qs[c][r] = double(code);
    }
    __syncthreads();
    for (int c = 0; c < TK; ++c) chains_step(xs, qs, c, tx, ty, gq, gm);
    __syncthreads();
    if ((k0 + TK) % group == 0) {  // the group ends: fold it with its scale and bias, start the next from +0
      const int64_t g = (k0 + TK) / group - 1;
      for (int j = 0; j < 4; ++j) {
        const int64_t n = n0 + tx + 16 * j;
        const double sv = n < N ? wide(s[n * G + g]) : 0.0, bv = n < N ? wide(b[n * G + g]) : 0.0;
        for (int i = 0; i < 4; ++i) {
          const int64_t m = m0 + ty + 16 * i;
          const double sx = m < M ? gx[2 * (m * G + g)] : 0.0, sa = m < M ? gx[2 * (m * G + g) + 1] : 0.0;
          acc[i][j] = __dadd_rn(acc[i][j], __dadd_rn(__dmul_rn(sv, gq[i][j]), __dmul_rn(bv, sx)));
          am[i][j] = __dadd_rn(am[i][j], __dadd_rn(__dmul_rn(fabs(sv), gm[i][j]), __dmul_rn(fabs(bv), sa)));
          gq[i][j] = gm[i][j] = 0.0;
        }
      }
    }
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int64_t m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < M && n < N) y[m * N + n] = acc[i][j], mag[m * N + n] = am[i][j];
    }
}

// Device buffers of one call, freed on every path.
struct Mem {
  void* p[8] = {};
  int n = 0;
  ~Mem() {
    for (int i = 0; i < n; ++i) cudaFree(p[i]);
  }
  template <class T> cudaError_t get(T*& out, size_t bytes) {
    void* v = nullptr;
    const cudaError_t e = cudaMalloc(&v, bytes ? bytes : 1);
    if (e == cudaSuccess) p[n++] = v;
    out = static_cast<T*>(v);
    return e;
  }
};

std::string err(const char* what, cudaError_t e) {
  return std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
}

dim3 tiles(int64_t M, int64_t N) { return dim3(unsigned((N + kTile - 1) / kTile), unsigned((M + kTile - 1) / kTile)); }

// Launches, then copies y and mag back; a failed allocation is not sticky, so it is cleared.
template <class Launch>
std::string finish(cudaError_t alloc, Launch&& launch, double* dy, double* dm, double* y, double* mag,
                   size_t outs) {
  if (alloc != cudaSuccess) {
    cudaGetLastError();
    return err("cudaMalloc", alloc);
  }
  launch();
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return err("launch", e);
  if (cudaError_t e = cudaMemcpy(y, dy, outs * sizeof(double), cudaMemcpyDeviceToHost); e != cudaSuccess)
    return err("cudaMemcpy y", e);
  if (cudaError_t e = cudaMemcpy(mag, dm, outs * sizeof(double), cudaMemcpyDeviceToHost); e != cudaSuccess)
    return err("cudaMemcpy mag", e);
  return {};
}

}  // namespace

std::string dense(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  if (M <= 0 || N <= 0) return {};
  Mem mem;
  uint16_t *dx = nullptr, *dw = nullptr;
  double *dy = nullptr, *dm = nullptr;
  const size_t outs = size_t(M) * size_t(N);
  cudaError_t e = mem.get(dx, size_t(M) * K * 2);
  if (e == cudaSuccess) e = mem.get(dw, size_t(N) * K * 2);
  if (e == cudaSuccess) e = mem.get(dy, outs * 8);
  if (e == cudaSuccess) e = mem.get(dm, outs * 8);
  if (e == cudaSuccess) e = cudaMemcpy(dx, x, size_t(M) * K * 2, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(dw, w, size_t(N) * K * 2, cudaMemcpyHostToDevice);
  return finish(e, [&] { dense_tile<<<tiles(M, N), kThreads>>>(dx, dw, M, N, K, dy, dm); }, dy, dm, y, mag, outs);
}

std::string affine(const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  if (M <= 0 || N <= 0) return {};
  if (w.group % 32 != 0 || K % w.group != 0 || w.bits < 1 || w.bits > 8)
    return "bits " + std::to_string(w.bits) + ", group " + std::to_string(w.group) + " and k " + std::to_string(K) +
           " are not an affine shape it takes (k whole groups of 32, 64 or 128)";
  Mem mem;
  const int64_t G = K / w.group;
  uint16_t *dx = nullptr, *ds = nullptr, *db = nullptr;
  uint32_t* dq = nullptr;
  double *dgx = nullptr, *dy = nullptr, *dm = nullptr;
  const size_t outs = size_t(M) * size_t(N);
  cudaError_t e = mem.get(dx, size_t(M) * K * 2);
  if (e == cudaSuccess) e = mem.get(dq, size_t(N) * w.wpr * 4);
  if (e == cudaSuccess) e = mem.get(ds, size_t(N) * G * 2);
  if (e == cudaSuccess) e = mem.get(db, size_t(N) * G * 2);
  if (e == cudaSuccess) e = mem.get(dgx, size_t(M) * G * 16);
  if (e == cudaSuccess) e = mem.get(dy, outs * 8);
  if (e == cudaSuccess) e = mem.get(dm, outs * 8);
  if (e == cudaSuccess) e = cudaMemcpy(dx, x, size_t(M) * K * 2, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(dq, w.q, size_t(N) * w.wpr * 4, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(ds, w.s, size_t(N) * G * 2, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(db, w.b, size_t(N) * G * 2, cudaMemcpyHostToDevice);
  return finish(
      e,
      [&] {
        group_sums<<<unsigned((M * G + 255) / 256), 256>>>(dx, M, K, w.group, dgx);
        affine_tile<<<tiles(M, N), kThreads>>>(dx, dq, ds, db, dgx, w.bits, w.group, w.wpr, M, N, K, dy, dm);
      },
      dy, dm, y, mag, outs);
}

}  // namespace kc::cuda_ref
