// Control affine/ctl_reversed_nibbles/b4_g64, device code: the affine decode (qmv.cuh) at 4 bits in
// groups of 64, fp32 out, a word's eight nibbles read last to first (Fault::reversed_code), and its
// launches. Registered in cuda.cpp; built for HIP by controls/hip/affine/reversed_nibbles.hip.
#pragma once
#include "../../../kernels/affine/qmv/qmv.cuh"
#include "kc/cuda_launch.hpp"

// Launch records (one an instantiation the launcher picks by rows; gate 5's launch rows derive from them).
KC_CUDA_LAUNCH("affine/ctl_reversed_nibbles/b4_g64/m8",
               (kc_affine_qmv<4, 64, 1, float, kc::affine_cu::Fault::reversed_code>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("affine/ctl_reversed_nibbles/b4_g64/m16",
               (kc_affine_qmv<4, 64, 2, float, kc::affine_cu::Fault::reversed_code>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("affine/ctl_reversed_nibbles/b4_g64/m32",
               (kc_affine_qmv<4, 64, 4, float, kc::affine_cu::Fault::reversed_code>), 256, 0, 1, "-");
