// Contract of the OpenCL row sum (xpu/sum.cl): bf16 in, fp32 out; the CUDA twin's family and
// envelopes, its own chain.
#include "../../common/opencl_contract.hpp"

using namespace kc::ocl;

static kc::Entry ocl_rows_sum_f32(Served env) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served(std::move(env))
      .tile("cols", kWg * 8, 1, 1)  // 256 work-items x 8; every width, the ragged ones too
      .sums(kc::DType::f32, [](const kc::Shape& s) { return vec_chain(long(s["cols"])); })
      .launches({"rows/sum/f32"})
      .launch([](const kc::Buffers& b) {
        need_cols(b, 1, 1 << 20);
        rows_launch(b, "kernels/rows/sum/xpu/sum.cl", "kc_cl_row_sum",
                    {kc::opencl::buf(b.in<kc::bf16>("x")), kc::opencl::buf(b.out<float>("y")),
                     kc::opencl::val(int(b.shape()["cols"]))});
      });
}
KC_KERNEL("rows/sum/f32", opencl) { return ocl_rows_sum_f32(decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/sum/f32/prompt", opencl) { return ocl_rows_sum_f32(prompt_env()); }
