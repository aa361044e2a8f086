// Contract of the OpenCL row max (xpu/max.cl): bf16 in and out; no sums (a max is exact).
#include "../../common/opencl_contract.hpp"

using namespace kc::ocl;

static kc::Entry ocl_rows_max_bf16(Served env) {
  return kc::rows::max(kc::DType::bf16, kc::DType::bf16)
      .served(std::move(env))
      .tile("cols", kWg * 8, 1, 1)  // 256 work-items x 8; every width, the ragged ones too
      .launches({"rows/max/bf16"})
      .launch([](const kc::Buffers& b) {
        need_cols(b, 1, 1 << 20);
        rows_launch(b, "kernels/rows/max/xpu/max.cl", "kc_cl_row_max",
                    {kc::opencl::buf(b.in<kc::bf16>("x")), kc::opencl::buf(b.out<kc::bf16>("y")),
                     kc::opencl::val(int(b.shape()["cols"]))});
      });
}
KC_KERNEL("rows/max/bf16", opencl) { return ocl_rows_max_bf16(decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/max/bf16/prompt", opencl) { return ocl_rows_max_bf16(prompt_env()); }
