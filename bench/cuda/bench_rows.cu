// Achieved bandwidth of each served CUDA rows kernel, next to the device's own device-to-device
// copy. Standalone (no harness): it includes the kernels' .cuh files and launches them through the
// same launchers the contracts use. Prints CSV: kernel,rows,cols,us,bytes,GBps.
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/cuda/bench_rows.cu -o bench_rows && ./bench_rows
// Each timing is the median of 25 launches, each after a 256 MiB write that evicts the L2, so a
// kernel reads its inputs from memory as a prompt-sized pass does.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "kernels/rows/add_rms_norm/add_rms_norm.cuh"
#include "kernels/rows/argmax/argmax.cuh"
#include "kernels/rows/dot/dot.cuh"
#include "kernels/rows/geglu/geglu.cuh"
#include "kernels/rows/max/max.cuh"
#include "kernels/rows/rms_norm/rms_norm.cuh"
#include "kernels/rows/softmax/softmax.cuh"
#include "kernels/rows/sum/sum.cuh"
#include "kernels/rows/swiglu/swiglu.cuh"
#include "kernels/rows/topk/topk.cuh"

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

using namespace kc::cu;

static void* flush_buf;
static const size_t kFlush = 256u << 20;

static double time_us(const std::function<void()>& f, int reps = 25) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  CK(cudaGetLastError());
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaMemsetAsync(flush_buf, i & 0xff, kFlush));
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static void row(const char* name, long rows, long cols, double us, double bytes) {
  std::printf("%s,%ld,%ld,%.2f,%.0f,%.1f\n", name, rows, cols, us, bytes, bytes / us * 1e-3);
}

// Random bf16 in [-4, 4): finite, spread, so every path (max, exp, sort) works on real values.
__global__ void fill_bf16(uint16_t* p, long n, unsigned seed) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n; i += long(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    float f = (float(h & 0xffffff) / float(1 << 24)) * 8.f - 4.f;
    p[i] = uint16_t(f32_to_bf16(f));
  }
}

int main(int argc, char** argv) {
  const long R = argc > 1 ? atol(argv[1]) : 8192, C = argc > 2 ? atol(argv[2]) : 4096;
  const long n = R * C;
  CK(cudaMalloc(&flush_buf, kFlush));
  uint16_t *x, *r, *w, *h, *y16;
  float* y32;
  int32_t* ids;
  CK(cudaMalloc(&x, n * 2));
  CK(cudaMalloc(&r, n * 2));
  CK(cudaMalloc(&w, C * 2));
  CK(cudaMalloc(&h, n * 2));
  CK(cudaMalloc(&y16, n * 2));
  CK(cudaMalloc(&y32, n * 4));
  CK(cudaMalloc(&ids, R * 64 * 4));
  fill_bf16<<<1024, 256>>>(x, n, 1);
  fill_bf16<<<1024, 256>>>(r, n, 2);
  fill_bf16<<<64, 256>>>(w, C, 3);
  CK(cudaDeviceSynchronize());

  std::printf("kernel,rows,cols,us,bytes,GBps\n");
  // The device's copy: a 1 GiB device-to-device memcpy reads and writes every byte once.
  {
    const size_t bytes = size_t(1) << 30;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    double us = time_us([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, 10);
    row("copy_d2d_1GiB", 0, 0, us, 2.0 * bytes);
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
  const double X = n * 2.0, W = C * 2.0;
  // The same copy at one prompt tensor's size (bf16 rows x cols): what a launch of this size gets.
  row("copy_d2d_tensor", R, C, time_us([&] { CK(cudaMemcpyAsync(h, x, size_t(X), cudaMemcpyDeviceToDevice)); }), 2 * X);
  const float eps = 1e-6f;
  cudaStream_t st = 0;
  row("rms_norm/bf16_out", R, C, time_us([&] { launch_rms_norm_vec<Bf16Out>(x, w, (Bf16Out*)y16, R, C, eps, st); }), X + W + n * 2.0);
  row("rms_norm/f16_out", R, C, time_us([&] { launch_rms_norm_vec<F16Out>(x, w, (F16Out*)y16, R, C, eps, st); }), X + W + n * 2.0);
  row("rms_norm/f32_out", R, C, time_us([&] { launch_rms_norm_vec<float>(x, w, y32, R, C, eps, st); }), X + W + n * 4.0);
  row("rms_norm/tree_f32", R, C, time_us([&] { launch_rms_norm_tree(x, w, y32, R, C, eps, st); }), X + W + n * 4.0);
  row("softmax/bf16", R, C, time_us([&] { launch_softmax_vec(x, y16, R, C, st); }), 2 * X);
  row("softmax/bf16_long", R, C, time_us([&] { launch_softmax_online(x, y16, R, C, st); }), 2 * X);
  row("sum/f32", R, C, time_us([&] { launch_row_sum(x, y32, R, C, st); }), X + R * 4.0);
  row("dot/f32", R, C, time_us([&] { launch_row_dot(x, w, y32, R, C, st); }), X + W + R * 4.0);
  row("max/bf16", R, C, time_us([&] { launch_row_max(x, y16, R, C, st); }), X + R * 2.0);
  row("argmax/bf16", R, C, time_us([&] { launch_row_argmax(x, ids, R, C, st); }), X + R * 4.0);
  row("topk/bf16_k8", R, C, time_us([&] { launch_topk_bf16(x, ids, y16, R, C, 8, st); }), X + R * 8 * 6.0);
  row("topk/bf16_k64", R, C, time_us([&] { launch_topk_bf16(x, ids, y16, R, C, 64, st); }), X + R * 64 * 6.0);
  row("swiglu/bf16", R, C, time_us([&] { launch_swiglu(x, r, y16, n, st); }), 3 * X);
  row("geglu/bf16", R, C, time_us([&] { launch_geglu(x, r, y16, n, st); }), 3 * X);
  row("add_rms_norm/rounded", R, C, time_us([&] { launch_add_rms_norm<false>(x, r, w, h, y16, R, C, eps, st); }), 4 * X + W);
  row("add_rms_norm/once_rounded", R, C, time_us([&] { launch_add_rms_norm<true>(x, r, w, h, y16, R, C, eps, st); }), 4 * X + W);
  // A decode row set: 32 rows, latency-bound (for reference, not the 85% target).
  const long Rd = 32;
  row("rms_norm/bf16_out", Rd, C, time_us([&] { launch_rms_norm_vec<Bf16Out>(x, w, (Bf16Out*)y16, Rd, C, eps, st); }), Rd * C * 4.0 + W);
  row("softmax/bf16", Rd, C, time_us([&] { launch_softmax_vec(x, y16, Rd, C, st); }), Rd * C * 4.0);
  row("topk/bf16_k64", Rd, C, time_us([&] { launch_topk_bf16(x, ids, y16, Rd, C, 64, st); }), Rd * C * 2.0 + Rd * 64 * 6.0);
  CK(cudaDeviceSynchronize());
  return 0;
}
