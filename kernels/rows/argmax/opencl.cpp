// Contract of the OpenCL row argmax (xpu/argmax.cl): bf16 in, i32 ids, the CUDA twin's stated NaN
// rule (the family checks it: lowest id on a tie, -1 for a row holding a NaN).
#include "../../common/opencl_contract.hpp"

using namespace kc::ocl;

static kc::Entry ocl_rows_argmax_bf16(Served env) {
  return kc::rows::argmax(kc::DType::bf16)
      .served(std::move(env))
      .tile("cols", kWg * 8, 1, 1)  // 256 work-items x 8; every width, the ragged ones too
      .launches({"rows/argmax/bf16"})
      .launch([](const kc::Buffers& b) {
        need_cols(b, 1, 1 << 20);
        rows_launch(b, "kernels/rows/argmax/xpu/argmax.cl", "kc_cl_row_argmax",
                    {kc::opencl::buf(b.in<kc::bf16>("x")), kc::opencl::buf(b.out<int32_t>("id")),
                     kc::opencl::val(int(b.shape()["cols"]))});
      });
}
KC_KERNEL("rows/argmax/bf16", opencl) { return ocl_rows_argmax_bf16(decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/argmax/bf16/prompt", opencl) { return ocl_rows_argmax_bf16(prompt_env()); }
