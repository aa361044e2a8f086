// Gate 3 control: the rounded residual norm with its rounding point h dropped from the norm: h is
// written as bf16(x + r), but the norm reads s = x + r in fp32 (what the once-rounded kernel does),
// while the spec states MLX's rounded form. The rounding-point interval check on y must catch it.
// Its kernels are the served once-rounded ones (add_rms_norm.cuh); its launcher (rows_controls.cu)
// takes every width's form, as launch_add_rms_norm<true> does.
#pragma once
#include "../../../kernels/rows/add_rms_norm/add_rms_norm.cuh"
#include "kc/cuda_launch.hpp"

KC_CUDA_LAUNCH("rows/ctl_add_rms_norm_drop_h/bf16/v1", (kc_add_rms_norm<true, 1>), 256, 0);
KC_CUDA_LAUNCH("rows/ctl_add_rms_norm_drop_h/bf16/v2", (kc_add_rms_norm<true, 2>), 256, 0);
