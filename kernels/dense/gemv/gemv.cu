// The device unit of the decode projection (gemv.cuh, gemv_sm90a.cuh): the table its registration
// (cuda.cpp) asks, with this unit's launchers, and its launches.
#include "gemv.cuh"
#include "kc/cuda_launch.hpp"

namespace kc::dense_cu {
template <class Out> const GemvUnit<Out>& gemv_unit() { return this_gemv_unit<Out>(); }
template const GemvUnit<__nv_bfloat16>& gemv_unit<__nv_bfloat16>();
template const GemvUnit<float>& gemv_unit<float>();
}  // namespace kc::dense_cu

using namespace kc::dense_cu;

// Launch declarations (one an instantiation the launcher picks by rows, and at 17-32 rows by N).
// frame=16 on m32x2: held to 128 registers for two blocks an SM, ptxas 13.0 spills 8-16 bytes there on
// sm_80 to sm_90 (none from sm_100 on, where it takes one block); one block an SM was slower on the H200.
KC_CUDA_LAUNCH("dense/gemv/bf16/m8", (kc_gemv_bf16<1, 1, __nv_bfloat16, Fault::none>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv/bf16/m16", (kc_gemv_bf16<2, 1, __nv_bfloat16, Fault::none>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv/bf16/m32", (kc_gemv_bf16<4, 1, __nv_bfloat16, Fault::none>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv/bf16/m32x2", (kc_gemv_bf16<4, 2, __nv_bfloat16, Fault::none>), 256, 0, 1, "frame=16");
KC_CUDA_LAUNCH("dense/gemv/f32/m8", (kc_gemv_bf16<1, 1, float, Fault::none>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv/f32/m16", (kc_gemv_bf16<2, 1, float, Fault::none>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv/f32/m32", (kc_gemv_bf16<4, 1, float, Fault::none>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv/f32/m32x2", (kc_gemv_bf16<4, 2, float, Fault::none>), 256, 0, 1, "frame=16");
#if defined(__CUDACC__)
// The wgmma form (sm_90a only): one an x width and part count, a cluster of its parts.
#define KC_GEMV90_LAUNCH(OUT, T, NX, C)                                                                          \
  KC_CUDA_LAUNCH("dense/gemv/" OUT "/wgmma_m" #NX "_c" #C, (kc_gemv90<NX, C, T>), kc::gemv90::kThreads,         \
                 kc::gemv90::smem_bytes<NX>(), C, "optin,only=90")
#define KC_GEMV90_LAUNCHES(OUT, T, NX) \
  KC_GEMV90_LAUNCH(OUT, T, NX, 1);     \
  KC_GEMV90_LAUNCH(OUT, T, NX, 2);     \
  KC_GEMV90_LAUNCH(OUT, T, NX, 4);     \
  KC_GEMV90_LAUNCH(OUT, T, NX, 8)
KC_GEMV90_LAUNCHES("bf16", __nv_bfloat16, 8);
KC_GEMV90_LAUNCHES("bf16", __nv_bfloat16, 16);
KC_GEMV90_LAUNCHES("bf16", __nv_bfloat16, 32);
KC_GEMV90_LAUNCHES("f32", float, 8);
KC_GEMV90_LAUNCHES("f32", float, 16);
KC_GEMV90_LAUNCHES("f32", float, 32);
#endif
