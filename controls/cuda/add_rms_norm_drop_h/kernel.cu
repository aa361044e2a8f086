// Gate 3 control: the rounded residual norm with its rounding point h dropped from the norm: h is
// written as bf16(x + r), but the norm reads s = x + r in fp32 (what the once-rounded kernel does),
// while the spec states MLX's rounded form. The rounding-point interval check on y must catch it.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/rows/add_rms_norm/add_rms_norm.cuh"

KC_CONTROL("rows/ctl_add_rms_norm_drop_h/bf16", cuda) {
  using namespace kc::cu;
  return kc::rows::add_rms_norm(kc::rows::Residual::rounded, 1e-6)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024, 4096}}})
      .range("cols", 8, 8)  // the kernel takes whole vectors of 8
      .sums(kc::DType::f32, [](const kc::Shape& s) { return row_depth(s["cols"]); }, 5)
      .ulp("rsqrtf", 2)
      .hidden("a bf16 output: its rounding hides a bf16 sum of squares' error at these widths")
      .launches({"rows/ctl_add_rms_norm_drop_h/bf16/v1", "rows/ctl_add_rms_norm_drop_h/bf16/v2"})
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "r", "w", "h", "y"});
        need_cols(b, 8, kMaxCols);
        launch_add_rms_norm<true>(b.in<kc::bf16>("x"), b.in<kc::bf16>("r"), b.in<kc::bf16>("w"), b.out<kc::bf16>("h"),
                                  b.out<kc::bf16>("y"), int(b.shape()["rows"]), int(b.shape()["cols"]), 1e-6f,
                                  stream_of(b));
      });
}
KC_CUDA_LAUNCH("rows/ctl_add_rms_norm_drop_h/bf16/v1", (kc_add_rms_norm<true, 1>), 256, 0);
KC_CUDA_LAUNCH("rows/ctl_add_rms_norm_drop_h/bf16/v2", (kc_add_rms_norm<true, 2>), 256, 0);
