// Control: the FP8 wgmma GEMM with every step's wgmma accumulating into one tensor-core sum over the
// whole of K, never promoted to fp32, stated as the served kernel's promoted sums. Gate 4's rows put
// 32 products of 2^16 (codes) in K's first 128 columns and small ones in later intervals: promoted,
// every sum is exact; in the tensor core's accumulator the small ones meet a 2^21 sum, of which it
// keeps too few bits (tc_interval.hpp), so gate 4 must go red. Only the sm_90a image holds wgmma:
// elsewhere the control is not run (kc::NotHere), never green.
#include "../../../kernels/blockscaled/fp8_gemm/fp8_gemm_sm90a.cuh"
#include "../../../kernels/blockscaled/fp8_gemm/tc_interval.hpp"
#include "../../../kernels/common/cuda_contract.hpp"
#include "kc/families/blockscaled.hpp"
#include "kc/not_here.hpp"

using namespace kc::bs_cu;
#define KC_NEVER_PROMOTES kc_fp8_gemm_wgmma<w_tensor, a_fp8_tensor, __nv_bfloat16, kc::fp8gemm::f_never_promote>

KC_CONTROL("blockscaled/ctl_never_promotes/fp8_tensor", cuda) {
  (void)cudaFuncSetAttribute(KC_NEVER_PROMOTES, cudaFuncAttributeMaxDynamicSharedMemorySize, kc::fp8gemm::kSmemBytes);
  if (!kc::gemm90::image_has_wgmma())
    throw kc::NotHere("its fault is in wgmma, which only an sm_90 device loading the sm_90a image runs");
  return kc::blockscaled::projection(kc::blockscaled::Weights::fp8_tensor, kc::blockscaled::Acts::fp8_tensor,
                                     kc::DType::bf16, 128)
      .served({{"m", {33, 256}}, {"n", {128, 520}}, {"k", {384, 2064}}})
      .tile("m", 128, 1, 1)
      .tile("n", 128, 1, 1)
      .tile("k", 128, 16, 16)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return kc::fp8gemm::tc_interval_depth() + double((s["k"] + 127) / 128); }, 2)
      .launches({"blockscaled/ctl_never_promotes/fp8_tensor"})
      .control(kc::Gate::sums, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        kc::cu::need_aligned16(b, {"xq", "q"});
        const int M = int(s["m"]), N = int(s["n"]);
        if (cudaFuncSetAttribute(KC_NEVER_PROMOTES, cudaFuncAttributeMaxDynamicSharedMemorySize, kc::fp8gemm::kSmemBytes))
          throw kc::Error("blockscaled/ctl_never_promotes: cannot opt in to its dynamic shared memory");
        KC_NEVER_PROMOTES<<<unsigned((M + 127) / 128) * unsigned((N + 127) / 128), kc::fp8gemm::kThreads, kc::fp8gemm::kSmemBytes,
                         kc::cu::stream_of(b)>>>(b.in<uint8_t>("xq"), b.in<float>("sx"), b.in<uint8_t>("q"), b.in<float>("s"),
                                                 static_cast<__nv_bfloat16*>(b.ptr("y")), M, N, int(s["k"]));
      });
}

KC_CUDA_LAUNCH("blockscaled/ctl_never_promotes/fp8_tensor",
               (KC_NEVER_PROMOTES),
               kc::fp8gemm::kThreads, kc::fp8gemm::kSmemBytes);
