// Speed of the block-scaled CUDA kernels (standalone, no harness): the FP8 wgmma GEMM
// (kernels/blockscaled/fp8_gemm) in its three scale forms, and the FP8 and FP4 GEMVs
// (kernels/blockscaled/bs_gemv.cuh) beside the device-to-device copy of the same weight bytes.
//   bench_fp8            the shapes below
//   bench_fp8 --once     each launch once, untimed
//   bench_fp8 --check    only the checks below (small: for compute-sanitizer)
// Prints CSV: kernel,form,m,n,k,us,tflops,bytes,GBps. Before timing, each GEMM form's output is
// checked against its CUDA-core twin (fp8_gemm.cuh) at one ragged shape: a fast wrong kernel stops
// the run. Method (bench_rows.cu's): sets of every buffer holding together >= 4x the L2, launches
// rotating through them back to back between two events, the median of 7 timings.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench/cuda/bench_check.cuh"
#include "kernels/blockscaled/fp8_gemm/fp8_gemm.cuh"
#include "kernels/blockscaled/fp8_gemm/fp8_gemm_sm90a.cuh"

namespace {
using namespace kc::bs_cu;
bool g_once = false;
size_t g_l2 = 0;

double time_us(const std::function<void(int)>& f, int sets, int reps) { return kc_bench::time_us(f, sets, reps, g_once); }

// Device buffers of random bytes: e4m3 codes without the NaN codes, FP4 pairs, or scales.
struct Buf {
  void* p = nullptr;
  size_t bytes = 0;
};
Buf codes(size_t n, std::mt19937& r) {
  std::vector<uint8_t> h(n);
  for (auto& c : h) {
    c = uint8_t(r());
    if ((c & 0x7F) == 0x7F) c ^= 1;
  }
  Buf b{nullptr, n};
  CK(cudaMalloc(&b.p, n));
  CK(cudaMemcpy(b.p, h.data(), n, cudaMemcpyHostToDevice));
  return b;
}
Buf floats(size_t n, std::mt19937& r, float lo, float hi) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> h(n);
  for (auto& v : h) v = u(r);
  Buf b{nullptr, n * 4};
  CK(cudaMalloc(&b.p, b.bytes));
  CK(cudaMemcpy(b.p, h.data(), b.bytes, cudaMemcpyHostToDevice));
  return b;
}
Buf bf16s(size_t n, std::mt19937& r) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<uint16_t> h(n);
  for (auto& v : h) {
    const float f = u(r);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    v = uint16_t(b >> 16);
  }
  Buf d{nullptr, n * 2};
  CK(cudaMalloc(&d.p, d.bytes));
  CK(cudaMemcpy(d.p, h.data(), d.bytes, cudaMemcpyHostToDevice));
  return d;
}
Buf e8m0s(size_t n, std::mt19937& r, uint8_t lo, uint8_t hi) {
  std::vector<uint8_t> h(n);
  for (auto& c : h) c = uint8_t(lo + r() % (hi - lo + 1));
  Buf b{nullptr, n};
  CK(cudaMalloc(&b.p, n));
  CK(cudaMemcpy(b.p, h.data(), n, cudaMemcpyHostToDevice));
  return b;
}
void release(std::vector<Buf>& v) {
  for (auto& b : v) CK(cudaFree(b.p));
  v.clear();
}
int sets_for(double bytes) { return int(std::min(16.0, std::max(1.0, std::ceil(4.0 * double(g_l2) / bytes)))); }

