// H200 benchmark of the dense and affine projections, side by side with measured copy bandwidth
// and cuBLAS (bf16 in, fp32 compute): decode GEMV and its split-K form at 1, 8 and 32 rows, the
// tensor-core prompt GEMM at 512..8,192 rows, the MLX affine decode against its bytes moved.
// Standalone (nvcc -O3 -arch=sm_90 -std=c++17 bench_dense.cu -lcublas); prints one table a part.
// Decode timing (dense and affine): weights rotate through copies totalling at least 256 MiB (L2 is
// 60 MiB on an H200), one copy a launch, so every launch reads its weights from HBM, not from cache;
// launches go back to back, as an engine issues them, and a decode time is the median over 11 batches
// of 20 such launches of a batch's time / 20 (launch gaps included, one launch's start-up not
// exposed alone). Each kernel's output is also compared with cuBLAS's (max relative error).
// Two copy baselines: '%copy' against a 1 GiB copy (the device's bandwidth), '%same' against copying
// the weights' own bytes, timed the same way (back to back, rotating copies): at 8 to 32 MiB even a
// copy does not reach the 1 GiB rate (launch and ramp), and bench/cuda/bench_rows.cu compares the
// same way. The affine decode launches chained (kc_pdl.cuh) where the served launcher does (its
// bulk-copy form; its mma.sync kernel where the grid fills the device): back to back, a launch starts
// while the one ahead ends (the copies and cuBLAS are plain launches).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../../../kernels/affine/qmm/qmm.cuh"
#include "../../../kernels/affine/qmv/qmv.cuh"
#include "../../../kernels/dense/gemm/gemm.cuh"
#include "../../../kernels/dense/gemv/gemv.cuh"
#include "../bench_check.cuh"
// -DKC_QMV_TRIAL='"file"': a header holding another qmv as kc::affine_trial::launch_qmv (e.g. the
// staged-code qmv of commit 6ab27e2), timed beside the served one in the affine decode table and
// checked against the same reference (a kernel change measured in one run).
#if defined(KC_QMV_TRIAL)
#include KC_QMV_TRIAL
#endif
// -DKC_GEMV_TRIAL='"file"': the same for the decode GEMV (kc::dense_trial::launch_gemv), timed after
// the served one at each decode shape, with the count of outputs whose bits differ from it.
#if defined(KC_GEMV_TRIAL)
#include KC_GEMV_TRIAL
#endif


namespace {

__global__ void fill_bf16(__nv_bfloat16* p, size_t n, uint32_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    p[i] = __float2bfloat16((float(h & 0xffff) / 65536.f - 0.5f) * scale);
  }
}
__global__ void fill_u32(uint32_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    p[i] = h;
  }
}
// The affine decode's check: one thread an output, fp32 sums in k order, MLX's factored form.
__global__ void ref_affine(int bits, int group, const __nv_bfloat16* x, const uint32_t* q, const __nv_bfloat16* s,
                           const __nv_bfloat16* b, __nv_bfloat16* y, int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N) return;
  const uint32_t* qr = q + size_t(n) * (K / 32) * bits;
  float acc = 0;
  for (int g = 0; g < K / group; ++g) {
    float a = 0, xs = 0;
    for (int k = g * group; k < (g + 1) * group; ++k) {
      const long bit = long(k) * bits;
      uint64_t v = qr[bit / 32];
      if (bit % 32 + bits > 32) v |= uint64_t(qr[bit / 32 + 1]) << 32;
      const float xv = __bfloat162float(x[size_t(m) * K + k]);
      a += xv * float((v >> (bit % 32)) & ((1u << bits) - 1));
      xs += xv;
    }
    acc += __bfloat162float(s[size_t(n) * (K / group) + g]) * a + __bfloat162float(b[size_t(n) * (K / group) + g]) * xs;
  }
  y[size_t(m) * N + n] = __float2bfloat16(acc);
}
__global__ void copy_kernel(const uint4* __restrict__ a, uint4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    b[i] = a[i];
}

