// Gate 3 control: SwiGLU with one of MLX's rounding points dropped: silu = g * sigmoid is not
// rounded to bf16 before the product with u. The rounding-point interval check must catch it.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../common.cuh"

__global__ void __launch_bounds__(256) kc_ctl_swiglu_drop_silu(const uint16_t* g, const uint16_t* u, uint16_t* y, long n) {
  using namespace kc::cu;
  const long i = long(blockIdx.x) * 256 + threadIdx.x;
  if (i >= n) return;
  const float gf = bf16_to_f32(g[i]), uf = bf16_to_f32(u[i]);
  const float sg = rb(1.0f / rb(1.0f + rb(expf(-gf))));
  y[i] = uint16_t(f32_to_bf16((gf * sg) * uf));  // planted: rb(gf * sg) dropped
}

KC_CONTROL("rows/ctl_swiglu_drop_silu/bf16", cuda) {
  return kc::rows::swiglu()
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .launches({"rows/ctl_swiglu_drop_silu/bf16"})
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) {
        const long n = long(b.shape()["rows"]) * b.shape()["cols"];
        kc_ctl_swiglu_drop_silu<<<unsigned((n + 255) / 256), 256, 0, kc::cu::stream_of(b)>>>(
            reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("g")), reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("u")),
            reinterpret_cast<uint16_t*>(b.out<kc::bf16>("y")), n);
      });
}
KC_CUDA_LAUNCH("rows/ctl_swiglu_drop_silu/bf16", kc_ctl_swiglu_drop_silu, 256, 0);
