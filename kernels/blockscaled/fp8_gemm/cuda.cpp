// Contract of the CUDA FP8 prompt projection: e4m3 activations and weights, scales per tensor, per
// output channel, or per 128 x 128 weight block with 128-column activation groups; bf16 out, ragged
// M, N and K (K a multiple of 16). Two kernels, one picked at run time as the dense GEMM picks: on an
// sm_90 device whose loaded image is sm_90a, the wgmma kernel (fp8_gemm_sm90a.cuh, 128 x 128 tiles,
// each 128 columns of K summed on the tensor cores and promoted to fp32); everywhere else the CUDA-core
// kernel (fp8_gemm.cuh, 64 x 64 tiles). NaN rule: propagate; the tensor cores decode e4m3's NaN
// codes to NaN, as the software decode does (e4m3-decode-check: every pair equal). The kernels are
// fp8_gemm.cu's, reached through its exports (kc::fp8gemm's wgmma_here, prepare_wgmma, served_*).
#include "../../common/cuda_contract.hpp"
#include "fp8_gemm.cuh"
#include "fp8_gemm_sm90a.cuh"
#include "kc/families/blockscaled.hpp"
#include "tc_interval.hpp"

#include <string>

namespace {
using namespace kc::bs_cu;
using W = kc::blockscaled::Weights;
using A = kc::blockscaled::Acts;

bool use_wgmma() {
  static const bool yes = kc::fp8gemm::wgmma_here();
  return yes;
}

template <int Wf, int Af> void run(const kc::Buffers& b) {
  const kc::Shape& s = b.shape();
  const int M = int(s["m"]), N = int(s["n"]), K = int(s["k"]);
  if (K % 16) throw kc::Error("blockscaled/fp8_gemm: k must be a multiple of 16 for 16-byte copies");
  kc::cu::need_aligned16(b, {"xq", "q"});
  void* y = b.ptr("y");
  void* st = b.stream();
  if (use_wgmma()) {
    const cudaError_t ok = kc::fp8gemm::prepare_wgmma<Wf, Af>();
    if (ok != cudaSuccess)
      throw kc::Error(std::string("blockscaled/fp8_gemm: cannot opt in to its dynamic shared memory: ") + cudaGetErrorString(ok));
    kc::fp8gemm::served_wgmma<Wf, Af>(b.in<uint8_t>("xq"), b.in<float>("sx"), b.in<uint8_t>("q"), b.in<float>("s"), y,
                                      M, N, K, st);
  } else {
    kc::fp8gemm::served_simt<Wf, Af>(b.in<uint8_t>("xq"), b.in<float>("sx"), b.in<uint8_t>("q"), b.in<float>("s"), y,
                                     M, N, K, st);
  }
}

// Depth, per output: the CUDA-core kernel's chain of 128 and one fma a block; the wgmma kernel's
// interval of four tensor-core steps under their measured rule (tc_interval.hpp) and one fma a
// block. Where a block's scale is a product of two, one more rounding; per tensor and per channel,
// two fp32 multiplies after the sums (the entry's ops).
template <int Wf> double depth(int64_t k) {
  static const double tc = kc::fp8gemm::tc_interval_depth();
  const double blocks = double((k + 127) / 128), two = Wf == w_block128 ? 1 : 0;
  return (use_wgmma() ? tc : 128) + blocks + two;
}

template <int Wf, int Af> kc::Entry fp8_gemm(const std::string& name, W w, A a) {
  (void)kc::fp8gemm::prepare_wgmma<Wf, Af>();
  const bool wg = use_wgmma();
  return kc::blockscaled::projection(w, a, kc::DType::bf16, wg ? 128 : 0)
      .served({{"m", {33, 512}}, {"n", {128, 1040}}, {"k", {384, 2064}}})
      .tile("m", wg ? 128 : 64, 1, 1)
      .tile("n", wg ? 128 : 64, 1, 1)
      .tile("k", 128, 16, 16)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return depth<Wf>(s["k"]); }, Wf == w_block128 ? 0 : 2)
      .launches({name + (wg ? "/wgmma" : "/cuda_cores")})
      .note(wg ? "wgmma kernel (sm_90a image): e4m3 tensor cores, promoted to fp32 every 128 columns"
               : "CUDA-core kernel, software e4m3 decode")
      .launch(run<Wf, Af>);
}
}  // namespace

#define KC_FP8_GEMM(NAME, WF, AF, WE, AE) \
  KC_KERNEL("blockscaled/fp8_gemm/" NAME, cuda) { return fp8_gemm<WF, AF>("blockscaled/fp8_gemm/" NAME, WE, AE); }

KC_FP8_GEMM("fp8_tensor/a_fp8", w_tensor, a_fp8_tensor, W::fp8_tensor, A::fp8_tensor)
KC_FP8_GEMM("fp8_channel/a_fp8", w_channel, a_fp8_tensor, W::fp8_channel, A::fp8_tensor)
KC_FP8_GEMM("fp8_block128/a_fp8_g128", w_block128, a_fp8_group, W::fp8_block128, A::fp8_group128)
