// Achieved bandwidth of each served CUDA rows kernel, next to the device's own device-to-device
// copy measured the same way. Standalone (no harness): it includes the kernels' .cuh files and
// launches them through the same launchers the contracts use (the served shape), and through forced
// shapes (threads a row, vectors a thread) so one run compares variants.
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/cuda/bench_rows.cu -o bench_rows
//   ./bench_rows [ROWS COLS]...          (default: 8192 4096  8192 8192  8192 16384  32 4096)
//   KC_BENCH_ONLY=softmax ./bench_rows ...  (the copies and the softmax rows only)
//   ./bench_rows --exp-check              (exhaustive error of softmax's exps against float64, below)
// Prints CSV: kernel,variant,rows,cols,us,bytes,GBps (variant "served" is what the contract runs).
//
// Method: every buffer a kernel touches exists in NS copies (sets), NS chosen so that the sets
// together hold at least 4x the L2, and successive launches rotate through them, so each launch
// reads its inputs from device memory, not from what the previous launch left in the L2. A timing
// is REPS launches back to back on one stream between two events, divided by REPS (launch gaps
// included, as an engine's stream of kernels sees them); the median of 7 such timings is printed.
// The copies (cudaMemcpyAsync and a 16-byte copy kernel) of one input-sized tensor are timed the
// same way over the same rotation, so "% of copy" compares like with like.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "kernels/rows/add_rms_norm/add_rms_norm.cuh"
#include "kernels/rows/argmax/argmax.cuh"
#include "kernels/rows/dot/dot.cuh"
#include "kernels/rows/geglu/geglu.cuh"
#include "kernels/rows/layer_norm/layer_norm.cuh"
#include "kernels/rows/max/max.cuh"
#include "kernels/rows/rms_norm/rms_norm.cuh"
#include "kernels/rows/softmax/softmax.cuh"
#include "kernels/rows/sum/sum.cuh"
#include "kernels/rows/swiglu/swiglu.cuh"
#include "kernels/rows/topk/topk.cuh"
#include "bench_check.cuh"


using namespace kc::cu;

// Diagnosis only, not a served form (it breaks softmax's declared error): the served row group
// (softmax_group) with __expf(x - max) (ex2.approx on a rounded product, no correction of the
// subtraction), about 15 fewer instructions an element: how fast softmax would run if it issued less.
struct FastExp {
  __device__ float operator()(float x, float m) const { return __expf(x - m); }
};
template <int VPT>
__global__ void __launch_bounds__(256)
softmax_fast_exp(const kc_u4* __restrict__ x, kc_u4* __restrict__ y, int rows, int cols, int tpr) {
  __shared__ float red[8], red2[8];
  const int t = threadIdx.x % tpr;
  const long row = long(blockIdx.x) * (kBlock / tpr) + threadIdx.x / tpr;
  const bool live = row < rows;
  const int nvec = cols / 8;
  kc_u4 v[VPT];
#pragma unroll
  for (int i = 0; i < VPT; ++i) v[i] = (live && t + i * tpr < nvec) ? ld16(x + row * nvec + t + i * tpr) : zero4();
  softmax_group<VPT, FastExp>(v, y, row, live, t, tpr, nvec, red, red2);
}
static void launch_softmax_fast_exp(const void* x, void* y, int rows, int cols, cudaStream_t st) {
  const RowShape s = reg_shape(cols);
  const dim3 grid((rows + s.rpb - 1) / s.rpb);
  auto xv = static_cast<const kc_u4*>(x);
  auto yv = static_cast<kc_u4*>(y);
  switch (s.vpt) {
    case 1: softmax_fast_exp<1><<<grid, kBlock, 0, st>>>(xv, yv, rows, cols, s.tpr); break;
    case 2: softmax_fast_exp<2><<<grid, kBlock, 0, st>>>(xv, yv, rows, cols, s.tpr); break;
    case 4: softmax_fast_exp<4><<<grid, kBlock, 0, st>>>(xv, yv, rows, cols, s.tpr); break;
    default: softmax_fast_exp<8><<<grid, kBlock, 0, st>>>(xv, yv, rows, cols, s.tpr); break;
  }
}

static int g_sets = 1;
// KC_BENCH_ONLY=softmax: time the copies and the softmax variants only.
static bool g_all = true;

// f(i) launches on set i; REPS back-to-back launches rotate through the sets.
static double time_us(const std::function<void(int)>& f) { return kc_bench::time_us(f, g_sets, std::max(40, 2 * g_sets)); }

