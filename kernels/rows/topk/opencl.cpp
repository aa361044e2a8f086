// Contracts of the OpenCL bf16 top-k rows (xpu/topk.cl) at k = 8 and k = 64. The family checks the
// stated rule on every output: a NaN ranks above +inf, ties go to the lower id, deterministic.
#include "../../common/opencl_contract.hpp"

using namespace kc::ocl;

static kc::Entry ocl_topk(int k, const char* launch, bool prompt) {
  return kc::rows::topk(kc::DType::bf16, k)
      .served(prompt ? prompt_env(k) : decode_env({int64_t(k), 4096, 16384}))
      .tile("cols", kWg * 8, 1, k)  // every width from k, the ragged ones too
      .launches({launch})
      .launch([k](const kc::Buffers& b) {
        need_cols(b, k, 65535);
        rows_launch(b, "kernels/rows/topk/xpu/topk.cl", "kc_cl_topk",
                    {kc::opencl::buf(b.in<kc::bf16>("x")), kc::opencl::buf(b.out<int32_t>("ids")),
                     kc::opencl::buf(b.out<kc::bf16>("vals")), kc::opencl::val(int(b.shape()["cols"])),
                     kc::opencl::val(k)});
      });
}
KC_KERNEL("rows/topk/bf16_k8", opencl) { return ocl_topk(8, "rows/topk/bf16_k8", false); }
KC_KERNEL("rows/topk/bf16_k8/prompt", opencl) { return ocl_topk(8, "rows/topk/bf16_k8", true); }
KC_KERNEL("rows/topk/bf16_k64", opencl) { return ocl_topk(64, "rows/topk/bf16_k64", false); }
KC_KERNEL("rows/topk/bf16_k64/prompt", opencl) { return ocl_topk(64, "rows/topk/bf16_k64", true); }
