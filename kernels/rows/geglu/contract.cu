// Contract of the CUDA GeGLU rows (geglu.cuh), checked at MLX's bf16 rounding points.
#include "../../common/cuda_contract.hpp"
#include "geglu.cuh"

using namespace kc::cu;

// Each step is one fp32 op before its rounding, but g * M_SQRT1_2 also carries the constant's own
// rounding to fp32: 2 ops covers both. erff is 2 ulp (CUDA C Programming Guide).
KC_KERNEL("rows/geglu/bf16", cuda) {
  return kc::rows::geglu()
      .served({{"rows", {1, 7, 32, 8192}}, {"cols", {64, 4096, 16384}}})
      .tile("cols", 8, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape&) { return 0.0; }, 2)
      .ulp("erff", 2)
      .launches({"rows/geglu/bf16"})
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"g", "u", "y"});
        need_cols(b, 8, 1 << 20);
        launch_geglu(b.in<kc::bf16>("g"), b.in<kc::bf16>("u"), b.out<kc::bf16>("y"),
                     long(b.shape()["rows"]) * b.shape()["cols"], stream_of(b));
      });
}

KC_CUDA_LAUNCH("rows/geglu/bf16", kc_geglu_bf16, 256, 0);