static void row(const char* name, const std::string& variant, long rows, long cols, double us, double bytes) {
  std::printf("%s,%s,%ld,%ld,%.2f,%.0f,%.1f\n", name, variant.c_str(), rows, cols, us, bytes, bytes / us * 1e-3);
  std::fflush(stdout);
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

// bf16 to fp32, exactly (the fp32 layer norm's inputs: the same values as the bf16 one's).
__global__ void widen_bf16(const uint16_t* a, float* b, long n) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n; i += long(gridDim.x) * blockDim.x)
    b[i] = bf16_to_f32(a[i]);
}

// A plain copy with 16-byte loads, four in flight a thread, grid-stride: the copy a kernel of ours
// could write, beside the runtime's own.
__global__ void __launch_bounds__(256) copy16(const uint4* __restrict__ a, uint4* __restrict__ b, long n) {
  const long stride = long(gridDim.x) * 256 * 4;
  for (long i = blockIdx.x * 256L * 4 + threadIdx.x; i < n; i += stride) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (i + k * 256 < n) v[k] = a[i + k * 256];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (i + k * 256 < n) b[i + k * 256] = v[k];
  }
}

// ---- --exp-check: softmax's exps against float64, exhaustively ---------------------------------
// Over every pair of finite bf16 x <= m, for the row form's exp2_diff (e^(x - m) 2^64, taken back
// by 2^-64, exactly) and the online form's exp_diff (expf): [0] the worst relative error in units of
// 2^-24 where the result is normal, [1] the worst absolute error in units of 2^-149 below, [2] a
// count of results that are not finite or negative, or nonzero past -110, and [3] the worst
// relative error over what the contract declares for it, 4 + 1.23 |x - m| + 22.2 units of 2^-24
// (exp2_diff; over 4, exp_diff): at most 1 where the declaration holds. Worst values are merged as fp32 bits (atomicMax).
struct Worst2 {
  float rel = 0, abs = 0, over = 0;
  unsigned bad = 0;
  __device__ void judge(double got, double want, double allowed_u) {
    if (!(got >= 0) || !(got < 1e300)) { ++bad; return; }
    const double err = fabs(got - want);
    if (want >= 0x1p-126) {
      rel = fmaxf(rel, float(err / want * 0x1p24));
      over = fmaxf(over, float(err / want * 0x1p24 / allowed_u));
    } else {
      abs = fmaxf(abs, float(err * 0x1p149));
    }
  }
  __device__ void merge(unsigned* w) const {
    atomicMax(w, __float_as_uint(rel));
    atomicMax(w + 1, __float_as_uint(abs));
    if (bad) atomicAdd(w + 2, bad);
    atomicMax(w + 3, __float_as_uint(over));
  }
};
// A thread a value of m (bf16 bits) and a 1/64 slice of x: every finite x <= m with x - m >= -110
// (below that both must give 0: counted as bad otherwise).
template <bool EXP2>
__global__ void exp_pairs(unsigned* w) {
  const unsigned mb = blockIdx.x * blockDim.x + threadIdx.x;
  if (mb > 0xffffu || (mb & 0x7fffu) >= 0x7f80u) return;
  const float m = bf16_to_f32(uint16_t(mb));
  Worst2 b;
  for (unsigned xb = blockIdx.y * 1024; xb < blockIdx.y * 1024 + 1024; ++xb) {
    if ((xb & 0x7fffu) >= 0x7f80u) continue;
    const float x = bf16_to_f32(uint16_t(xb));
    if (!(x <= m)) continue;
    const double d = double(x) - double(m);
    const double got = EXP2 ? double(exp2_diff(x, m)) * 0x1p-64 : double(exp_diff(x, m));
    if (d < -110) {
      if (got > 0x1p-149) ++b.bad;
      continue;
    }
    b.judge(got, exp(d), EXP2 ? 4 + 1.23 * fabs(d) + 22.2 : 4);
  }
  b.merge(w);
}
template <bool EXP2> static unsigned exp_check_one(const char* name) {
  unsigned* w;
  CK(cudaMalloc(&w, 4 * sizeof(unsigned)));
  CK(cudaMemset(w, 0, 4 * sizeof(unsigned)));
  exp_pairs<EXP2><<<dim3(256, 64), 256>>>(w);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned h[4];
  CK(cudaMemcpy(h, w, sizeof h, cudaMemcpyDeviceToHost));
  CK(cudaFree(w));
  auto f = [](unsigned b) { float v; std::memcpy(&v, &b, 4); return double(v); };
  std::printf("%s, all finite bf16 x<=m: worst rel %.4f x 2^-24 (normal), worst abs %.4f x 2^-149 (subnormal), "
              "worst rel / declared %.4f\n", name, f(h[0]), f(h[1]), f(h[3]));
  std::printf("  non-finite or negative results, or nonzero past -110: %u\n", h[2]);
  return h[2] + (f(h[3]) > 1 ? 1 : 0);
}
static int exp_check() {
  const unsigned bad = exp_check_one<true>("exp2_diff (ex2 on the scaled argument, the row form)") +
                       exp_check_one<false>("exp_diff (expf, the online form)");
  return bad == 0 ? 0 : 1;
}

