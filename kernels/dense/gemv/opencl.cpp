// Contract of the OpenCL decode projection (xpu/gemv.cl): bf16 x and W, fp32 sums, fp32 or bf16 out.
// The CUDA twin's family and decode rows (1 to 32); N and K to 1,024 and 4,096 here, not 16,384: a
// float64 reference of 32 x 16,384 x 16,384 at every shape gate 3 visits is a GPU's work, and this
// backend's every-commit device is PoCL on two CPU cores.
#include "../../common/opencl_contract.hpp"
#include "kc/families/dense.hpp"

using namespace kc::ocl;

static kc::Entry ocl_gemv(kc::DType out, const char* kernel, const char* launch) {
  return kc::dense::projection(out)
      .served({{"m", {1, 8, 32}}, {"n", {64, 1024}}, {"k", {64, 4096}}})
      .tile("m", 8, 1, 1)           // 8 x rows a work-group
      .tile("k", kWg * 8, 1, 1)     // 256 work-items x 8 columns; every K, the ragged ones too
      .sums(kc::DType::f32, [](const kc::Shape& s) { return vec_chain(long(s["k"])); })
      .launches({launch})
      .launch([kernel](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        const int m = int(s["m"]), n = int(s["n"]), k = int(s["k"]);
        kc::opencl::launch(b, "kernels/dense/gemv/xpu/gemv.cl", kernel, {size_t(n), size_t(kWg), size_t(m + 7) / 8},
                           {kc::opencl::buf(b.ptr("x")), kc::opencl::buf(b.ptr("w")), kc::opencl::buf(b.ptr("y")),
                            kc::opencl::val(m), kc::opencl::val(n), kc::opencl::val(k)});
      });
}
KC_KERNEL("dense/gemv/f32", opencl) { return ocl_gemv(kc::DType::f32, "kc_cl_gemv_f32", "dense/gemv/f32"); }
KC_KERNEL("dense/gemv/bf16", opencl) { return ocl_gemv(kc::DType::bf16, "kc_cl_gemv_bf16", "dense/gemv/bf16"); }
