// Control dense/ctl_tc_exact_steps/f32, device code: the served mma.sync GEMM (gemm.cuh) at a smaller
// tile (dense_controls.hpp: TcExactSteps), fault-free, and its launch. Registered in cuda.cpp.
#pragma once
#include "../../../kernels/dense/gemm/gemm.cuh"
#include "dense_controls.hpp"
#include "kc/cuda_launch.hpp"

KC_CUDA_LAUNCH("dense/ctl_tc_exact_steps/f32", (kc_gemm_mma<kc::dense_ctl::TcExactSteps, float>),
               kc::dense_ctl::TcExactSteps::kThreads, kc::dense_ctl::TcExactSteps::kSmemBytes, 1, "-");
