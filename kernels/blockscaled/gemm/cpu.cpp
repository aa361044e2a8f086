// CPU block-scaled GEMM (prompt rows, 4 x 8 output tiles) for every weight form.
#include "../bs_entry.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc;
using bs_cpu::Form;
using W = blockscaled::Weights;
using A = blockscaled::Acts;

template <W w, A a, class Out> Entry cpu_gemm() {
  return bs_cpu::gemm_entry(Form{w, a}, dtype_of<Out>()).launch([](const Buffers& b) {
    bs_cpu::gemm<Out>(b, Form{w, a});
  });
}
}  // namespace

KC_KERNEL("blockscaled/gemm/fp8_tensor/a_fp8", cpu) { return cpu_gemm<W::fp8_tensor, A::fp8_tensor, bf16>(); }
KC_KERNEL("blockscaled/gemm/fp8_channel/a_bf16", cpu) { return cpu_gemm<W::fp8_channel, A::bf16, bf16>(); }
KC_KERNEL("blockscaled/gemm/fp8_block128/a_bf16", cpu) { return cpu_gemm<W::fp8_block128, A::bf16, float>(); }
KC_KERNEL("blockscaled/gemm/fp8_block128/a_fp8_g128", cpu) {
  return cpu_gemm<W::fp8_block128, A::fp8_group128, bf16>();
}
KC_KERNEL("blockscaled/gemm/mxfp4/a_bf16", cpu) { return cpu_gemm<W::mxfp4, A::bf16, bf16>(); }
KC_KERNEL("blockscaled/gemm/nvfp4/a_bf16", cpu) { return cpu_gemm<W::nvfp4, A::bf16, float>(); }
