// Controls: the MXFP4 GEMV with one planted decode fault each, red at gate 3 (its random codes and
// scales must catch them):
//   ctl_nibbles_swapped  each byte's high nibble read as element 2i, the low one as 2i + 1 (the
//                        family stores element 2i low);
//   ctl_e8m0_off         each e8m0 scale read one exponent high (2^(c - 126): an off-by-one bias),
//                        so every output doubles.
#include "../../../kernels/blockscaled/bs_gemv.cuh"
#include "../../../kernels/common/cuda_contract.hpp"
#include "kc/families/blockscaled.hpp"

#include <string>

using namespace kc::bs_cu;

namespace {
template <int F> kc::Entry fp4_fault(const std::string& launch) {
  return kc::blockscaled::projection(kc::blockscaled::Weights::mxfp4, kc::blockscaled::Acts::bf16, kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 512}}, {"k", {128, 2080}}})
      .range("k", 32, 32)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return fp4_depth(s["k"], 32); })
      .launches({launch})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        kc::cu::need_aligned16(b, {"x", "q"});
        const int N = int(s["n"]);
        kc_bs_fp4_gemv_fault<8, float, w_mx, F><<<unsigned((N + kWarps - 1) / kWarps), kThreads, 0, kc::cu::stream_of(b)>>>(
            static_cast<const uint16_t*>(b.ptr("x")), b.in<uint8_t>("q"), b.in<uint8_t>("s"), nullptr, b.out<float>("y"),
            int(s["m"]), N, int(s["k"]));
      });
}
}  // namespace

KC_CONTROL("blockscaled/ctl_nibbles_swapped/mxfp4", cuda) {
  return fp4_fault<f_nibbles_swapped>("blockscaled/ctl_nibbles_swapped/mxfp4");
}
KC_CONTROL("blockscaled/ctl_e8m0_off/mxfp4", cuda) { return fp4_fault<f_e8m0_off>("blockscaled/ctl_e8m0_off/mxfp4"); }

KC_CUDA_LAUNCH("blockscaled/ctl_nibbles_swapped/mxfp4", (kc_bs_fp4_gemv_fault<8, float, w_mx, f_nibbles_swapped>), kThreads, 0);
KC_CUDA_LAUNCH("blockscaled/ctl_e8m0_off/mxfp4", (kc_bs_fp4_gemv_fault<8, float, w_mx, f_e8m0_off>), kThreads, 0);
