// The dense and affine float64 references on a CUDA device (ref_f64.hpp). Each output is one
// thread's chain, in the CPU's order and ops (families/dense/src/ref_gemm_body.hpp): sums from +0
// over k ascending, exact products fused (__fma_rn of a bf16 by a bf16 or a code is the product's
// add), a group folded as y + ((s * sum xq) + (b * sum x)) with each op rounded alone (__dmul_rn,
// __dadd_rn: nothing for nvcc to contract). So the doubles equal the CPU's bit for bit; core checks
// that before a run uses them (check_ref_device). The work is a plain 64 x 64 shared-memory tile:
// H200's fp64 units do in about a second what 16 cores do in half a minute.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

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

// Device buffers of one call, freed on every path but those released to a Resident.
struct Mem {
  void* p[8] = {};
  int n = 0;
  ~Mem() {
    for (int i = 0; i < n; ++i)
      if (p[i]) cudaFree(p[i]);
  }
  template <class T> cudaError_t get(T*& out, size_t bytes) {
    void* v = nullptr;
    const cudaError_t e = cudaMalloc(&v, bytes ? bytes : 1);
    if (e == cudaSuccess) p[n++] = v;
    out = static_cast<T*>(v);
    return e;
  }
  void release(const void* v) {
    for (int i = 0; i < n; ++i)
      if (p[i] == v) p[i] = nullptr;
  }
};

std::string err(const char* what, cudaError_t e) {
  return std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
}

dim3 tiles(int64_t M, int64_t N) { return dim3(unsigned((N + kTile - 1) / kTile), unsigned((M + kTile - 1) / kTile)); }

// One block's share of a check (RefChecked, reduced on the host over blocks in block order).
struct Part {
  unsigned long long outside, worst, near;
  double worst_ratio, near_ratio;
};
constexpr int kCheckBlocks = 1024, kCheckThreads = 256;

template <class T> __device__ __forceinline__ double as_double(const T* p, uint64_t i);
template <> __device__ __forceinline__ double as_double(const uint16_t* p, uint64_t i) { return wide(p[i]); }  // bf16
template <> __device__ __forceinline__ double as_double(const float* p, uint64_t i) { return double(p[i]); }
template <> __device__ __forceinline__ double as_double(const double* p, uint64_t i) { return p[i]; }
struct F16 {
  uint16_t bits;
};
template <> __device__ __forceinline__ double as_double(const F16* p, uint64_t i) {
  return double(__half2float(__ushort_as_half(p[i].bits)));
}

// Is (r, i) worse than (best, at): the larger ratio, the lower index on a tie. -1 and the index
// count stand for none.
__device__ __forceinline__ bool ahead(double r, unsigned long long i, double best, unsigned long long at) {
  return r > best || (r == best && i < at);
}

