// Contract of the CUDA FP8 GEMV (../bs_gemv.cuh): e4m3 weights per tensor, channel or 128 x 128
// block, bf16 or FP8 activations, 1-32 rows; one instantiation a row form (8, 16, 32 rows).
// NaN rule: propagate; e4m3's 0x7F and 0xFF are NaN, in the hardware decode (sm_89 on) as in the
// software one (bs_gemv.cuh's e4m3x16). The kernels are fp8_gemv_tensor.cu's, fp8_gemv_channel.cu's
// and fp8_gemv_block128.cu's, reached through their launchers (served_fp8_gemv).
#include "../../common/cuda_contract.hpp"
#include "../bs_gemv.cuh"
#include "kc/families/blockscaled.hpp"

#include <string>

namespace {
using namespace kc::bs_cu;
using W = kc::blockscaled::Weights;
using A = kc::blockscaled::Acts;

// At most 32 rows: served_fp8_gemv launches the instantiation of rows_form(m).
template <int Wf, int Af> void launch(const kc::Buffers& b) {
  const kc::Shape& s = b.shape();
  const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
  const bool bf = Af == a_bf16;
  kc::cu::need_aligned16(b, {bf ? "x" : "xq", "q"});
  served_fp8_gemv<Wf, Af>(b.ptr(bf ? "x" : "xq"), bf ? nullptr : b.in<float>("sx"), b.in<uint8_t>("q"),
                          b.in<float>("s"), b.ptr("y"), M, N, K, b.stream());
}

template <int Wf, int Af> kc::Entry fp8_gemv(const std::string& name, W w, A a) {
  return kc::blockscaled::projection(w, a, kc::DType::bf16)
      .served({{"m", {1, 8, 16, 32}}, {"n", {64, 2048}}, {"k", {128, 2064, 4096}}})
      .range("k", 16, 16)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return fp8_depth(s["k"], Af == a_fp8_group); },
            (Wf == w_block128 ? 0 : 1) + (Af == a_fp8_tensor ? 1 : 0))
      .launches({name + "/m8", name + "/m16", name + "/m32"})
      .picks([name](const kc::Shape& s) { return name + "/m" + std::to_string(rows_form(s["m"])); })
      .note("e4m3 decode (cvt from sm_89 on, software below): 0x7F and 0xFF are NaN")
      .launch([](const kc::Buffers& b) {
        if (b.shape()["m"] > 32) throw kc::Error("blockscaled/fp8_gemv: at most 32 rows");
        launch<Wf, Af>(b);
      });
}
}  // namespace

#define KC_BS_FP8(NAME, WF, AF, WE, AE) \
  KC_KERNEL("blockscaled/fp8_gemv/" NAME, cuda) { return fp8_gemv<WF, AF>("blockscaled/fp8_gemv/" NAME, WE, AE); }

KC_BS_FP8("fp8_tensor/a_bf16", w_tensor, a_bf16, W::fp8_tensor, A::bf16)
KC_BS_FP8("fp8_tensor/a_fp8", w_tensor, a_fp8_tensor, W::fp8_tensor, A::fp8_tensor)
KC_BS_FP8("fp8_channel/a_bf16", w_channel, a_bf16, W::fp8_channel, A::bf16)
KC_BS_FP8("fp8_block128/a_bf16", w_block128, a_bf16, W::fp8_block128, A::bf16)
KC_BS_FP8("fp8_block128/a_fp8_g128", w_block128, a_fp8_group, W::fp8_block128, A::fp8_group128)
