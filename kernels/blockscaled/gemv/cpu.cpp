// CPU block-scaled GEMV (decode, 1-32 rows) for every weight form and its activations.
#include "../bs_entry.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc;
using bs_cpu::Form;
using W = blockscaled::Weights;
using A = blockscaled::Acts;

template <W w, A a, class Out> Entry cpu_gemv() {
  return bs_cpu::gemv_entry(Form{w, a}, dtype_of<Out>()).launch([](const Buffers& b) {
    bs_cpu::gemv<Out>(b, Form{w, a});
  });
}
}  // namespace

KC_KERNEL("blockscaled/gemv/fp8_tensor/a_bf16", cpu) { return cpu_gemv<W::fp8_tensor, A::bf16, bf16>(); }
KC_KERNEL("blockscaled/gemv/fp8_tensor/a_fp8", cpu) { return cpu_gemv<W::fp8_tensor, A::fp8_tensor, bf16>(); }
KC_KERNEL("blockscaled/gemv/fp8_channel/a_bf16", cpu) { return cpu_gemv<W::fp8_channel, A::bf16, bf16>(); }
KC_KERNEL("blockscaled/gemv/fp8_channel/a_fp8", cpu) { return cpu_gemv<W::fp8_channel, A::fp8_tensor, float>(); }
KC_KERNEL("blockscaled/gemv/fp8_block128/a_bf16", cpu) { return cpu_gemv<W::fp8_block128, A::bf16, bf16>(); }
KC_KERNEL("blockscaled/gemv/fp8_block128/a_bf16/f32", cpu) { return cpu_gemv<W::fp8_block128, A::bf16, float>(); }
KC_KERNEL("blockscaled/gemv/fp8_block128/a_fp8_g128", cpu) {
  return cpu_gemv<W::fp8_block128, A::fp8_group128, bf16>();
}
KC_KERNEL("blockscaled/gemv/mxfp4/a_bf16", cpu) { return cpu_gemv<W::mxfp4, A::bf16, bf16>(); }
KC_KERNEL("blockscaled/gemv/nvfp4/a_bf16", cpu) { return cpu_gemv<W::nvfp4, A::bf16, bf16>(); }
KC_KERNEL("blockscaled/gemv/nvfp4/a_bf16/f32", cpu) { return cpu_gemv<W::nvfp4, A::bf16, float>(); }
