// Contract of the OpenCL GEGLU rows (xpu/geglu.cl), checked at MLX's bf16 rounding points.
#include "../../common/opencl_contract.hpp"

using namespace kc::ocl;

// No sums: each step is one fp32 op (or a library function) before its rounding; the family carries
// the interval, with erf at 16 ulp and the divide correctly rounded (the build's option).
static kc::Entry ocl_geglu_bf16(Served env) {
  return kc::rows::geglu()
      .served(std::move(env))
      .tile("cols", 8, 1, 1)  // elementwise: one 16-byte vector a work-item, the ragged rest after
      .ulp("erff", 16)  // erf: 16 ulp in the OpenCL C specification (CUDA's erff: 2)
      .launches({"rows/geglu/bf16"})
      .launch([](const kc::Buffers& b) {
        const long n = long(b.shape()["rows"]) * long(b.shape()["cols"]);
        if (n >= (1L << 31)) throw kc::Error("rows x cols must fit an int");
        kc::opencl::launch(b, "kernels/rows/geglu/xpu/geglu.cl", "kc_cl_geglu", {size_t(n / 8 + 1 + kWg - 1) / kWg, size_t(kWg)},
                           {kc::opencl::buf(b.in<kc::bf16>("g")), kc::opencl::buf(b.in<kc::bf16>("u")),
                            kc::opencl::buf(b.out<kc::bf16>("y")), kc::opencl::val(int(n))});
      });
}
KC_KERNEL("rows/geglu/bf16", opencl) { return ocl_geglu_bf16(decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/geglu/bf16/prompt", opencl) { return ocl_geglu_bf16(prompt_env()); }
