// Control: the decode GEMV rounding its running sums to bf16 while claiming fp32 sums of a depth
// (2^17 roundings a term) deep enough that gate 3's gamma term hides bf16's error: only gate 4's
// exact integer sums can show it.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/dense/gemv/gemv.cuh"
#include "kc/families/dense.hpp"

using namespace kc::dense_cu;

KC_CONTROL("dense/ctl_bf16_sum/f32", cuda) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 8}}, {"n", {64, 256}}, {"k", {64, 4096}}})
      .tile("m", 8, 1, 1)
      .tile("n", 4, 1, 1)
      .tile("k", kTileK, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return 131072.0 * double(s["k"]); })
      .launches({"dense/ctl_bf16_sum/f32/m8", "dense/ctl_bf16_sum/f32/m16", "dense/ctl_bf16_sum/f32/m32"})
      .control(kc::Gate::sums, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        launch_gemv<float, Fault::bf16_sums>(b.ptr("x"), b.ptr("w"), b.out<float>("y"), int(s["m"]), int(s["n"]),
                                             int(s["k"]), kc::cu::stream_of(b));
      });
}

// Launch records (one an instantiation the launcher picks by rows; kernels/.../launches.tsv rows).
KC_CUDA_LAUNCH("dense/ctl_bf16_sum/f32/m8", (kc_gemv_bf16<1, 1, float, Fault(2)>), 256, 0);
KC_CUDA_LAUNCH("dense/ctl_bf16_sum/f32/m16", (kc_gemv_bf16<2, 1, float, Fault(2)>), 256, 0);
KC_CUDA_LAUNCH("dense/ctl_bf16_sum/f32/m32", (kc_gemv_bf16<4, 1, float, Fault(2)>), 256, 0);
