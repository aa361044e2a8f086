// Contract of the OpenCL softmax rows (xpu/softmax.cl): bf16 in and out, fp32 sums; three passes,
// so one kernel serves every width.
#include "../../common/opencl_contract.hpp"

using namespace kc::ocl;

// y = exp(x - max) * (1 / sum): exp is 3 ulp (the OpenCL C specification's table of single-precision
// ulps); x - max rounds where the two are far apart, by at most |x - max| 2^-24, which exp turns
// into a relative 88 x 2^-24 where y is a bf16 normal (|x - max| <= 88). Each reaches y twice: in
// its own term, and in the sum (a weighted mean of the terms' errors). Ops: the reciprocal (correctly
// rounded: the build's option) and the multiply.
static kc::Entry ocl_softmax_bf16(Served env, long most, const char* hidden) {
  return kc::rows::softmax(kc::DType::bf16, kc::DType::bf16)
      .served(std::move(env))
      .tile("cols", kWg * 8, 1, 1)  // 256 work-items x 8; every width, the ragged ones too
      .sums(kc::DType::f32, [](const kc::Shape& s) { return vec_chain(long(s["cols"])); }, 2)
      .ulp("exp, in the term and in the sum", 2 * 3)
      .ulp("x - max rounded (|x - max| <= 88), in the term and in the sum", 2 * 88)
      .hidden(hidden)
      .launches({"rows/softmax/bf16"})
      .launch([most](const kc::Buffers& b) {
        need_cols(b, 1, most);
        rows_launch(b, "kernels/rows/softmax/xpu/softmax.cl", "kc_cl_softmax",
                    {kc::opencl::buf(b.in<kc::bf16>("x")), kc::opencl::buf(b.out<kc::bf16>("y")),
                     kc::opencl::val(int(b.shape()["cols"]))});
      });
}
static constexpr const char* kShort =
    "a bf16 softmax of at most 4,096 terms in [0, 1]: the output's rounding hides the fp32 sum's error";
static constexpr const char* kLong =
    "a bf16 output: its rounding (2^-9) is within 100x of what a bf16 or fp16 sum of these terms in [0, 1] loses";
KC_KERNEL("rows/softmax/bf16", opencl) { return ocl_softmax_bf16(decode_env({64, 1024, 4096}), 4096, kShort); }
KC_KERNEL("rows/softmax/bf16/prompt", opencl) { return ocl_softmax_bf16(prompt_env(), 4096, kShort); }
KC_KERNEL("rows/softmax/bf16_long", opencl) {
  return ocl_softmax_bf16(decode_env({64, 8192, 16384, 32768}), 1 << 16, kLong);
}
