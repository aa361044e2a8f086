// Contracts of the OpenCL residual add + RMS norm rows (xpu/add_rms_norm.cl): h and y both checked,
// in the rounded (MLX) and once-rounded forms.
#include "../../common/opencl_contract.hpp"

using namespace kc::ocl;

// As rms_norm: the squares' chain, then / cols, + eps (and eps's own rounding), rsqrt (2 ulp, the
// OpenCL C specification), * inv, * w; the once-rounded form adds s = x + r in fp32 (one more op).
static kc::Entry ocl_add_rms_norm(kc::rows::Residual form, Served env) {
  constexpr double eps = 1e-6;
  const bool once = form == kc::rows::Residual::once_rounded;
  return kc::rows::add_rms_norm(form, eps)
      .served(std::move(env))
      .tile("cols", kWg * 8, 1, 1)  // 256 work-items x 8; every width, the ragged ones too
      .sums(kc::DType::f32, [](const kc::Shape& s) { return vec_chain(long(s["cols"])); }, once ? 6 : 5)
      .ulp("rsqrt", 2)
      .hidden("a bf16 output: its rounding hides a bf16 sum of squares' error at these widths (y moves by half of S's)")
      .launches({once ? "rows/add_rms_norm/once_rounded" : "rows/add_rms_norm/rounded"})
      .launch([once](const kc::Buffers& b) {
        need_cols(b, 1, 1 << 20);
        rows_launch(b, "kernels/rows/add_rms_norm/xpu/add_rms_norm.cl", once ? "kc_cl_add_rms_norm_once" : "kc_cl_add_rms_norm",
                    {kc::opencl::buf(b.in<kc::bf16>("x")), kc::opencl::buf(b.in<kc::bf16>("r")),
                     kc::opencl::buf(b.in<kc::bf16>("w")), kc::opencl::buf(b.out<kc::bf16>("h")),
                     kc::opencl::buf(b.out<kc::bf16>("y")), kc::opencl::val(int(b.shape()["cols"])),
                     kc::opencl::val(float(eps))});
      });
}
using kc::rows::Residual;
KC_KERNEL("rows/add_rms_norm/rounded", opencl) { return ocl_add_rms_norm(Residual::rounded, decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/add_rms_norm/rounded/prompt", opencl) { return ocl_add_rms_norm(Residual::rounded, prompt_env()); }
KC_KERNEL("rows/add_rms_norm/once_rounded", opencl) {
  return ocl_add_rms_norm(Residual::once_rounded, decode_env({64, 4096, 16384}));
}
KC_KERNEL("rows/add_rms_norm/once_rounded/prompt", opencl) { return ocl_add_rms_norm(Residual::once_rounded, prompt_env()); }
