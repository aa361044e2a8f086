// Control dense/ctl_early_x/f32, device code: the decode GEMV (gemv.cuh) launched chained, waiting on
// the kernel ahead only after its loads of x (Fault::early_x), and its launches. Registered in
// cuda.cpp.
#pragma once
#include "../../../kernels/dense/gemv/gemv.cuh"
#include "kc/cuda_launch.hpp"

// Launch records (one an instantiation the launcher picks by rows; gate 5's launch rows derive from them).
KC_CUDA_LAUNCH("dense/ctl_early_x/f32/m8", (kc_gemv_bf16<1, 1, float, kc::dense_cu::Fault::early_x>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/ctl_early_x/f32/m16", (kc_gemv_bf16<2, 1, float, kc::dense_cu::Fault::early_x>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/ctl_early_x/f32/m32", (kc_gemv_bf16<4, 1, float, kc::dense_cu::Fault::early_x>), 256, 0, 1, "-");
