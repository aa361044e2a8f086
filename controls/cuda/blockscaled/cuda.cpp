// The block-scaled family's planted controls on CUDA, each a served kernel with one fault compiled in
// (blockscaled_controls.cu's kernels, reached through each control's header).
#include <string>

#include "../../../kernels/blockscaled/fp8_gemm/tc_interval.hpp"
#include "../../../kernels/common/cuda_contract.hpp"
#include "bs_fp4_faults.cuh"
#include "bs_nan_code_as_number.cuh"
#include "bs_neighbour_scale.cuh"
#include "bs_never_promotes.cuh"
#include "kc/families/blockscaled.hpp"
#include "kc/not_here.hpp"

using namespace kc::bs_cu;

// The MXFP4 GEMV with one planted decode fault each, red at gate 3 (its random codes and scales must
// catch them):
//   ctl_nibbles_swapped  each byte's high nibble read as element 2i, the low one as 2i + 1 (the
//                        family stores element 2i low);
//   ctl_e8m0_off         each e8m0 scale read one exponent high (2^(c - 126): an off-by-one bias),
//                        so every output doubles.
namespace {
kc::Entry fp4_fault(Fault f, const std::string& launch) {
  return kc::blockscaled::projection(kc::blockscaled::Weights::mxfp4, kc::blockscaled::Acts::bf16, kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 512}}, {"k", {128, 2080}}})
      .range("k", 32, 32)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return fp4_depth(s["k"], 32); })
      .launches({launch})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([f](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        kc::cu::need_aligned16(b, {"x", "q"});
        ctl_fp4_gemv_fault(f, static_cast<const uint16_t*>(b.ptr("x")), b.in<uint8_t>("q"), b.in<uint8_t>("s"),
                           b.out<float>("y"), int(s["m"]), int(s["n"]), int(s["k"]), b.stream());
      });
}
}  // namespace

KC_CONTROL("blockscaled/ctl_nibbles_swapped/mxfp4", cuda) {
  return fp4_fault(f_nibbles_swapped, "blockscaled/ctl_nibbles_swapped/mxfp4");
}
KC_CONTROL("blockscaled/ctl_e8m0_off/mxfp4", cuda) { return fp4_fault(f_e8m0_off, "blockscaled/ctl_e8m0_off/mxfp4"); }

// The FP8 GEMV reading e4m3's NaN codes 0x7F / 0xFF as +-480 (a decode that forgets them): finite
// where float64 is NaN, red at gate 1; the random fills hold no NaN code, so gate 3 is green.
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
        ctl_fp8_nan_code_as_number(b.ptr("x"), b.in<uint8_t>("q"), b.in<float>("s"), b.out<float>("y"), int(s["m"]),
                                   int(s["n"]), int(s["k"]), b.stream());
      });
}

// The FP8 GEMV over 128 x 128 blocks, each 128-column piece times the next K block's scale (the last
// block's, block 0's). A permutation of the scales, so gate 1's classes hold and gate 4's equal
// scales hide it: gate 3's random scales must catch it.
KC_CONTROL("blockscaled/ctl_neighbour_scale/fp8_block128", cuda) {
  return kc::blockscaled::projection(kc::blockscaled::Weights::fp8_block128, kc::blockscaled::Acts::bf16, kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 512}}, {"k", {128, 2064}}})
      .range("k", 16, 16)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return fp8_depth(s["k"], false); })
      .launches({"blockscaled/ctl_neighbour_scale/fp8_block128"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        kc::cu::need_aligned16(b, {"x", "q"});
        ctl_fp8_neighbour_scale(b.ptr("x"), b.in<uint8_t>("q"), b.in<float>("s"), b.out<float>("y"), int(s["m"]),
                                int(s["n"]), int(s["k"]), b.stream());
      });
}

// The FP8 wgmma GEMM with every step's wgmma accumulating into one tensor-core sum over the whole of
// K, never promoted to fp32, stated as the served kernel's promoted sums. Gate 4's rows put 32
// products of 2^16 (codes) in K's first 128 columns and small ones in later intervals: promoted,
// every sum is exact; in the tensor core's accumulator the small ones meet a 2^21 sum, of which it
// keeps too few bits (tc_interval.hpp), so gate 4 must go red. Only the sm_90a image holds wgmma:
// elsewhere the control is not run (kc::NotHere), never green.
KC_CONTROL("blockscaled/ctl_never_promotes/fp8_tensor", cuda) {
  (void)kc::fp8gemm::ctl_never_promotes_prepare();
  if (!kc::fp8gemm::ctl_never_promotes_here())
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
        if (kc::fp8gemm::ctl_never_promotes_prepare())
          throw kc::Error("blockscaled/ctl_never_promotes: cannot opt in to its dynamic shared memory");
        kc::fp8gemm::ctl_never_promotes(b.in<uint8_t>("xq"), b.in<float>("sx"), b.in<uint8_t>("q"), b.in<float>("s"),
                                        b.ptr("y"), M, N, int(s["k"]), b.stream());
      });
}