// Median of `reps` timed launches (each launch given the rotation index).
double time_ms(const std::function<void(int)>& f, int reps = 30) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f(i);
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    f(i);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Decode timing: per-launch ms, the median over 11 batches of 20 back-to-back launches (each launch
// given its rotation index, so consecutive launches read different weight copies).
double time_stream_ms(const std::function<void(int)>& f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i) f(i);
  std::vector<float> t;
  int it = 0;
  for (int r = 0; r < 11; ++r) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < 20; ++i) f(it++);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms / 20);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// GB/s (read + write) of copying `bytes` device to device, sources rotating through copies that
// total at least 256 MiB, timed as the decode kernels are: the faster of cudaMemcpyAsync and the
// 16-byte copy kernel.
double same_copy_gbs(size_t bytes, int sms) {
  bytes = (bytes + 15) / 16 * 16;
  const int copies = int(std::max<size_t>(2, (size_t(256) << 20) / bytes + 1));
  std::vector<uint4*> src(copies);
  for (auto& p : src) {
    CK(cudaMalloc(&p, bytes));
    CK(cudaMemset(p, 1, bytes));
  }
  uint4* dst;
  CK(cudaMalloc(&dst, bytes));
  const double tm = time_stream_ms([&](int i) {
    CK(cudaMemcpyAsync(dst, src[i % copies], bytes, cudaMemcpyDeviceToDevice));
  });
  const double tk = time_stream_ms([&](int i) { copy_kernel<<<sms * 8, 256>>>(src[i % copies], dst, bytes / 16); });
  for (auto p : src) CK(cudaFree(p));
  CK(cudaFree(dst));
  return 2.0 * double(bytes) / std::min(tm, tk) / 1e6;
}

__nv_bfloat16* alloc_bf16(size_t n, uint32_t seed, float scale) {
  __nv_bfloat16* p;
  CK(cudaMalloc(&p, n * 2));
  fill_bf16<<<1024, 256>>>(p, n, seed, scale);
  return p;
}

double max_rel(const __nv_bfloat16* a, const __nv_bfloat16* b, size_t n) {
  std::vector<__nv_bfloat16> ha(n), hb(n);
  CK(cudaMemcpy(ha.data(), a, n * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, n * 2, cudaMemcpyDeviceToHost));
  double mx = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(double(__bfloat162float(hb[i]))));
  for (size_t i = 0; i < n; ++i)
    mx = std::max(mx, std::fabs(double(__bfloat162float(ha[i])) - double(__bfloat162float(hb[i]))));
  return scale > 0 ? mx / scale : mx;
}

