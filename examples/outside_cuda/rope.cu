// Rotary embedding of queries and keys in one launch (NeoX halves), bf16 in and out, fp32 math:
// a block a token, its threads over every (head, pair) of q then k. Held to the formula of
// examples/rotary/rotary.hpp,
// with a control that launches the same kernel on the legacy default stream.
#include <cuda_bf16.h>

#include <kc/cuda.hpp>
#include <kc/registry.hpp>

#include "../rotary/rotary_cpu.hpp"

constexpr int kThreads = 128;

// At namespace scope (not in an anonymous namespace), so its launch row names it plainly.
__global__ void __launch_bounds__(kThreads)
    rope_neox(const __nv_bfloat16* q, const __nv_bfloat16* k, const float* cache, const int* positions,
              __nv_bfloat16* q_out, __nv_bfloat16* k_out, int heads, int kv, int dim) {
  const int t = blockIdx.x, half = dim / 2;
  const float* cs = cache + size_t(positions[t]) * dim;
  const int nq = heads * half, n = (heads + kv) * half;
  for (int j = threadIdx.x; j < n; j += kThreads) {
    const bool is_q = j < nq;
    const int jj = is_q ? j : j - nq, h = jj / half, i = jj % half;
    const size_t base = (size_t(t) * (is_q ? heads : kv) + h) * dim;
    const __nv_bfloat16* x = (is_q ? q : k) + base;
    __nv_bfloat16* y = (is_q ? q_out : k_out) + base;
    const float x0 = __bfloat162float(x[i]), x1 = __bfloat162float(x[i + half]), c = cs[i], s = cs[half + i];
    y[i] = __float2bfloat16_rn(x0 * c - x1 * s);
    y[i + half] = __float2bfloat16_rn(x1 * c + x0 * s);
  }
}

namespace {

void launch(const kc::Buffers& b, cudaStream_t stream) {
  const rope::Dims d = rope::dims_of(b.shape());
  rope_neox<<<unsigned(d.tokens), kThreads, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(b.ptr("q")), static_cast<const __nv_bfloat16*>(b.ptr("k")),
      b.in<float>("cache"), b.in<int32_t>("positions"), static_cast<__nv_bfloat16*>(b.ptr("q_out")),
      static_cast<__nv_bfloat16*>(b.ptr("k_out")), int(d.heads), int(d.kv), int(d.dim));
}

}  // namespace

KC_KERNEL("outside/rope/bf16", cuda) {
  return rope::contract().launches({"outside/rope/bf16"}).launch([](const kc::Buffers& b) {
    launch(b, kc::cuda::stream(b));
  });
}

// Planted: the launcher ignores the harness's stream (<<<grid, block>>> with none): red at gate 5's
// run-time check, why=stream.
KC_CONTROL("outside/rope/ctl_default_stream", cuda) {
  return rope::contract()
      .launches({"outside/rope/ctl_default_stream"})
      .control(kc::Gate::limits, kc::Why::stream)
      .launch([](const kc::Buffers& b) { launch(b, 0); });
}

KC_CUDA_LAUNCH("outside/rope/bf16", rope_neox, kThreads, 0);
KC_CUDA_LAUNCH("outside/rope/ctl_default_stream", rope_neox, kThreads, 0);
