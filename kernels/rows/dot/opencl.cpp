// Contract of the OpenCL row dot (xpu/dot.cl): bf16 x and w, fp32 fma chains and out.
#include "../../common/opencl_contract.hpp"

using namespace kc::ocl;

static kc::Entry ocl_rows_dot_f32(Served env) {
  return kc::rows::dot(kc::DType::bf16, kc::DType::f32)
      .served(std::move(env))
      .tile("cols", kWg * 8, 1, 1)  // 256 work-items x 8; every width, the ragged ones too
      .sums(kc::DType::f32, [](const kc::Shape& s) { return vec_chain(long(s["cols"])); })
      .launches({"rows/dot/f32"})
      .launch([](const kc::Buffers& b) {
        need_cols(b, 1, 1 << 20);
        rows_launch(b, "kernels/rows/dot/xpu/dot.cl", "kc_cl_row_dot",
                    {kc::opencl::buf(b.in<kc::bf16>("x")), kc::opencl::buf(b.in<kc::bf16>("w")),
                     kc::opencl::buf(b.out<float>("y")), kc::opencl::val(int(b.shape()["cols"]))});
      });
}
KC_KERNEL("rows/dot/f32", opencl) { return ocl_rows_dot_f32(decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/dot/f32/prompt", opencl) { return ocl_rows_dot_f32(prompt_env()); }
