// Control: the MXFP4 GEMV reading each e8m0 scale one exponent high (2^(c - 126): an off-by-one
// bias), so every output doubles: gate 3's random scales must catch it.
#include "../../../kernels/blockscaled/bs_gemv.cuh"
#include "../../../kernels/common/cuda_contract.hpp"
#include "kc/families/blockscaled.hpp"

using namespace kc::bs_cu;

KC_CONTROL("blockscaled/ctl_e8m0_off/mxfp4", cuda) {
  return kc::blockscaled::projection(kc::blockscaled::Weights::mxfp4, kc::blockscaled::Acts::bf16, kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 512}}, {"k", {128, 2080}}})
      .range("k", 32, 32)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return fp4_depth(s["k"], 32); })
      .launches({"blockscaled/ctl_e8m0_off/mxfp4"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        kc::cu::need_aligned16(b, {"x", "q"});
        const int N = int(s["n"]);
        kc_bs_fp4_gemv_fault<8, float, w_mx, f_e8m0_off>
            <<<unsigned((N + kWarps - 1) / kWarps), kThreads, 0, kc::cu::stream_of(b)>>>(
                static_cast<const uint16_t*>(b.ptr("x")), b.in<uint8_t>("q"), b.in<uint8_t>("s"), nullptr, b.out<float>("y"),
                int(s["m"]), N, int(s["k"]));
      });
}

KC_CUDA_LAUNCH("blockscaled/ctl_e8m0_off/mxfp4", (kc_bs_fp4_gemv_fault<8, float, w_mx, f_e8m0_off>), kThreads, 0);