// One GEMM input set: xq [m x k], sx (per tensor or [m x k/128]), q [n x k], s (one, n, or blocks).
struct GemmSet {
  Buf xq, sx, q, s, y;
};
template <int W, int A> GemmSet gemm_set(int M, int N, int K, std::mt19937& r) {
  const int kb = (K + 127) / 128;
  GemmSet g;
  g.xq = codes(size_t(M) * K, r);
  g.q = codes(size_t(N) * K, r);
  g.sx = floats(A == a_fp8_group ? size_t(M) * kb : 1, r, 0.01f, 0.02f);
  g.s = floats(W == w_tensor ? 1 : W == w_channel ? size_t(N) : size_t((N + 127) / 128) * kb, r, 0.01f, 0.02f);
  CK(cudaMalloc(&g.y.p, size_t(M) * N * 2));
  g.y.bytes = size_t(M) * N * 2;
  return g;
}
void free_set(GemmSet& g) {
  std::vector<Buf> v{g.xq, g.sx, g.q, g.s, g.y};
  release(v);
}
template <int W, int A> void wgmma(const GemmSet& g, int M, int N, int K) {
  kc_fp8_gemm_wgmma<W, A, __nv_bfloat16><<<unsigned((M + 127) / 128) * unsigned((N + 127) / 128), kc::fp8gemm::kThreads,
                                           kc::fp8gemm::kSmemBytes>>>(
      (const uint8_t*)g.xq.p, (const float*)g.sx.p, (const uint8_t*)g.q.p, (const float*)g.s.p, (__nv_bfloat16*)g.y.p, M, N, K);
}
template <int W, int A> void simt(const GemmSet& g, int M, int N, int K) {
  kc_fp8_gemm_simt<W, A, __nv_bfloat16><<<dim3(unsigned((N + 63) / 64), unsigned((M + 63) / 64)), 256>>>(
      (const uint8_t*)g.xq.p, (const float*)g.sx.p, (const uint8_t*)g.q.p, (const float*)g.s.p, (__nv_bfloat16*)g.y.p, M, N, K);
}
float bf16_to_f32(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The wgmma form against its CUDA-core twin on the same inputs: every output within 1% of the
// larger of its value and the output's scale (bf16 outputs of sums the tensor cores keep to 14 bits).
template <int W, int A> void check(const char* form) {
  const int M = 200, N = 264, K = 1040;
  std::mt19937 r(7);
  GemmSet g = gemm_set<W, A>(M, N, K, r);
  std::vector<uint16_t> a(size_t(M) * N), b(a.size());
  wgmma<W, A>(g, M, N, K);
  CK(cudaMemcpy(a.data(), g.y.p, a.size() * 2, cudaMemcpyDeviceToHost));
  simt<W, A>(g, M, N, K);
  CK(cudaMemcpy(b.data(), g.y.p, b.size() * 2, cudaMemcpyDeviceToHost));
  double scale = 0, worst = 0;
  for (auto v : b) scale = std::max(scale, double(std::fabs(bf16_to_f32(v))));
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::fabs(double(bf16_to_f32(a[i])) - bf16_to_f32(b[i])) / std::max(scale, 1e-30));
  std::fprintf(stderr, "check %s: wgmma vs CUDA cores at %dx%dx%d, worst difference %.2e of the outputs' scale\n", form, M, N,
               K, worst);
  if (!(worst < 1e-2)) {
    std::fprintf(stderr, "check %s FAILED\n", form);
    std::exit(1);
  }
  free_set(g);
}

template <int W, int A> void gemm(const char* form, int M, int N, int K) {
  std::mt19937 r(1);
  const double bytes = double(M) * K + double(N) * K + 2.0 * M * N;
  const int sets = sets_for(bytes);
  std::vector<GemmSet> gs;
  for (int i = 0; i < sets; ++i) gs.push_back(gemm_set<W, A>(M, N, K, r));
  const double flop = 2.0 * M * N * K;
  const int reps = int(std::max(3.0, std::min(200.0, 2e12 / flop)));
  const double us = time_us([&](int i) { wgmma<W, A>(gs[size_t(i)], M, N, K); }, sets, reps);
  std::printf("gemm/wgmma,%s,%d,%d,%d,%.2f,%.1f,%.0f,%.1f\n", form, M, N, K, us, flop / us * 1e-6, bytes, bytes / us * 1e-3);
  for (auto& g : gs) free_set(g);
}

