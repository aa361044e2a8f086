// Control: the FP8 GEMV over 128 x 128 blocks, each 128-column piece times the next K block's scale
// (the last block's, block 0's). A permutation of the scales, so gate 1's classes hold and gate 4's
// equal scales hide it: gate 3's random scales must catch it.
#include "../../../kernels/blockscaled/bs_gemv.cuh"
#include "../../../kernels/common/cuda_contract.hpp"
#include "kc/families/blockscaled.hpp"

using namespace kc::bs_cu;

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
        const int N = int(s["n"]);
        kc_bs_fp8_gemv<8, float, w_block128, a_bf16, f_neighbour_scale>
            <<<unsigned((N + kWarps - 1) / kWarps), kThreads, 0, kc::cu::stream_of(b)>>>(
                b.ptr("x"), nullptr, b.in<uint8_t>("q"), b.in<float>("s"), b.out<float>("y"), int(s["m"]), N, int(s["k"]));
      });
}

KC_CUDA_LAUNCH("blockscaled/ctl_neighbour_scale/fp8_block128", (kc_bs_fp8_gemv<8, float, w_block128, a_bf16, f_neighbour_scale>),
               kThreads, 0);
