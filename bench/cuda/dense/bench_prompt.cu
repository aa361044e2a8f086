// H200 benchmark of the prompt projections on tensor cores against cuBLAS bf16 (fp32 compute):
// kernels/dense/gemm (mma.sync tile configurations, and the sm_90a wgmma kernels when built with
// -DKC_BENCH_WGMMA) at 512..8,192 rows x (4096 x 4096, 14336 x 4096, 4096 x 14336), and
// kernels/affine/qmm (MLX affine prompt tiles) against cuBLAS on dense weights of the same shape.
// Every output is checked: ours against cuBLAS's (max |diff| / max |cuBLAS|), ragged shapes in fp32
// out, the affine tiles against cuBLAS fp32 GEMM on the dequantized weights.
// Build (standalone):
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -DKC_BENCH_WGMMA bench_prompt.cu -lcublas
//   (or -arch=sm_90 without the wgmma kernel)
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
#include "../../../kernels/affine/qmm/qmm_sm90a.cuh"
#include "../../../kernels/affine/qmm/qmm_ws_sm90a.cuh"
#include "../../../kernels/dense/gemm/gemm.cuh"
#include "../../../kernels/dense/gemm/gemm_sm90a.cuh"
#include "../bench_check.cuh"


namespace {

__device__ uint32_t hash(uint64_t i, uint32_t seed) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return uint32_t(z ^ (z >> 31));
}
__global__ void fill_bf16(__nv_bfloat16* p, size_t n, uint32_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16_rn(scale * (float(hash(i, seed) >> 8) / 16777216.f * 2.f - 1.f));
}
__global__ void fill_u32(uint32_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = hash(i, seed);
}
__global__ void to_f32(const __nv_bfloat16* p, float* q, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    q[i] = __bfloat162float(p[i]);
}
// w[n][k] = s * q + b in fp32 (exact: a bf16 times a small integer plus a bf16, as MLX's formula).
__global__ void dequant(const uint32_t* q, const __nv_bfloat16* s, const __nv_bfloat16* b, float* w, int N, int K,
                        int bits, int group) {
  const size_t n_all = size_t(N) * K;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n_all; i += size_t(gridDim.x) * blockDim.x) {
    const size_t n = i / K, k = i % K, wpr = size_t(K) * bits / 32;
    const size_t bit = k * bits, w0 = bit / 32, sh = bit % 32;
    uint64_t v = q[n * wpr + w0];
    if (w0 + 1 < wpr) v |= uint64_t(q[n * wpr + w0 + 1]) << 32;
    const uint32_t code = uint32_t(v >> sh) & ((1u << bits) - 1);
    const size_t g = n * (K / group) + k / group;
    w[i] = __bfloat162float(s[g]) * float(code) + __bfloat162float(b[g]);
  }
}
template <class T> T* dalloc(size_t n) {
  T* p;
  CK(cudaMalloc(&p, n * sizeof(T)));
  return p;
}
__nv_bfloat16* rand_bf16(size_t n, uint32_t seed, float scale) {
  auto* p = dalloc<__nv_bfloat16>(n);
  fill_bf16<<<2048, 256>>>(p, n, seed, scale);
  return p;
}

// Row-major y[M][N] = x[M][K] W[N][K]^T as cuBLAS's column-major y^T = W x^T.
void cublas_gemm(cublasHandle_t h, const void* x, const void* w, void* y, cudaDataType_t in, cudaDataType_t out, int M,
                 int N, int K) {
  const float one = 1.f, zero = 0.f;
  CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, in, K, x, in, K, &zero, y, out, N,
                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

double time_ms(const std::function<void()>& f, int reps) {
  for (int i = 0; i < 3; ++i) f();
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  for (int i = 0; i < reps; ++i) f();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaGetLastError());
  return ms / reps;
}

template <class T> std::vector<float> host(const T* d, size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<float> f(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(T) == 2) f[i] = __bfloat162float(h[i]);
    else f[i] = h[i];
  }
  return f;
}
// max |a - r| / max |r|
double rel_err(const std::vector<float>& a, const std::vector<float>& r) {
  double d = 0, m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = std::fabs(double(a[i]) - r[i]);
    d = std::isnan(e) ? INFINITY : std::max(d, e);
    m = std::max(m, std::fabs(double(r[i])));
  }
  return m > 0 ? d / m : d;
}

using Launch = std::function<void(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, int, int, int)>;
struct Variant {
  std::string name;
  Launch run;
};

