// Contract of the CUDA decode projection (gemv.cuh): bf16 x and W, fp32 sums, bf16 or fp32 out.
#include "../../common/cuda_contract.hpp"
#include "gemv.cuh"
#include "kc/families/dense.hpp"

#include <string>

namespace {
using namespace kc::dense_cu;

template <class Out> void run_gemv(const kc::Buffers& b) {
  kc::cu::need_aligned16(b, {"x", "w"});
  const kc::Shape& s = b.shape();
  if (s["k"] % 8) throw kc::Error("dense/gemv: k must be a multiple of 8 for 16-byte loads");
  launch_gemv<Out>(b.ptr("x"), b.ptr("w"), static_cast<Out*>(b.ptr("y")), int(s["m"]), int(s["n"]), int(s["k"]),
                   kc::cu::stream_of(b));
}

// Decode rows 1..32 (one block holds them all: m's tile is an mma's 8 x rows); K and N from 64 to
// 16,384 (the issue's envelope); n's tile: an mma's 16 W rows; k's tile: the 1,024 the 8 slices
// cover before repeating, in steps of 8 for 16-byte loads.
kc::Entry gemv_entry(kc::DType out) {
  return kc::dense::projection(out)
      .served({{"m", {1, 8, 32}}, {"n", {64, 4096, 16384}}, {"k", {64, 4096, 16384}}})
      .tile("m", kRowsX, 1, 1)
      .tile("n", kRowsW, 1, 1)
      .tile("k", kTileK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return gemv_depth(s["k"]); });
}

// The launch the launcher takes at a shape (gemv_form): gate 3 runs each at a ragged shape.
template <class Out> std::string gemv_pick(const std::string& name, const kc::Shape& s) {
  const GemvShape g = gemv_form<Out>(int(s["m"]), int(s["n"]));
  return name + (g.mt == 1 ? "/m8" : g.mt == 2 ? "/m16" : g.nt == 2 ? "/m32x2" : "/m32");
}
}  // namespace

KC_KERNEL("dense/gemv/bf16", cuda) {
  return gemv_entry(kc::DType::bf16)
      .launches({"dense/gemv/bf16/m8", "dense/gemv/bf16/m16", "dense/gemv/bf16/m32", "dense/gemv/bf16/m32x2"})
      .picks([](const kc::Shape& s) { return gemv_pick<__nv_bfloat16>("dense/gemv/bf16", s); })
      .launch(run_gemv<__nv_bfloat16>);
}
KC_KERNEL("dense/gemv/f32", cuda) {
  return gemv_entry(kc::DType::f32)
      .launches({"dense/gemv/f32/m8", "dense/gemv/f32/m16", "dense/gemv/f32/m32", "dense/gemv/f32/m32x2"})
      .picks([](const kc::Shape& s) { return gemv_pick<float>("dense/gemv/f32", s); })
      .launch(run_gemv<float>);
}

// Launch records (one an instantiation the launcher picks by rows, and at 17-32 rows by N;
// kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/gemv/bf16/m8", (kc_gemv_bf16<1, 1, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/bf16/m16", (kc_gemv_bf16<2, 1, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/bf16/m32", (kc_gemv_bf16<4, 1, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/bf16/m32x2", (kc_gemv_bf16<4, 2, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m8", (kc_gemv_bf16<1, 1, float, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m16", (kc_gemv_bf16<2, 1, float, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m32", (kc_gemv_bf16<4, 1, float, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m32x2", (kc_gemv_bf16<4, 2, float, Fault(0)>), 256, 0);
