// Control dense/ctl_splitk_reversed/f32, device code: the split-K decode projection (gemv.cuh)
// meeting its slices last to first (Fault::reversed_meet; on the sm_90a image the wgmma form's parts),
// and its launches. Registered in cuda.cpp; built for HIP by controls/hip/dense/splitk_reversed.hip.
#pragma once
#include "../../../kernels/dense/gemv/gemv.cuh"
#include "kc/cuda_launch.hpp"

// Launch records (one an instantiation the launcher picks by rows; gate 5's launch rows derive from them).
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/slices_m8", (kc_gemv_bf16_slices<1, 1>), 32, 0, 1, "-");
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/slices_m16", (kc_gemv_bf16_slices<2, 1>), 32, 0, 1, "-");
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/slices_m32", (kc_gemv_bf16_slices<4, 1>), 32, 0, 1, "-");
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/meet",
               (kc_gemv_bf16_meet<float, kc::dense_cu::Fault::reversed_meet>), 256, 0, 1, "-");
#if defined(__CUDACC__)  // the wgmma parts (sm_90a only; not in the HIP build of this control)
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/wgmma_parts_m8", (kc_gemv90_parts<8>), kc::gemv90::kThreads,
               kc::gemv90::smem_bytes<8>(), 1, "optin,only=90");
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/wgmma_parts_m16", (kc_gemv90_parts<16>), kc::gemv90::kThreads,
               kc::gemv90::smem_bytes<16>(), 1, "optin,only=90");
KC_CUDA_LAUNCH("dense/ctl_splitk_reversed/f32/wgmma_parts_m32", (kc_gemv90_parts<32>), kc::gemv90::kThreads,
               kc::gemv90::smem_bytes<32>(), 1, "optin,only=90");
#endif