template <class C> Variant mma_variant(const char* name) {
  CK(kc::gemm_cu::prepare_gemm_cfg<C, __nv_bfloat16>());
  return {name, [](const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int M, int N, int K) {
            kc::gemm_cu::launch_gemm_cfg<C, __nv_bfloat16>(x, w, y, M, N, K, 0);
          }};
}

}  // namespace

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device: %s, %d SMs, L2 %d MiB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
  cublasHandle_t h;
  CB(cublasCreate(&h));
  const char* only = std::getenv("KC_BENCH_PART");  // dense | affine | ragged (default: all)
  auto part = [&](const char* s) { return !only || std::string(only) == s; };

  std::vector<Variant> vs;
  {
    using namespace kc::gemm_cu;
    vs.push_back(mma_variant<Main>("mma 128x256x32 s4 (served)"));
#ifndef KC_BENCH_QUICK
    vs.push_back(mma_variant<Cfg<128, 128, 32, 64, 64, 4>>("mma 128x128x32 s4 w4"));
    vs.push_back(mma_variant<Cfg<128, 256, 64, 64, 64, 3>>("mma 128x256x64 s3"));
    vs.push_back(mma_variant<Cfg<256, 128, 32, 64, 64, 4>>("mma 256x128x32 s4"));
    vs.push_back(mma_variant<Cfg<128, 128, 64, 64, 64, 3>>("mma 128x128x64 s3 w4"));
    vs.push_back(mma_variant<Cfg<128, 128, 32, 64, 32, 4>>("mma 128x128x32 s4 w8"));
#endif
  }
#ifdef KC_BENCH_WGMMA
  CK(kc::gemm90::prepare<__nv_bfloat16>());
  CK(kc::gemm90::prepare<float>());
  vs.push_back({"wgmma served (n tile 256, or 128 where 256 leaves SMs idle)",
                [](const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int M, int N, int K) {
                  kc::gemm90::launch<__nv_bfloat16>(x, w, y, M, N, K, 0);
                }});
  vs.push_back({"wgmma 128x256x64 s4",
                [](const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int M, int N, int K) {
                  kc::gemm90::launch_bn<256, __nv_bfloat16>(x, w, y, M, N, K, 0);
                }});
  vs.push_back({"wgmma 128x128x64 s6 (the served 128-wide tile)",
                [](const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int M, int N, int K) {
                  kc::gemm90::launch_bn<128, __nv_bfloat16>(x, w, y, M, N, K, 0);
                }});
  CK((kc::gemm90::prepare_bn<__nv_bfloat16, 128, 4>()));
  vs.push_back({"wgmma 128x128x64 s4 (served before)",
                [](const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int M, int N, int K) {
                  kc::gemm90::launch_bn<128, __nv_bfloat16, 4>(x, w, y, M, N, K, 0);
                }});
