// Gate 3 control: the served fp32 layer norm (layer_norm.cuh) with its variance from one pass,
// E[x^2] - mean^2 in fp32, clamped at 0 as real code does. On the offset fill (1000 + 0.01 u) the
// two terms are near 1e6 and differ by about 3e-5, which fp32 cannot hold: rstd and y fall outside
// the two-pass interval. On every other fill and gate it is within it: red on gate 3 alone.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/rows/layer_norm/layer_norm.cuh"

KC_CONTROL("rows/ctl_layer_norm_one_pass/f32", cuda) {
  using namespace kc::cu;
  return kc::rows::layer_norm(kc::DType::f32, kc::DType::f32, 1e-5)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024, 4096}}})
      .tile("rows", kBlock / 32, 1, 1)
      .tile("cols", kBlock * 8, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return ln_depth<true>(s["rows"], s["cols"]); }, 3)
      .ulp("rsqrtf", 2)
      .launches({"rows/ctl_layer_norm_one_pass/f32/v1", "rows/ctl_layer_norm_one_pass/f32/v2",
                 "rows/ctl_layer_norm_one_pass/f32/v4"})
      .picks([](const kc::Shape& s) { return vpt_form("rows/ctl_layer_norm_one_pass/f32", ln_shape<true>(s["rows"], s["cols"]).vpt); })
      .control(kc::Gate::shapes, kc::Why::interval)
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "w", "b", "y"});
        need_cols(b, 8, 4096);
        launch_layer_norm<true, float, /*ONE_PASS=*/true>(b.ptr("x"), b.ptr("w"), b.ptr("b"), b.out<float>("y"),
                                                          b.out<float>("mean"), b.out<float>("rstd"),
                                                          int(b.shape()["rows"]), int(b.shape()["cols"]), 1e-5f,
                                                          stream_of(b));
      });
}
KC_CUDA_LAUNCH("rows/ctl_layer_norm_one_pass/f32/v1", (kc_layer_norm_vec<true, float, 1, true>), 256, 0);
KC_CUDA_LAUNCH("rows/ctl_layer_norm_one_pass/f32/v2", (kc_layer_norm_vec<true, float, 2, true>), 256, 0);
KC_CUDA_LAUNCH("rows/ctl_layer_norm_one_pass/f32/v4", (kc_layer_norm_vec<true, float, 4, true>), 256, 0);
