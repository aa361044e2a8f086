// Control dense/ctl_bf16_sum/f32, device code: the decode GEMV (gemv.cuh) rounding its running sums
// to bf16 (Fault::bf16_sums), and its launches. Registered in cuda.cpp; built for HIP by
// controls/hip/dense/bf16_sum.hip.
#pragma once
#include "../../../kernels/dense/gemv/gemv.cuh"
#include "kc/cuda_launch.hpp"

// Launch records (one an instantiation the launcher picks by rows; gate 5's launch rows derive from them).
KC_CUDA_LAUNCH("dense/ctl_bf16_sum/f32/m8",
               (kc_gemv_bf16<1, 1, float, kc::dense_cu::Fault::bf16_sums>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/ctl_bf16_sum/f32/m16",
               (kc_gemv_bf16<2, 1, float, kc::dense_cu::Fault::bf16_sums>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/ctl_bf16_sum/f32/m32",
               (kc_gemv_bf16<4, 1, float, kc::dense_cu::Fault::bf16_sums>), 256, 0, 1, "-");