#endif

  // ---- ragged shapes, fp32 out, against cuBLAS fp32 out ----------------------------------------
  if (part("ragged")) {
    std::printf("\nRAGGED check (fp32 out; max |ours - cuBLAS| / max |cuBLAS|)\n");
    const int shapes[][3] = {{1, 64, 64}, {17, 100, 72}, {129, 257, 264}, {1000, 1000, 1000}, {513, 4099, 4104}};
    for (auto& s : shapes) {
      const int M = s[0], N = s[1], K = s[2];
      auto* x = rand_bf16(size_t(M) * K, 1, 1.f);
      auto* w = rand_bf16(size_t(N) * K, 2, 1.f);
      auto* y = dalloc<float>(size_t(M) * N);
      auto* yr = dalloc<float>(size_t(M) * N);
      cublas_gemm(h, x, w, yr, CUDA_R_16BF, CUDA_R_32F, M, N, K);
      const auto r = host(yr, size_t(M) * N);
      CK(kc::gemm_cu::prepare_gemm<float>());
      CK(cudaMemset(y, 0xff, size_t(M) * N * 4));
      kc::gemm_cu::launch_gemm<float>(x, w, y, M, N, K, 0);
      CK(cudaDeviceSynchronize());
      std::printf("%-5d %-5d %-5d | mma %.2e", M, N, K, rel_err(host(y, size_t(M) * N), r));
#ifdef KC_BENCH_WGMMA
      CK(cudaMemset(y, 0xff, size_t(M) * N * 4));
      kc::gemm90::launch_bn<256, float>(x, w, y, M, N, K, 0);
      CK(cudaDeviceSynchronize());
      std::printf(" | wgmma n256 %.2e", rel_err(host(y, size_t(M) * N), r));
      CK(cudaMemset(y, 0xff, size_t(M) * N * 4));
      kc::gemm90::launch_bn<128, float>(x, w, y, M, N, K, 0);
      CK(cudaDeviceSynchronize());
      std::printf(" | wgmma n128 %.2e", rel_err(host(y, size_t(M) * N), r));
#endif
      std::printf("\n");
      for (void* q : {(void*)x, (void*)w, (void*)y, (void*)yr}) CK(cudaFree(q));
    }
  }

  // ---- dense prompt GEMM -------------------------------------------------------------------------
  if (part("dense")) {
    std::printf("\nPROMPT bf16 GEMM y = x W^T, fp32 sums, bf16 out (TFLOP/s; %% of cuBLAS; err = max|ours-cuBLAS|/max|cuBLAS|)\n");
    const int Ms[] = {512, 1024, 2048, 4096, 8192};
    const int NK[][2] = {{4096, 4096}, {14336, 4096}, {4096, 14336}};
    const size_t xmax = size_t(8192) * 14336, wmax = size_t(14336) * 4096, ymax = size_t(8192) * 14336;
    auto* x = rand_bf16(xmax, 3, 1.f);
    auto* w = rand_bf16(wmax, 4, 1.f);
    auto* y = dalloc<__nv_bfloat16>(ymax);
    auto* yr = dalloc<__nv_bfloat16>(ymax);
    std::printf("%-5s %-6s %-6s | %16s", "M", "N", "K", "cublas ms TF/s");
    for (size_t v = 0; v < vs.size(); ++v) std::printf(" | v%zu ms   TF/s  %%cub  err    ", v);
    std::printf("\n");
    for (size_t v = 0; v < vs.size(); ++v) std::printf("   v%zu = %s\n", v, vs[v].name.c_str());
    for (auto& nk : NK)
      for (int M : Ms) {
        const int N = nk[0], K = nk[1];
        const double fl = 2.0 * M * N * K;
        const int reps = fl > 4e11 ? 10 : 30;
        const double tc = time_ms([&] { cublas_gemm(h, x, w, yr, CUDA_R_16BF, CUDA_R_16BF, M, N, K); }, reps);
        const size_t nchk = std::min(size_t(M) * N, size_t(1) << 23);  // the first rows, up to 8 Mi outputs
        const auto r = host(yr, nchk);
        std::printf("%-5d %-6d %-6d | %7.3f %7.1f", M, N, K, tc, fl / tc / 1e9);
        for (auto& v : vs) {
          CK(cudaMemset(y, 0xff, size_t(M) * N * 2));
          const double to = time_ms([&] { v.run(x, w, y, M, N, K); }, reps);
          std::printf(" | %6.3f %6.1f %4.0f%% %.0e", to, fl / to / 1e9, 100 * tc / to, rel_err(host(y, nchk), r));
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    for (void* q : {(void*)x, (void*)w, (void*)y, (void*)yr}) CK(cudaFree(q));
  }

  // ---- affine prompt tiles -----------------------------------------------------------------------
  if (part("affine")) {
    std::printf("\nAFFINE prompt tiles (MLX affine, bf16 out, the x-sum pre-pass included; TFLOP/s; %% of cuBLAS bf16 on "
                "dense weights of the shape;\nerr = max|ours-ref|/max|ref|, ref = cuBLAS fp32 GEMM on the dequantized "
                "weights)\n");
    std::printf("%-4s %-5s %-5s %-6s %-6s | %16s | %-28s | %-28s | %-28s\n", "bits", "group", "M", "N", "K",
                "cublas ms TF/s", "mma.sync ms TF/s %cub err", "wgmma 2wg ms TF/s %cub err", "wgmma ws ms TF/s %cub err");
    using AffLaunch = std::function<void(const void*, const void*, const void*, const void*, float*, __nv_bfloat16*,
                                         int, int, int)>;
    auto run_affine = [&](int bits, int group, int M, int N, int K, AffLaunch mma, AffLaunch wg, AffLaunch ws) {
      const size_t words = size_t(N) * K * bits / 32, G = size_t(N) * (K / group);
      auto* q = dalloc<uint32_t>(words);
      fill_u32<<<1024, 256>>>(q, words, 5 + bits);
      auto* s = rand_bf16(G, 6, 0.01f);
      auto* b = rand_bf16(G, 7, 0.1f);
      auto* x = rand_bf16(size_t(M) * K, 9, 1.f);
      auto* wd = rand_bf16(size_t(N) * K, 8, 0.125f);
      auto* y = dalloc<__nv_bfloat16>(size_t(M) * N);
      auto* yr = dalloc<__nv_bfloat16>(size_t(M) * N);
      auto* xs = dalloc<float>(size_t(M) * (K / 32));
      auto* wf = dalloc<float>(size_t(N) * K);
      auto* xf = dalloc<float>(size_t(M) * K);
      auto* yf = dalloc<float>(size_t(M) * N);
      // Reference: fp32 GEMM of x and the dequantized weights.
      dequant<<<2048, 256>>>(q, s, b, wf, N, K, bits, group);
      to_f32<<<2048, 256>>>(x, xf, size_t(M) * K);
      cublas_gemm(h, xf, wf, yf, CUDA_R_32F, CUDA_R_32F, M, N, K);
      CK(cudaDeviceSynchronize());
      const auto ref = host(yf, size_t(M) * N);
      const double fl = 2.0 * M * N * K;
      const int reps = fl > 4e11 ? 10 : 30;
      const double tc = time_ms([&] { cublas_gemm(h, x, wd, yr, CUDA_R_16BF, CUDA_R_16BF, M, N, K); }, reps);
      std::printf("%-4d %-5d %-5d %-6d %-6d | %7.3f %7.1f", bits, group, M, N, K, tc, fl / tc / 1e9);
      for (auto* l : {&mma, &wg, &ws}) {
        if (!*l) continue;
        CK(cudaMemset(y, 0xff, size_t(M) * N * 2));
        const double to = time_ms([&] { (*l)(x, q, s, b, xs, y, M, N, K); }, reps);
        std::printf(" | %7.3f %6.1f %4.0f%% %.1e", to, fl / to / 1e9, 100 * tc / to, rel_err(host(y, size_t(M) * N), ref));
      }
      std::printf("\n");
      std::fflush(stdout);
      for (void* p2 : {(void*)q, (void*)s, (void*)b, (void*)x, (void*)wd, (void*)y, (void*)yr, (void*)xs, (void*)wf,
                       (void*)xf, (void*)yf})
        CK(cudaFree(p2));
    };
#define KC_AFF_MMA(B, G)                                                                                     \
  AffLaunch([](const void* x, const void* q, const void* s, const void* b, float* xs, __nv_bfloat16* y, int M, \
               int N, int K) { kc::qmm_cu::launch_qmm<B, G, __nv_bfloat16>(x, q, s, b, xs, y, M, N, K, 0); })
#ifdef KC_BENCH_WGMMA
    // The wgmma tiles: the sums of x by the pre-pass of qmm.cuh, then the tile kernel.
#define KC_AFF_WG(B, G)                                                                                      \
  AffLaunch([](const void* x, const void* q, const void* s, const void* b, float* xs, __nv_bfloat16* y, int M, \
               int N, int K) {                                                                               \
    CK(kc::qmm90::prepare<B, G, __nv_bfloat16>());                                                           \
    kc::qmm_cu::launch_xsum(x, xs, M, K, 0);                                                                 \
    kc::qmm90::launch<B, G, __nv_bfloat16>(x, q, s, b, xs, y, M, N, K, 0);                                   \
  })
#define KC_AFF_WS(B, G)                                                                                      \
  AffLaunch([](const void* x, const void* q, const void* s, const void* b, float* xs, __nv_bfloat16* y, int M, \
               int N, int K) {                                                                               \
    CK(kc::qmmws::prepare<B, G, __nv_bfloat16>());                                                           \
    kc::qmm_cu::launch_xsum(x, xs, M, K, 0);                                                                 \
    kc::qmmws::launch<B, G, __nv_bfloat16>(x, q, s, b, xs, y, M, N, K, 0);                                   \
  })
#else
#define KC_AFF_WG(B, G) AffLaunch()
#define KC_AFF_WS(B, G) AffLaunch()
#endif
#define KC_AFF(B, G) KC_AFF_MMA(B, G), KC_AFF_WG(B, G), KC_AFF_WS(B, G)
    for (int M : {512, 2048, 8192}) run_affine(4, 64, M, 4096, 4096, KC_AFF(4, 64));
    run_affine(4, 64, 2048, 14336, 4096, KC_AFF(4, 64));
    run_affine(4, 64, 2048, 4096, 14336, KC_AFF(4, 64));
    run_affine(2, 64, 2048, 4096, 4096, KC_AFF(2, 64));
    run_affine(3, 64, 2048, 4096, 4096, KC_AFF(3, 64));
    run_affine(5, 64, 2048, 4096, 4096, KC_AFF(5, 64));
    run_affine(6, 64, 2048, 4096, 4096, KC_AFF(6, 64));
    run_affine(8, 64, 2048, 4096, 4096, KC_AFF(8, 64));
    run_affine(4, 32, 2048, 4096, 4096, KC_AFF(4, 32));
    run_affine(4, 128, 2048, 4096, 4096, KC_AFF(4, 128));
    run_affine(8, 32, 2048, 4096, 4096, KC_AFF(8, 32));
    run_affine(8, 128, 2048, 4096, 4096, KC_AFF(8, 128));
    run_affine(3, 32, 1000, 1000, 4000, KC_AFF(3, 32));  // ragged M and N, K % 64 == 32
    run_affine(5, 128, 300, 4099, 2048, KC_AFF(5, 128));
    run_affine(6, 32, 77, 200, 96, KC_AFF(6, 32));
  }
  CB(cublasDestroy(h));
  std::printf("bench exit 0\n");
  return 0;
}
