// Contract of the OpenCL RMS norm rows (xpu/rms_norm.cl): bf16 in and out, fp32 sums.
#include "../../common/opencl_contract.hpp"

using namespace kc::ocl;

// Sums: the row's squares (vec_chain); then / cols (correctly rounded: the build's option), + eps
// (eps itself rounded to fp32: one more rounding), rsqrt (2 ulp, the OpenCL C specification's table
// of single-precision ulps), * inv, * w.
static kc::Entry ocl_rms_norm_bf16(Served env) {
  constexpr double eps = 1e-6;
  return kc::rows::rms_norm(kc::DType::bf16, kc::DType::bf16, eps)
      .served(std::move(env))
      .tile("cols", kWg * 8, 1, 1)  // 256 work-items x 8; every width, the ragged ones too
      .sums(kc::DType::f32, [](const kc::Shape& s) { return vec_chain(long(s["cols"])); }, 5)
      .ulp("rsqrt", 2)
      .hidden("a 16-bit output: its rounding hides a bf16 sum of squares' error at these widths (y moves by half of S's)")
      .launches({"rows/rms_norm/bf16_out"})
      .launch([](const kc::Buffers& b) {
        need_cols(b, 1, 1 << 20);
        rows_launch(b, "kernels/rows/rms_norm/xpu/rms_norm.cl", "kc_cl_rms_norm",
                    {kc::opencl::buf(b.in<kc::bf16>("x")), kc::opencl::buf(b.in<kc::bf16>("w")),
                     kc::opencl::buf(b.out<kc::bf16>("y")), kc::opencl::val(int(b.shape()["cols"])),
                     kc::opencl::val(float(eps))});
      });
}
KC_KERNEL("rows/rms_norm/bf16_out", opencl) { return ocl_rms_norm_bf16(decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/rms_norm/bf16_out/prompt", opencl) { return ocl_rms_norm_bf16(prompt_env()); }
