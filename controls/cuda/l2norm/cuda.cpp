// Registration of the L2 norm's CUDA control (l2norm_controls.cu): the norm over the first half of
// the row, red at gate 3.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/l2norm/rows/l2norm.cuh"
#include "kc/families/l2norm.hpp"

KC_CONTROL("l2norm/ctl_first_half", cuda) {
  return kc::l2norm::rows(kc::l2norm::Residual::none)
      .served({{"rows", {1, 7}}, {"cols", {64, 4096}}})
      .range("cols", 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return kc::cu::l2_depth(s["cols"]); })
      .ulp("rsqrtf", 2)
      .hidden(kc::l2norm::kHiddenSums)
      .launches({"l2norm/ctl_first_half/v1", "l2norm/ctl_first_half/v2", "l2norm/ctl_first_half/v4"})
      .picks([](const kc::Shape& s) { return "l2norm/ctl_first_half/v" + std::to_string(kc::cu::l2_vpt(s["cols"])); })
      .control(kc::Gate::shapes, kc::Why::bound)
      .note("the norm over the first half of the row")
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"x", "y"});
        kc::cu::need_cols(b, 8, kc::cu::kL2MaxCols);
        kc::cu::l2norm_rows_first_half(b.in<kc::bf16>("x"), b.out<kc::bf16>("y"), int(b.shape()["rows"]),
                                       int(b.shape()["cols"]), 1e-6f, b.stream());
      });
}
