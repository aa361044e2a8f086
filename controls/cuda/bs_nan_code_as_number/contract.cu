// Control: the FP8 GEMV reading e4m3's NaN codes 0x7F / 0xFF as +-480 (a decode that forgets them):
// finite where float64 is NaN, red at gate 1; the random fills hold no NaN code, so gate 3 is green.
#include "../../../kernels/blockscaled/bs_gemv.cuh"
#include "../../../kernels/common/cuda_contract.hpp"
#include "kc/families/blockscaled.hpp"

using namespace kc::bs_cu;

KC_CONTROL("blockscaled/ctl_nan_code_as_number/fp8_tensor", cuda) {
  return kc::blockscaled::projection(kc::blockscaled::Weights::fp8_tensor, kc::blockscaled::Acts::bf16, kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 512}}, {"k", {128, 2064}}})
      .range("k", 16, 16)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return fp8_depth(s["k"], false); }, 1)
      .launches({"blockscaled/ctl_nan_code_as_number/fp8_tensor"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        kc::cu::need_aligned16(b, {"x", "q"});
        const int N = int(s["n"]);
        kc_bs_fp8_gemv<8, float, w_tensor, a_bf16, f_nan_code_as_number>
            <<<unsigned((N + kWarps - 1) / kWarps), kThreads, 0, kc::cu::stream_of(b)>>>(
                b.ptr("x"), nullptr, b.in<uint8_t>("q"), b.in<float>("s"), b.out<float>("y"), int(s["m"]), N, int(s["k"]));
      });
}

KC_CUDA_LAUNCH("blockscaled/ctl_nan_code_as_number/fp8_tensor", (kc_bs_fp8_gemv<8, float, w_tensor, a_bf16, f_nan_code_as_number>),
               kThreads, 0);