void cublas_gemm(cublasHandle_t h, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int M, int N,
                 int K) {
  const float one = 1.f, zero = 0.f;
  // Row-major y = x W^T is column-major y^T = W x^T: W is k x n column-major, read transposed.
  CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, CUDA_R_16BF, K, x, CUDA_R_16BF, K, &zero, y,
                  CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  cublasHandle_t h;
  CB(cublasCreate(&h));

  // Copy bandwidth: a 1 GiB device-to-device copy (read + write), by cudaMemcpy and by a kernel.
  const size_t cbytes = size_t(1) << 30;
  uint4 *ca, *cb;
  CK(cudaMalloc(&ca, cbytes));
  CK(cudaMalloc(&cb, cbytes));
  CK(cudaMemset(ca, 1, cbytes));
  double t_memcpy = time_ms([&](int) { CK(cudaMemcpyAsync(cb, ca, cbytes, cudaMemcpyDeviceToDevice)); }, 10);
  double t_kcopy = time_ms([&](int) { copy_kernel<<<prop.multiProcessorCount * 8, 256>>>(ca, cb, cbytes / 16); }, 10);
  const double bw_memcpy = 2.0 * cbytes / t_memcpy / 1e6, bw_kcopy = 2.0 * cbytes / t_kcopy / 1e6;
  const double copy_bw = std::max(bw_memcpy, bw_kcopy);  // GB/s
  std::printf("copy bandwidth: cudaMemcpy %.0f GB/s, copy kernel %.0f GB/s (reference: %.0f GB/s)\n\n", bw_memcpy,
              bw_kcopy, copy_bw);
  CK(cudaFree(ca));
  CK(cudaFree(cb));

  // KC_BENCH_PART=affine runs the affine tables only.
  const char* part = std::getenv("KC_BENCH_PART");
  const bool dense_parts = !(part && std::string(part) == "affine");
  // ---- decode ----------------------------------------------------------------------------------
  if (dense_parts) {
  std::printf("DECODE bf16 y = x W^T (GB/s = weight+x+y bytes / time; %% of the 1 GiB copy and of a copy of the weights)\n");
  std::printf("%-6s %-6s %-6s | %9s %7s %6s %6s | %9s %6s %6s | %9s %6s %6s | %9s %9s\n", "M", "N", "K", "gemv us",
              "GB/s", "%copy", "%same", "splitk us", "%copy", "%same", "cublas us", "%copy", "%same", "err gemv",
              "err splk");
  const int shapes[][2] = {{4096, 4096}, {14336, 4096}, {4096, 14336}};
  for (auto& nk : shapes) {
    const int N = nk[0], K = nk[1];
    const size_t wn = size_t(N) * K;
    const int copies = int(std::max<size_t>(2, (size_t(256) << 20) / (wn * 2) + 1));
    std::vector<__nv_bfloat16*> ws(copies);
    for (int c = 0; c < copies; ++c) ws[c] = alloc_bf16(wn, 100 + c, 0.125f);
    const double same_bw = same_copy_gbs(wn * 2, prop.multiProcessorCount);
    std::printf("  copy of the %zu MiB of weights: %.0f GB/s\n", wn * 2 >> 20, same_bw);
    for (int M : {1, 8, 32}) {
      if (const char* only = std::getenv("KC_BENCH_GEMV")) {  // "M,N,K": that decode shape only (for ncu)
        int m = 0, n = 0, k = 0;
        if (std::sscanf(only, "%d,%d,%d", &m, &n, &k) == 3 && (m != M || n != N || k != K)) continue;
      }
      __nv_bfloat16* x = alloc_bf16(size_t(M) * K, 7, 2.f);
      __nv_bfloat16 *y, *yr;
      float* wsp;
      CK(cudaMalloc(&y, size_t(M) * N * 2));
      CK(cudaMalloc(&yr, size_t(M) * N * 2));
      CK(cudaMalloc(&wsp, size_t(kc::dense_cu::kSlices) * M * N * 4));
      const double bytes = double(wn) * 2 + double(M) * K * 2 + double(M) * N * 2;
      double tg = time_stream_ms([&](int i) { kc::dense_cu::launch_gemv<__nv_bfloat16>(x, ws[i % copies], y, M, N, K, 0); });
      double ts = time_stream_ms([&](int i) {
        kc::dense_cu::launch_gemv_splitk<__nv_bfloat16>(x, ws[i % copies], wsp, y, M, N, K, 0);
      });
      double tc = time_stream_ms([&](int i) { cublas_gemm(h, x, ws[i % copies], yr, M, N, K); });
      cublas_gemm(h, x, ws[0], yr, M, N, K);
      kc::dense_cu::launch_gemv<__nv_bfloat16>(x, ws[0], y, M, N, K, 0);
      double eg = max_rel(y, yr, size_t(M) * N);
      kc::dense_cu::launch_gemv_splitk<__nv_bfloat16>(x, ws[0], wsp, y, M, N, K, 0);
      double es = max_rel(y, yr, size_t(M) * N);
      auto gb = [&](double ms) { return bytes / ms / 1e6; };
      std::printf("%-6d %-6d %-6d | %9.1f %7.0f %5.0f%% %5.0f%% | %9.1f %5.0f%% %5.0f%% | %9.1f %5.0f%% %5.0f%% | %9.2e %9.2e\n",
                  M, N, K, tg * 1e3, gb(tg), 100 * gb(tg) / copy_bw, 100 * gb(tg) / same_bw, ts * 1e3,
                  100 * gb(ts) / copy_bw, 100 * gb(ts) / same_bw, tc * 1e3, 100 * gb(tc) / copy_bw,
                  100 * gb(tc) / same_bw, eg, es);
#if defined(KC_GEMV_TRIAL)
      {
        std::vector<uint16_t> served(size_t(M) * N), tried(size_t(M) * N);
        kc::dense_cu::launch_gemv<__nv_bfloat16>(x, ws[0], y, M, N, K, 0);
        CK(cudaMemcpy(served.data(), y, served.size() * 2, cudaMemcpyDeviceToHost));
        const double tt =
            time_stream_ms([&](int i) { kc::dense_trial::launch_gemv<__nv_bfloat16>(x, ws[i % copies], y, M, N, K, 0); });
        CK(cudaMemset(y, 0, size_t(M) * N * 2));
        kc::dense_trial::launch_gemv<__nv_bfloat16>(x, ws[0], y, M, N, K, 0);
        CK(cudaMemcpy(tried.data(), y, tried.size() * 2, cudaMemcpyDeviceToHost));
        size_t differ = 0;
        for (size_t i = 0; i < served.size(); ++i) differ += served[i] != tried[i];
        std::printf("       trial | %9.1f %7.0f %5.0f%% %5.0f%% | %zu of %zu outputs differ in bits from the served gemv\n",
                    tt * 1e3, gb(tt), 100 * gb(tt) / copy_bw, 100 * gb(tt) / same_bw, differ, served.size());
      }
#endif
      CK(cudaFree(x));
      CK(cudaFree(y));
      CK(cudaFree(yr));
      CK(cudaFree(wsp));
    }
    for (auto p : ws) CK(cudaFree(p));
  }

  // ---- prompt ----------------------------------------------------------------------------------
  std::printf("\nPROMPT bf16 GEMM y = x W^T, fp32 sums, bf16 out (TFLOP/s; ours as %% of cuBLAS)\n");
  std::printf("%-6s %-6s %-6s | %9s %8s | %9s %8s | %7s | %9s\n", "M", "N", "K", "ours ms", "TFLOP/s", "cublas ms",
              "TFLOP/s", "ratio", "max rel");
  CK(kc::gemm_cu::prepare_gemm<__nv_bfloat16>());
  const int pshapes[][2] = {{4096, 4096}, {14336, 4096}};
  for (auto& nk : pshapes) {
    const int N = nk[0], K = nk[1];
    __nv_bfloat16* w = alloc_bf16(size_t(N) * K, 3, 0.125f);
    for (int M : {512, 1024, 2048, 4096, 8192}) {
      __nv_bfloat16* x = alloc_bf16(size_t(M) * K, 5, 2.f);
      __nv_bfloat16 *y, *yr;
      CK(cudaMalloc(&y, size_t(M) * N * 2));
      CK(cudaMalloc(&yr, size_t(M) * N * 2));
      double to = time_ms([&](int) { kc::gemm_cu::launch_gemm<__nv_bfloat16>(x, w, y, M, N, K, 0); }, 20);
      double tc = time_ms([&](int) { cublas_gemm(h, x, w, yr, M, N, K); }, 20);
      double err = max_rel(y, yr, size_t(M) * N);
      const double fl = 2.0 * M * N * K;
      std::printf("%-6d %-6d %-6d | %9.3f %8.1f | %9.3f %8.1f | %6.0f%% | %9.2e\n", M, N, K, to, fl / to / 1e9, tc,
                  fl / tc / 1e9, 100 * tc / to, err);
      CK(cudaFree(x));
      CK(cudaFree(y));
      CK(cudaFree(yr));
    }
    CK(cudaFree(w));
  }

  }  // dense_parts
  // ---- affine decode ---------------------------------------------------------------------------
  std::printf("\nAFFINE decode (MLX affine, bf16 out; bytes = codes + scales + biases + x + y; %% of copy)\n");
#if defined(KC_QMV_TRIAL)
  std::printf("%-4s %-5s %-4s %-6s %-6s | %9s %7s %6s | %9s | %9s %6s %9s\n", "bits", "group", "M", "N", "K", "us", "GB/s",
              "%copy", "max rel", "trial us", "%copy", "trial rel");
#else
  std::printf("%-4s %-5s %-4s %-6s %-6s | %9s %7s %6s %6s | %9s\n", "bits", "group", "M", "N", "K", "us", "GB/s", "%copy",
              "%same", "max rel");
#endif
  // KC_BENCH_AFFINE="bits,group,M,N,K" runs that one shape only, in the table or not (to profile it
  // alone, e.g. under ncu); its bits and group must be a pair the table launches (KC_AFF_PAIRS).
#define KC_AFF_PAIRS(X) X(2, 64) X(3, 64) X(4, 64) X(5, 64) X(6, 64) X(8, 64) X(4, 32) X(4, 128)
  const char* only_affine = std::getenv("KC_BENCH_AFFINE");
  auto run_affine = [&](int bits, int group, int M, int N, int K) {
    const size_t qwords = size_t(N) * K * bits / 32, G = size_t(N) * (K / group);
    const size_t per = qwords * 4 + G * 4;
    const int copies = int(std::max<size_t>(2, (size_t(256) << 20) / per + 1));
    std::vector<uint32_t*> qs(copies);
    std::vector<__nv_bfloat16*> ss(copies), bs(copies);
    for (int c = 0; c < copies; ++c) {
      CK(cudaMalloc(&qs[c], qwords * 4));
      fill_u32<<<1024, 256>>>(qs[c], qwords, 11 + c);
      ss[c] = alloc_bf16(G, 21 + c, 0.01f);
      bs[c] = alloc_bf16(G, 31 + c, 0.1f);
    }
    __nv_bfloat16* x = alloc_bf16(size_t(M) * K, 9, 2.f);
    __nv_bfloat16 *y, *yr;
    CK(cudaMalloc(&y, size_t(M) * N * 2));
    CK(cudaMalloc(&yr, size_t(M) * N * 2));
    auto launch_ns = [&](int i, bool trial) {
      const int c = i % copies;
      (void)trial;
#if defined(KC_QMV_TRIAL)
#define KC_AFF_TRIAL(B, GR) \
  if (trial) kc::affine_trial::launch_qmv<B, GR, __nv_bfloat16>(x, qs[c], ss[c], bs[c], y, M, N, K, 0); else
#else
#define KC_AFF_TRIAL(B, GR)
#endif
#define KC_AFF(B, GR)                                                                                        \
  if (bits == B && group == GR) {                                                                           \
    KC_AFF_TRIAL(B, GR)                                                                                     \
    kc::affine_cu::launch_qmv<B, GR, __nv_bfloat16>(x, qs[c], ss[c], bs[c], y, M, N, K, 0);                  \
    return;                                                                                                 \
  }
      KC_AFF_PAIRS(KC_AFF)
#undef KC_AFF
#undef KC_AFF_TRIAL
    };
    auto launch = [&](int i) { launch_ns(i, false); };
    double t = time_stream_ms(launch);
    CK(cudaMemset(y, 0, size_t(M) * N * 2));  // a launch that wrote nothing shows as error 1
    launch(0);
    ref_affine<<<dim3((N + 127) / 128, M), 128>>>(bits, group, x, qs[0], ss[0], bs[0], yr, M, N, K);
    const double err = max_rel(y, yr, size_t(M) * N);
    const double bytes = double(per) + double(M) * K * 2 + double(M) * N * 2;
#if defined(KC_QMV_TRIAL)
    std::vector<uint16_t> served(size_t(M) * N), tried(size_t(M) * N);
    CK(cudaMemcpy(served.data(), y, served.size() * 2, cudaMemcpyDeviceToHost));
    const double tb = time_stream_ms([&](int i) { launch_ns(i, true); });
    CK(cudaMemset(y, 0, size_t(M) * N * 2));
    launch_ns(0, true);
    const double eb = max_rel(y, yr, size_t(M) * N);
    CK(cudaMemcpy(tried.data(), y, tried.size() * 2, cudaMemcpyDeviceToHost));
    size_t differ = 0;
    for (size_t i = 0; i < served.size(); ++i) differ += served[i] != tried[i];
    std::printf("%-4d %-5d %-4d %-6d %-6d | %9.1f %7.0f %5.0f%% | %9.2e | %9.1f %5.0f%% %9.2e | %zu of %zu outputs differ in bits\n",
                bits, group, M, N, K, t * 1e3, bytes / t / 1e6, 100 * bytes / t / 1e6 / copy_bw, err, tb * 1e3,
                100 * bytes / tb / 1e6 / copy_bw, eb, differ, served.size());
#else
    const double same_bw = same_copy_gbs(per, prop.multiProcessorCount);
    std::printf("%-4d %-5d %-4d %-6d %-6d | %9.1f %7.0f %5.0f%% %5.0f%% | %9.2e\n", bits, group, M, N, K, t * 1e3,
                bytes / t / 1e6, 100 * bytes / t / 1e6 / copy_bw, 100 * bytes / t / 1e6 / same_bw, err);
#endif
    for (int c = 0; c < copies; ++c) {
      CK(cudaFree(qs[c]));
      CK(cudaFree(ss[c]));
      CK(cudaFree(bs[c]));
    }
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(yr));
  };
  int one[5];
  if (only_affine) {
    if (std::sscanf(only_affine, "%d,%d,%d,%d,%d", &one[0], &one[1], &one[2], &one[3], &one[4]) != 5) {
      std::fprintf(stderr, "KC_BENCH_AFFINE=%s: want bits,group,M,N,K (five integers)\n", only_affine);
      return 2;
    }
    bool launched = false;
#define KC_AFF_KNOWN(B, GR) launched = launched || (one[0] == B && one[1] == GR);
    KC_AFF_PAIRS(KC_AFF_KNOWN)
#undef KC_AFF_KNOWN
    if (!launched) {
      std::fprintf(stderr, "KC_BENCH_AFFINE=%s: bits %d, group %d is not a pair the benchmark launches (KC_AFF_PAIRS)\n",
                   only_affine, one[0], one[1]);
      return 2;
    }
    run_affine(one[0], one[1], one[2], one[3], one[4]);  // a shape outside the table too
  } else {
    for (int bits : {2, 3, 4, 5, 6, 8})
      for (int M : {1, 8, 32}) run_affine(bits, 64, M, 4096, 4096);
    for (int group : {32, 128})
      for (int M : {1, 32}) run_affine(4, group, M, 4096, 4096);
    for (int bits : {2, 4, 8})
      for (int M : {1, 8, 32}) run_affine(bits, 64, M, 14336, 4096);
    for (int M : {1, 8}) run_affine(4, 64, M, 4096, 14336);
  }

  // ---- affine prompt ---------------------------------------------------------------------------
  std::printf("\nAFFINE prompt tiles (4 bits, group 64, bf16 out; TFLOP/s; as %% of cuBLAS bf16 on dense weights)\n");
  std::printf("%-6s %-6s %-6s | %9s %8s | %9s %8s | %7s\n", "M", "N", "K", "ours ms", "TFLOP/s", "cublas ms", "TFLOP/s",
              "ratio");
  for (int M : {512, 2048, 8192}) {
    const int N = 4096, K = 4096, G = K / 64;
    uint32_t* q;
    CK(cudaMalloc(&q, size_t(N) * K / 8 * sizeof(uint32_t)));
    fill_u32<<<1024, 256>>>(q, size_t(N) * K / 8, 5);
    __nv_bfloat16* s = alloc_bf16(size_t(N) * G, 6, 0.01f);
    __nv_bfloat16* b = alloc_bf16(size_t(N) * G, 7, 0.1f);
    __nv_bfloat16* w = alloc_bf16(size_t(N) * K, 8, 0.125f);
    __nv_bfloat16* x = alloc_bf16(size_t(M) * K, 9, 2.f);
    __nv_bfloat16 *y, *yr;
    float* xs;
    CK(cudaMalloc(&y, size_t(M) * N * 2));
    CK(cudaMalloc(&yr, size_t(M) * N * 2));
    CK(cudaMalloc(&xs, size_t(M) * (K / 32) * 4));
    double to = time_ms([&](int) { kc::qmm_cu::launch_qmm<4, 64, __nv_bfloat16>(x, q, s, b, xs, y, M, N, K, 0); }, 20);
    double tc = time_ms([&](int) { cublas_gemm(h, x, w, yr, M, N, K); }, 20);
    const double fl = 2.0 * M * N * K;
    std::printf("%-6d %-6d %-6d | %9.3f %8.1f | %9.3f %8.1f | %6.0f%%\n", M, N, K, to, fl / to / 1e9, tc, fl / tc / 1e9,
                100 * tc / to);
    for (void* p : {(void*)q, (void*)s, (void*)b, (void*)w, (void*)x, (void*)y, (void*)yr, (void*)xs}) CK(cudaFree(p));
  }
  CB(cublasDestroy(h));
  return 0;
}