template <class T>
static std::vector<T*> alloc_sets(size_t count) {
  std::vector<T*> v(g_sets);
  for (auto& p : v) CK(cudaMalloc(&p, count * sizeof(T)));
  return v;
}

static void bench_shape(long R, long C, int sms, size_t l2) {
  const long n = R * C;
  const double X = n * 2.0, W = C * 2.0;
  g_sets = int(std::min<double>(64, std::max<double>(2, std::ceil(4.0 * double(l2) / X))));
  auto x = alloc_sets<uint16_t>(n), r = alloc_sets<uint16_t>(n), h = alloc_sets<uint16_t>(n),
       y16 = alloc_sets<uint16_t>(n);
  auto y32 = alloc_sets<float>(n);
  auto w = alloc_sets<uint16_t>(C);
  auto ids = alloc_sets<int32_t>(R * 64);
  for (int i = 0; i < g_sets; ++i) {
    fill_bf16<<<1024, 256>>>(x[i], n, 1 + 7 * i);
    fill_bf16<<<1024, 256>>>(r[i], n, 2 + 7 * i);
    fill_bf16<<<64, 256>>>(w[i], C, 3 + 7 * i);
  }
  CK(cudaDeviceSynchronize());
  const std::string sets = "sets=" + std::to_string(g_sets);
  const float eps = 1e-6f;
  cudaStream_t st = 0;

  // The copies: one bf16 tensor of this shape read and written (2X bytes).
  row("copy/memcpy", sets, R, C,
      time_us([&](int i) { CK(cudaMemcpyAsync(h[i], x[i], size_t(X), cudaMemcpyDeviceToDevice, st)); }), 2 * X);
  const long nv = long(X) / 16;
  const int cgrid = int(std::min<long>((nv + 1023) / 1024, long(sms) * 8));
  row("copy/kernel16", sets, R, C, time_us([&](int i) {
        copy16<<<cgrid, 256, 0, st>>>(reinterpret_cast<const uint4*>(x[i]), reinterpret_cast<uint4*>(h[i]), nv);
      }), 2 * X);

  const int tprs[] = {32, 64, 128, 256};
  auto tag = [](const RowShape& s) { return "tpr=" + std::to_string(s.tpr) + " vpt=" + std::to_string(s.vpt); };
  // The served launch ("served" = what the contract runs) and each forced shape it can take.
  auto sweep_reg = [&](const char* name, double bytes, const std::function<void(int, int)>& f) {
    row(name, "served " + tag(reg_shape(C)), R, C, time_us([&](int i) { f(i, 0); }), bytes);
    for (int t : tprs)
      if (t != reg_shape(C).tpr && reg_shape(C, t).vpt <= kMaxVpt)
        row(name, tag(reg_shape(C, t)), R, C, time_us([&](int i) { f(i, t); }), bytes);
  };
  auto sweep_loop = [&](const char* name, double bytes, const std::function<void(int, int)>& f) {
    row(name, "served " + tag(fast_shape(C, loop_tpr(R, C))), R, C, time_us([&](int i) { f(i, 0); }), bytes);
    for (int t : tprs)
      if (t != loop_tpr(R, C)) row(name, tag(fast_shape(C, t)), R, C, time_us([&](int i) { f(i, t); }), bytes);
  };

  if (g_all && C <= kMaxCols) {
    sweep_reg("rms_norm/bf16_out", X + W + n * 2.0, [&](int i, int t) {
      launch_rms_norm_vec<Bf16Out>(x[i], w[i], (Bf16Out*)y16[i], R, C, eps, st, t);
    });
    sweep_reg("rms_norm/f16_out", X + W + n * 2.0, [&](int i, int t) {
      launch_rms_norm_vec<F16Out>(x[i], w[i], (F16Out*)y16[i], R, C, eps, st, t);
    });
    sweep_reg("rms_norm/f32_out", X + W + n * 4.0,
              [&](int i, int t) { launch_rms_norm_vec<float>(x[i], w[i], y32[i], R, C, eps, st, t); });
    row("rms_norm/f32_out", "halves-store " + tag(reg_shape(C)), R, C, time_us([&](int i) {
          launch_rms_norm_vec<F32Halves>(x[i], w[i], (F32Halves*)y32[i], R, C, eps, st);
        }), X + W + n * 4.0);
  }
  if (g_all && C <= kMaxCols) {
    // Layer norm, bf16 in and out and fp32 in and out (x, w, b widened from the bf16 ones); bytes:
    // x, w and b read, y, mean and rstd written.
    auto b16 = alloc_sets<uint16_t>(C);
    auto x32 = alloc_sets<float>(n), w32 = alloc_sets<float>(C), b32 = alloc_sets<float>(C);
    auto mean = alloc_sets<float>(R), rstd = alloc_sets<float>(R);
    for (int i = 0; i < g_sets; ++i) {
      fill_bf16<<<64, 256>>>(b16[i], C, 4 + 7 * i);
      widen_bf16<<<1024, 256>>>(x[i], x32[i], n);
      widen_bf16<<<64, 256>>>(w[i], w32[i], C);
      widen_bf16<<<64, 256>>>(b16[i], b32[i], C);
    }
    CK(cudaDeviceSynchronize());
    const float leps = 1e-5f;
    // Its own row shapes (ln_shape: by rows and input type), served and forced.
    auto sweep_ln = [&](const char* name, bool f32, double bytes, const std::function<void(int, int)>& f) {
      auto shape = [&](int t) { return f32 ? ln_shape<true>(R, C, t) : ln_shape<false>(R, C, t); };
      row(name, "served " + tag(shape(0)), R, C, time_us([&](int i) { f(i, 0); }), bytes);
      for (int t : tprs)
        if (t != shape(0).tpr && shape(t).vpt <= kMaxVpt)
          row(name, tag(shape(t)), R, C, time_us([&](int i) { f(i, t); }), bytes);
    };
    sweep_ln("layer_norm/bf16", false, X + 2 * W + n * 2.0 + R * 8.0, [&](int i, int t) {
      launch_layer_norm<false, Bf16Out>(x[i], w[i], b16[i], (Bf16Out*)y16[i], mean[i], rstd[i], R, C, leps, st, t);
    });
    sweep_ln("layer_norm/f32", true, 2 * X + 4 * W + n * 4.0 + R * 8.0, [&](int i, int t) {
      launch_layer_norm<true, float>(x32[i], w32[i], b32[i], y32[i], mean[i], rstd[i], R, C, leps, st, t);
    });
    CK(cudaDeviceSynchronize());
    for (auto* v : {&x32, &w32, &b32, &mean, &rstd}) for (auto* p : *v) CK(cudaFree(p));
    for (auto* p : b16) CK(cudaFree(p));
  }
  if (g_all)
    row("rms_norm/tree_f32", "served", R, C,
        time_us([&](int i) { launch_rms_norm_tree(x[i], w[i], y32[i], R, C, eps, st); }), X + W + n * 4.0);
  if (C <= 4096)
    sweep_reg("softmax/bf16", 2 * X, [&](int i, int t) { launch_softmax_vec(x[i], y16[i], R, C, st, t); });
  if (C > 4096) {
    if (C <= kMaxCols)
      sweep_reg("softmax/bf16_long", 2 * X, [&](int i, int t) { launch_softmax_long(x[i], y16[i], R, C, st, t); });
    else
      row("softmax/bf16_long", "served online", R, C,
          time_us([&](int i) { launch_softmax_long(x[i], y16[i], R, C, st); }), 2 * X);
  }
  if (C <= kMaxCols)
    row("softmax/diag_fast_exp", "not served", R, C,
        time_us([&](int i) { launch_softmax_fast_exp(x[i], y16[i], R, C, st); }), 2 * X);
  // The online form (re-reads the row) at this width, for comparison with the register-kept one.
  if (C <= kMaxCols)
    row("softmax/online_form", "tpr=" + std::to_string(row_shape(C).tpr), R, C,
        time_us([&](int i) { launch_softmax_online(x[i], y16[i], R, C, st); }), 2 * X);
  if (!g_all) {
    CK(cudaDeviceSynchronize());
    for (auto* v : {&x, &r, &h, &y16, &w}) for (auto* p : *v) CK(cudaFree(p));
    for (auto* p : y32) CK(cudaFree(p));
    for (auto* p : ids) CK(cudaFree(p));
    return;
  }
  sweep_loop("sum/f32", X + R * 4.0, [&](int i, int t) { launch_row_sum(x[i], y32[i], R, C, st, t); });
  sweep_loop("dot/f32", X + W + R * 4.0, [&](int i, int t) { launch_row_dot(x[i], w[i], y32[i], R, C, st, t); });
  if (R >= kWarpRowsFrom) {  // beside the served two rows a thread at 32 threads a row: one; two at 64
    row("dot/f32", "1 row a thread " + tag(fast_shape(C, 32)), R, C,
        time_us([&](int i) { launch_row_dot(x[i], w[i], y32[i], R, C, st, 32, 1); }), X + W + R * 4.0);
    row("dot/f32", "2 rows a thread " + tag(fast_shape(C, 64)), R, C,
        time_us([&](int i) { launch_row_dot(x[i], w[i], y32[i], R, C, st, 64, 2); }), X + W + R * 4.0);
  }
  sweep_loop("max/bf16", X + R * 2.0, [&](int i, int t) { launch_row_max(x[i], y16[i], R, C, st, t); });
  sweep_loop("argmax/bf16", X + R * 4.0, [&](int i, int t) { launch_row_argmax(x[i], ids[i], R, C, st, t); });
  for (int v : {1, 2, 4}) {
    const std::string tg = (v == kSwigluV ? "served V=" : "V=") + std::to_string(v);
    row("swiglu/bf16", tg, R, C, time_us([&](int i) { launch_swiglu(x[i], r[i], y16[i], n, st, v); }), 3 * X);
  }
  for (int v : {1, 2, 4}) {
    const std::string tg = (v == kGegluV ? "served V=" : "V=") + std::to_string(v);
    row("geglu/bf16", tg, R, C, time_us([&](int i) { launch_geglu(x[i], r[i], y16[i], n, st, v); }), 3 * X);
  }
  if (C <= kMaxCols) {
    row("add_rms_norm/rounded", "served", R, C, time_us([&](int i) {
          launch_add_rms_norm<false>(x[i], r[i], w[i], h[i], y16[i], R, C, eps, st);
        }), 4 * X + W);
    row("add_rms_norm/once_rounded", "served", R, C, time_us([&](int i) {
          launch_add_rms_norm<true>(x[i], r[i], w[i], h[i], y16[i], R, C, eps, st);
        }), 4 * X + W);
    row("topk/bf16_k8", "served", R, C,
        time_us([&](int i) { launch_topk_bf16(x[i], ids[i], y16[i], R, C, 8, st); }), X + R * 8 * 6.0);
    row("topk/bf16_k64", "served", R, C,
        time_us([&](int i) { launch_topk_bf16(x[i], ids[i], y16[i], R, C, 64, st); }), X + R * 64 * 6.0);
  }
  CK(cudaDeviceSynchronize());
  for (auto* v : {&x, &r, &h, &y16, &w}) for (auto* p : *v) CK(cudaFree(p));
  for (auto* p : y32) CK(cudaFree(p));
  for (auto* p : ids) CK(cudaFree(p));
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--exp-check") return exp_check();
  if (const char* o = std::getenv("KC_BENCH_ONLY")) g_all = std::string(o) != "softmax";
  std::vector<std::pair<long, long>> shapes;
  for (int a = 1; a + 1 < argc; a += 2) shapes.push_back({atol(argv[a]), atol(argv[a + 1])});
  if (shapes.empty()) shapes = {{8192, 4096}, {8192, 8192}, {8192, 16384}, {32, 4096}};
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::fprintf(stderr, "%s: %d SMs, L2 %d MiB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
  std::printf("kernel,variant,rows,cols,us,bytes,GBps\n");
  // The device's large copy, for reference: a 1 GiB device-to-device memcpy, two sets, same method.
  {
    const size_t bytes = size_t(1) << 30;
    g_sets = 2;
    void *a[2], *b[2];
    for (int i = 0; i < 2; ++i) {
      CK(cudaMalloc(&a[i], bytes));
      CK(cudaMalloc(&b[i], bytes));
      CK(cudaMemset(a[i], 1, bytes));
    }
    row("copy/memcpy_1GiB", "sets=2", 0, 0,
        time_us([&](int i) { CK(cudaMemcpyAsync(b[i], a[i], bytes, cudaMemcpyDeviceToDevice)); }), 2.0 * bytes);
    for (int i = 0; i < 2; ++i) {
      CK(cudaFree(a[i]));
      CK(cudaFree(b[i]));
    }
  }
  for (auto [R, C] : shapes) bench_shape(R, C, p.multiProcessorCount, size_t(p.l2CacheSize));
  return 0;
}
