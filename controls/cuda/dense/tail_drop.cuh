// Control dense/ctl_tail_drop/f32, device code: the decode GEMV (gemv.cuh) losing the last K column
// of a ragged 2,048-column tile (Fault::drop_tail), and its launches. Registered in cuda.cpp; built
// for HIP by controls/hip/dense/tail_drop.hip.
#pragma once
#include "../../../kernels/dense/gemv/gemv.cuh"
#include "kc/cuda_launch.hpp"

// Launch records (one an instantiation the launcher picks by rows; gate 5's launch rows derive from them).
KC_CUDA_LAUNCH("dense/ctl_tail_drop/f32/m8",
               (kc_gemv_bf16<1, 1, float, kc::dense_cu::Fault::drop_tail>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/ctl_tail_drop/f32/m16",
               (kc_gemv_bf16<2, 1, float, kc::dense_cu::Fault::drop_tail>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/ctl_tail_drop/f32/m32",
               (kc_gemv_bf16<4, 1, float, kc::dense_cu::Fault::drop_tail>), 256, 0, 1, "-");
