// Contract of the CUDA decode projection (gemv.cuh): bf16 x and W, fp32 sums, bf16 or fp32 out.
#include "../../common/cuda_contract.hpp"
#include "gemv.cuh"
#include "kc/families/dense.hpp"

namespace {
using namespace kc::dense_cu;

template <class Out> void run_gemv(const kc::Buffers& b) {
  kc::cu::need_aligned16(b, {"x", "w"});
  const kc::Shape& s = b.shape();
  if (s["k"] % 8) throw kc::Error("dense/gemv: k must be a multiple of 8 for 16-byte loads");
  launch_gemv<Out>(b.ptr("x"), b.ptr("w"), static_cast<Out*>(b.ptr("y")), int(s["m"]), int(s["n"]), int(s["k"]),
                   kc::cu::stream_of(b));
}

// Decode rows 1..32; K from 64 to 16,384, N from 64 to 4,096 here (the kernel takes any N; the
// float64 reference of 32 x 16,384 x 16,384 at every gate-1 plant would cost minutes, so the wide
// projections are timed in bench/cuda/dense rather than served here). x rows come in blocks of 8
// (m's tile), W rows in pairs or fours (n's tile 4 covers both), K in 2,048-element steps of 8
// warps (k's tile).
kc::Entry gemv_entry(kc::DType out) {
  return kc::dense::projection(out)
      .served({{"m", {1, 8, 32}}, {"n", {64, 4096}}, {"k", {64, 4096, 16384}}})
      .tile("m", 8, 1, 1)
      .tile("n", 4, 1, 1)
      .tile("k", kTileK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return gemv_depth(s["k"]); });
}
}  // namespace

KC_KERNEL("dense/gemv/bf16", cuda) {
  return gemv_entry(kc::DType::bf16).launches({"dense/gemv/bf16/m1", "dense/gemv/bf16/m2", "dense/gemv/bf16/m4", "dense/gemv/bf16/m8"}).launch(run_gemv<__nv_bfloat16>);
}
KC_KERNEL("dense/gemv/f32", cuda) {
  return gemv_entry(kc::DType::f32).launches({"dense/gemv/f32/m1", "dense/gemv/f32/m2", "dense/gemv/f32/m4", "dense/gemv/f32/m8"}).launch(run_gemv<float>);
}

// Launch records (one an instantiation the launcher picks by rows; kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/gemv/bf16/m1", (kc_gemv_bf16<1, 4, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/bf16/m2", (kc_gemv_bf16<2, 4, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/bf16/m4", (kc_gemv_bf16<4, 2, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/bf16/m8", (kc_gemv_bf16<8, 2, __nv_bfloat16, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m1", (kc_gemv_bf16<1, 4, float, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m2", (kc_gemv_bf16<2, 4, float, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m4", (kc_gemv_bf16<4, 2, float, Fault(0)>), 256, 0);
KC_CUDA_LAUNCH("dense/gemv/f32/m8", (kc_gemv_bf16<8, 2, float, Fault(0)>), 256, 0);
