// Contract of the CUDA SwiGLU rows (swiglu.cuh), checked at MLX's bf16 rounding points.
#include "../../common/cuda_contract.hpp"
#include "swiglu.cuh"

using namespace kc::cu;

// Each step is one fp32 op before its rounding; expf is 2 ulp (CUDA C Programming Guide).
KC_KERNEL("rows/swiglu/bf16", cuda) {
  return kc::rows::swiglu()
      .served({{"rows", {1, 7, 32, 8192}}, {"cols", {64, 4096, 16384}}})
      .tile("cols", 8, 8, 8)  // one 16-byte vector a thread
      .sums(kc::DType::f32, [](const kc::Shape&) { return 0.0; }, 1)
      .ulp("expf", 2)
      .launches({"rows/swiglu/bf16"})
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"g", "u", "y"});
        need_cols(b, 8, 1 << 20);
        launch_swiglu(b.in<kc::bf16>("g"), b.in<kc::bf16>("u"), b.out<kc::bf16>("y"),
                      long(b.shape()["rows"]) * b.shape()["cols"], stream_of(b));
      });
}

KC_CUDA_LAUNCH("rows/swiglu/bf16", kc_swiglu_bf16, 256, 0);