// compare()'s pass (core/src/gates/common.cpp) over every output: each thread a strided share in
// ascending order, then the block's, each op rounded alone as on the host.
template <class T>
__global__ void __launch_bounds__(kCheckThreads) check_kernel(const double* __restrict__ want, const double* __restrict__ mag,
                                                             const T* __restrict__ got, uint64_t n, double kr, double ka,
                                                             double kg, double kf, Part* parts) {
  const unsigned long long none = ~0ull;
  unsigned long long outside = 0, worst = none, near = none;
  double wr = -1, nr = -1;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const double w = want[i], g = as_double(got, i);
    double ratio;
    if (!isfinite(w) || !isfinite(g)) {
      if ((isnan(w) && isnan(g)) || w == g) continue;
      ratio = CUDART_INF;
    } else {
      const double aw = fabs(w);
      const double bound = __dadd_rn(__dadd_rn(__dadd_rn(__dmul_rn(kr, aw), __dmul_rn(ka, aw)), __dmul_rn(kg, fabs(mag[i]))), kf);
      const double e = fabs(__dsub_rn(g, w));
      if (e <= bound) {
        double r = 0;
        if (bound > 0) {
          r = __ddiv_rn(e, bound);
          r = r < 1.0 ? r : 1.0;
        }
        if (r > nr) nr = r, near = i;
        continue;
      }
      ratio = bound > 0 ? __ddiv_rn(e, bound) : CUDART_INF;
    }
    ++outside;
    if (ratio > wr) wr = ratio, worst = i;
  }
  __shared__ unsigned long long s_out[kCheckThreads], s_worst[kCheckThreads], s_near[kCheckThreads];
  __shared__ double s_wr[kCheckThreads], s_nr[kCheckThreads];
  const int t = threadIdx.x;
  s_out[t] = outside, s_worst[t] = worst, s_near[t] = near, s_wr[t] = wr, s_nr[t] = nr;
  __syncthreads();
  for (int h = kCheckThreads / 2; h > 0; h /= 2) {
    if (t < h) {
      s_out[t] += s_out[t + h];
      if (s_worst[t + h] != none && (s_worst[t] == none || ahead(s_wr[t + h], s_worst[t + h], s_wr[t], s_worst[t])))
        s_wr[t] = s_wr[t + h], s_worst[t] = s_worst[t + h];
      if (s_near[t + h] != none && (s_near[t] == none || ahead(s_nr[t + h], s_near[t + h], s_nr[t], s_near[t])))
        s_nr[t] = s_nr[t + h], s_near[t] = s_near[t + h];
    }
    __syncthreads();
  }
  if (t == 0) parts[blockIdx.x] = {s_out[0], s_worst[0], s_near[0], s_wr[0], s_nr[0]};
}

// A buffer's answers kept on the device (kc/ref_device.hpp's RefResident): y and mag of n outputs.
class Resident final : public RefResident {
 public:
  Resident(double* y, double* mag, uint64_t n) : y_(y), mag_(mag), n_(n) {}
  ~Resident() override {
    cudaFree(y_);
    cudaFree(mag_);
  }
  uint64_t count() const override { return n_; }
  std::string at(uint64_t i, double& want, double& mag) const override {
    if (i >= n_) return "output " + std::to_string(i) + " of " + std::to_string(n_);
    if (cudaError_t e = cudaMemcpy(&want, y_ + i, 8, cudaMemcpyDeviceToHost); e != cudaSuccess) return err("cudaMemcpy", e);
    if (cudaError_t e = cudaMemcpy(&mag, mag_ + i, 8, cudaMemcpyDeviceToHost); e != cudaSuccess) return err("cudaMemcpy", e);
    return {};
  }
  std::string fetch(double* want, double* mag) const override {
    if (cudaError_t e = cudaMemcpy(want, y_, n_ * 8, cudaMemcpyDeviceToHost); e != cudaSuccess) return err("cudaMemcpy y", e);
    if (cudaError_t e = cudaMemcpy(mag, mag_, n_ * 8, cudaMemcpyDeviceToHost); e != cudaSuccess) return err("cudaMemcpy mag", e);
    return {};
  }
  std::string check(const void* got, DType t, const RefBound& k, RefChecked& out) const override {
    size_t es = 0;
    switch (t) {
      case DType::bf16: case DType::f16: es = 2; break;
      case DType::f32: es = 4; break;
      case DType::f64: es = 8; break;
      default: return std::string("outputs of type ") + dtype_name(t) + " are not checked on the device";
    }
    Mem mem;
    void* dg = nullptr;
    Part* dp = nullptr;
    cudaError_t e = mem.get(dg, n_ * es);
    if (e == cudaSuccess) e = mem.get(dp, sizeof(Part) * kCheckBlocks);
    if (e == cudaSuccess) e = cudaMemcpy(dg, got, n_ * es, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
      cudaGetLastError();
      return err("the check's buffers", e);
    }
    const unsigned blocks = unsigned(std::min<uint64_t>(kCheckBlocks, (n_ + kCheckThreads - 1) / kCheckThreads));
    switch (t) {
      case DType::bf16: check_kernel<<<blocks, kCheckThreads>>>(y_, mag_, static_cast<const uint16_t*>(dg), n_, k.r, k.a, k.g, k.floor, dp); break;
      case DType::f16: check_kernel<<<blocks, kCheckThreads>>>(y_, mag_, static_cast<const F16*>(dg), n_, k.r, k.a, k.g, k.floor, dp); break;
      case DType::f32: check_kernel<<<blocks, kCheckThreads>>>(y_, mag_, static_cast<const float*>(dg), n_, k.r, k.a, k.g, k.floor, dp); break;
      default: check_kernel<<<blocks, kCheckThreads>>>(y_, mag_, static_cast<const double*>(dg), n_, k.r, k.a, k.g, k.floor, dp); break;
    }
    if (cudaError_t le = cudaGetLastError(); le != cudaSuccess) return err("the check's launch", le);
    std::vector<Part> parts(blocks);
    if (cudaError_t ce = cudaMemcpy(parts.data(), dp, sizeof(Part) * blocks, cudaMemcpyDeviceToHost); ce != cudaSuccess)
      return err("the check's result", ce);
    const unsigned long long none = ~0ull;
    out = RefChecked{};
    unsigned long long worst = none, near = none;
    double wr = -1, nr = -1;
    for (const Part& p : parts) {
      out.outside += p.outside;
      if (p.worst != none && (worst == none || p.worst_ratio > wr || (p.worst_ratio == wr && p.worst < worst)))
        wr = p.worst_ratio, worst = p.worst;
      if (p.near != none && (near == none || p.near_ratio > nr || (p.near_ratio == nr && p.near < near)))
        nr = p.near_ratio, near = p.near;
    }
    if (worst != none) out.worst = worst, out.worst_ratio = wr;
    if (near != none) out.near = near, out.near_ratio = nr;
    return {};
  }