// GEMV forms: FP8 (per tensor, 128 x 128 blocks) and FP4 (MXFP4, NVFP4), bf16 x, M rows.
template <int MT, int W, bool FP4> void gemv(const char* form, int M, int N, int K) {
  std::mt19937 r(2);
  const size_t qbytes = FP4 ? size_t(N) * K / 2 : size_t(N) * K;
  const int kb = (K + 127) / 128, B = W == w_mx ? 32 : 16;
  const size_t sbytes = FP4 ? size_t(N) * (K / B) : W == w_tensor ? 4 : size_t((N + 127) / 128) * kb * 4;
  const double bytes = double(qbytes + sbytes) + 2.0 * M * K + 2.0 * M * N;
  const int sets = sets_for(bytes);
  std::vector<std::vector<Buf>> bs;
  for (int i = 0; i < sets; ++i) {
    std::vector<Buf> v;
    v.push_back(codes(qbytes, r));
    v.push_back(FP4 ? e8m0s(sbytes, r, W == w_mx ? 120 : 0x20, W == w_mx ? 127 : 0x38) : floats(sbytes / 4, r, 0.01f, 0.02f));
    v.push_back(bf16s(size_t(M) * K, r));  // x
    v.push_back(floats(1, r, 1, 1));        // g (NVFP4)
    Buf y, dst;
    CK(cudaMalloc(&y.p, size_t(M) * N * 2));
    CK(cudaMalloc(&dst.p, qbytes));
    v.push_back(y);
    v.push_back(dst);  // the copy's destination
    bs.push_back(v);
  }
  const unsigned blocks = unsigned((N + kWarps - 1) / kWarps);
  const int reps = int(std::max(5.0, std::min(400.0, 4e9 / bytes)));
  const double us = time_us([&](int i) {
    auto& v = bs[size_t(i)];
    if constexpr (FP4)
      kc_bs_fp4_gemv<MT, __nv_bfloat16, W><<<blocks, kThreads>>>((const uint16_t*)v[2].p, (const uint8_t*)v[0].p,
                                                                 (const uint8_t*)v[1].p, (const float*)v[3].p,
                                                                 (__nv_bfloat16*)v[4].p, M, N, K);
    else
      kc_bs_fp8_gemv<MT, __nv_bfloat16, W, a_bf16><<<blocks, kThreads>>>(v[2].p, nullptr, (const uint8_t*)v[0].p,
                                                                          (const float*)v[1].p, (__nv_bfloat16*)v[4].p, M, N, K);
  }, sets, reps);
  std::printf("gemv,%s,%d,%d,%d,%.2f,%.1f,%.0f,%.1f\n", form, M, N, K, us, 2.0 * M * N * K / us * 1e-6, bytes, bytes / us * 1e-3);
  // The copy of the same weight bytes (read + written), timed the same way.
  const double cus = time_us([&](int i) {
    auto& v = bs[size_t(i)];
    CK(cudaMemcpyAsync(v[5].p, v[0].p, qbytes, cudaMemcpyDeviceToDevice));
  }, sets, reps);
  std::printf("copy/memcpy,%s,%d,%d,%d,%.2f,0,%.0f,%.1f\n", form, M, N, K, cus, 2.0 * qbytes, 2.0 * qbytes / cus * 1e-3);
  for (auto& v : bs) release(v);
}
}  // namespace

int main(int argc, char** argv) {
  g_once = argc > 1 && std::string(argv[1]) == "--once";
  int dev = 0, l2 = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  g_l2 = size_t(l2);
  CK(cudaFuncSetAttribute(kc_fp8_gemm_wgmma<w_tensor, a_fp8_tensor, __nv_bfloat16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          kc::fp8gemm::kSmemBytes));
  CK(cudaFuncSetAttribute(kc_fp8_gemm_wgmma<w_channel, a_fp8_tensor, __nv_bfloat16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          kc::fp8gemm::kSmemBytes));
  CK(cudaFuncSetAttribute(kc_fp8_gemm_wgmma<w_block128, a_fp8_group, __nv_bfloat16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          kc::fp8gemm::kSmemBytes));
  check<w_tensor, a_fp8_tensor>("tensor");
  check<w_channel, a_fp8_tensor>("channel");
  check<w_block128, a_fp8_group>("block128");
  if (argc > 1 && std::string(argv[1]) == "--check") return 0;
  std::printf("kernel,form,m,n,k,us,tflops,bytes,GBps\n");
  const int nk[][2] = {{4096, 4096}, {14336, 4096}, {4096, 14336}};
  for (int M : {512, 2048, 8192})
    for (auto& p : nk) {
      gemm<w_tensor, a_fp8_tensor>("tensor", M, p[0], p[1]);
      gemm<w_channel, a_fp8_tensor>("channel", M, p[0], p[1]);
      gemm<w_block128, a_fp8_group>("block128", M, p[0], p[1]);
    }
  for (auto& p : nk) {
    for (int M : {1, 8, 32}) {
      auto go = [&](auto mt) {
        constexpr int MT = decltype(mt)::value;
        gemv<MT, w_tensor, false>("fp8_tensor", M, p[0], p[1]);
        gemv<MT, w_block128, false>("fp8_block128", M, p[0], p[1]);
        gemv<MT, w_mx, true>("mxfp4", M, p[0], p[1]);
        gemv<MT, w_nv, true>("nvfp4", M, p[0], p[1]);
      };
      if (M <= 8) go(std::integral_constant<int, 8>{});
      else go(std::integral_constant<int, 32>{});
    }
  }
  return 0;
}
