// Contract of the CUDA FP4 GEMV (../bs_gemv.cuh): MXFP4 and NVFP4 weights decoded in software (the
// H200 has no FP4 tensor core), bf16 activations, 1-32 rows; one instantiation a row form. The
// kernels are fp4_gemv.cu's, reached through its launcher (served_fp4_gemv).
#include "../../common/cuda_contract.hpp"
#include "../bs_gemv.cuh"
#include "kc/families/blockscaled.hpp"

#include <string>

namespace {
using namespace kc::bs_cu;
using W = kc::blockscaled::Weights;

// At most 32 rows: served_fp4_gemv launches the instantiation of rows_form(m).
template <int Wf> void launch(const kc::Buffers& b) {
  const kc::Shape& s = b.shape();
  const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
  if (K % 32) throw kc::Error("blockscaled/fp4_gemv: k must be a multiple of 32 for 16-byte loads");
  kc::cu::need_aligned16(b, {"x", "q"});
  served_fp4_gemv<Wf>(static_cast<const uint16_t*>(b.ptr("x")), b.in<uint8_t>("q"), b.in<uint8_t>("s"),
                      Wf == w_nv ? b.in<float>("g") : nullptr, b.ptr("y"), M, N, K, b.stream());
}

template <int Wf> kc::Entry fp4_gemv(const std::string& name, W w) {
  constexpr int B = Wf == w_mx ? 32 : 16;
  return kc::blockscaled::projection(w, kc::blockscaled::Acts::bf16, kc::DType::bf16)
      .served({{"m", {1, 8, 16, 32}}, {"n", {64, 2048}}, {"k", {128, 2080, 4096}}})
      .range("k", 32, 32)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return fp4_depth(s["k"], B); }, Wf == w_nv ? 1 : 0)
      .launches({name + "/m8", name + "/m16", name + "/m32"})
      .picks([name](const kc::Shape& s) { return name + "/m" + std::to_string(rows_form(s["m"])); })
      .launch([](const kc::Buffers& b) {
        if (b.shape()["m"] > 32) throw kc::Error("blockscaled/fp4_gemv: at most 32 rows");
        launch<Wf>(b);
      });
}
}  // namespace

#define KC_BS_FP4(NAME, WF, WE) \
  KC_KERNEL("blockscaled/fp4_gemv/" NAME, cuda) { return fp4_gemv<WF>("blockscaled/fp4_gemv/" NAME, WE); }

KC_BS_FP4("mxfp4/a_bf16", w_mx, W::mxfp4)
KC_BS_FP4("nvfp4/a_bf16", w_nv, W::nvfp4)