 private:
  double* y_;
  double* mag_;
  uint64_t n_;
};

// Launches; then either copies y and mag back (keep null) or hands them to a Resident. A failed
// allocation is not sticky, so it is cleared.
template <class Launch>
std::string finish(cudaError_t alloc, Launch&& launch, Mem& mem, double* dy, double* dm, double* y, double* mag,
                   size_t outs, std::unique_ptr<RefResident>* keep) {
  if (alloc != cudaSuccess) {
    cudaGetLastError();
    return err("cudaMalloc", alloc);
  }
  launch();
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return err("launch", e);
  if (keep) {
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return err("the reference's kernels", e);
    mem.release(dy);
    mem.release(dm);
    *keep = std::make_unique<Resident>(dy, dm, outs);
    return {};
  }
  if (cudaError_t e = cudaMemcpy(y, dy, outs * sizeof(double), cudaMemcpyDeviceToHost); e != cudaSuccess)
    return err("cudaMemcpy y", e);
  if (cudaError_t e = cudaMemcpy(mag, dm, outs * sizeof(double), cudaMemcpyDeviceToHost); e != cudaSuccess)
    return err("cudaMemcpy mag", e);
  return {};
}

std::string dense_to(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag,
                     std::unique_ptr<RefResident>* keep) {
  if (M <= 0 || N <= 0) return keep ? "no outputs" : "";
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
  return finish(e, [&] { dense_tile<<<tiles(M, N), kThreads>>>(dx, dw, M, N, K, dy, dm); }, mem, dy, dm, y, mag, outs,
                keep);
}

std::string affine_to(const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag,
                      std::unique_ptr<RefResident>* keep) {
  if (M <= 0 || N <= 0) return keep ? "no outputs" : "";
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
      mem, dy, dm, y, mag, outs, keep);
}

}  // namespace

std::string dense(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  return dense_to(x, w, M, N, K, y, mag, nullptr);
}
std::string affine(const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  return affine_to(x, w, M, N, K, y, mag, nullptr);
}
std::string dense_kept(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, std::unique_ptr<RefResident>& out) {
  return dense_to(x, w, M, N, K, nullptr, nullptr, &out);
}
std::string affine_kept(const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K,
                        std::unique_ptr<RefResident>& out) {
  return affine_to(x, w, M, N, K, nullptr, nullptr, &out);
}

}  // namespace kc::cuda_ref
